//! espeak-ng 1.52.0.1, built from the vendored source in `espeak-ng/` (see build.rs), with its
//! compiled data (phoneme tables, intonations, every vendored language's dictionary, lang/ and
//! voices/) embedded in the binary. Nothing needs to be installed: [`install_data`] writes the
//! data once into a cache directory, [`Espeak::initialize`] points espeak-ng at it.
//!
//! espeak-ng holds global state, so all use goes through one lock: [`lock`].
//!
//! ```no_run
//! let dir = gerbil_espeak::install_data(std::path::Path::new("/tmp/cache")).unwrap();
//! let mut es = gerbil_espeak::lock();
//! es.initialize(&dir).unwrap();
//! es.set_voice("en-us").unwrap();
//! assert_eq!(es.text_to_phonemes("Hello world.").unwrap(), ["həlˈoʊ wˈɜːld."]);
//! ```

use std::ffi::{c_char, c_void, CStr, CString};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

mod ffi {
    use std::ffi::{c_char, c_int, c_void};

    pub const AUDIO_OUTPUT_SYNCHRONOUS: c_int = 2;
    pub const ESPEAK_INITIALIZE_DONT_EXIT: c_int = 0x8000;
    pub const ESPEAK_CHARS_UTF8: c_int = 1;
    pub const ESPEAK_PHONEMES_IPA: c_int = 0x02;
    pub const EE_OK: c_int = 0;

    extern "C" {
        pub fn espeak_Initialize(output: c_int, buflength: c_int, path: *const c_char, options: c_int) -> c_int;
        pub fn espeak_SetVoiceByName(name: *const c_char) -> c_int;
        pub fn espeak_TextToPhonemes(textptr: *mut *const c_void, textmode: c_int, phonememode: c_int)
            -> *const c_char;
        pub fn espeak_Info(path_data: *mut *const c_char) -> *const c_char;
    }
}

/// The espeak-ng release the library and data were built from.
pub const ESPEAK_NG_VERSION: &str = VERSION;

/// Languages whose dictionary (`<lang>_dict`) is embedded.
pub fn languages() -> &'static [&'static str] {
    LANGUAGES
}

/// Total size of the embedded data files, in bytes.
pub fn embedded_data_bytes() -> u64 {
    DATA_BYTES
}

/// The folder name [`install_data`] uses under its cache root: version and a hash of the
/// embedded files, so a different build never reuses stale data.
pub fn data_dir_name() -> String {
    format!("espeak-ng-data-{VERSION}-{}", &DATA_HASH[..12])
}

const COMPLETE_MARKER: &str = ".gerbil-espeak-complete";

/// Writes the embedded espeak-ng-data into `cache_root/<data_dir_name()>` (unless a complete
/// copy is already there) and returns that folder, for [`Espeak::initialize`]. The copy is
/// written into a temporary folder beside it and renamed into place, so a reader never sees
/// a partial one; concurrent installers (threads or processes) are safe.
pub fn install_data(cache_root: &Path) -> io::Result<PathBuf> {
    let dir = cache_root.join(data_dir_name());
    if dir.join(COMPLETE_MARKER).is_file() {
        return Ok(dir);
    }
    fs::create_dir_all(cache_root)?;
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let tmp = cache_root.join(format!(".{}.tmp-{}-{nanos}", data_dir_name(), std::process::id()));
    let result = write_data(&tmp).and_then(|()| match fs::rename(&tmp, &dir) {
        Ok(()) => Ok(()),
        // Another installer got there first: use its copy if complete.
        Err(_) if dir.join(COMPLETE_MARKER).is_file() => Ok(()),
        Err(e) if dir.exists() => {
            // An incomplete folder of that name (not made by this function): replace it.
            let stale = cache_root.join(format!(".{}.stale-{}-{nanos}", data_dir_name(), std::process::id()));
            fs::rename(&dir, &stale).map_err(|_| e)?;
            let _ = fs::remove_dir_all(&stale);
            fs::rename(&tmp, &dir)
        }
        Err(e) => Err(e),
    });
    if tmp.exists() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result?;
    Ok(dir)
}

fn write_data(tmp: &Path) -> io::Result<()> {
    fs::create_dir_all(tmp)?;
    for (rel, bytes) in FILES {
        let path = tmp.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&path, bytes)?;
    }
    fs::write(tmp.join(COMPLETE_MARKER), format!("{} files, {DATA_BYTES} bytes\n", FILES.len()))
}

#[derive(Debug)]
pub enum Error {
    /// [`Espeak::initialize`] has not succeeded yet.
    NotInitialized,
    /// espeak-ng could not load its data from this folder.
    Init(PathBuf),
    /// No voice of that name.
    Voice(String),
    /// The text, voice name or path contains a NUL byte (or the path is not UTF-8 on a
    /// platform where that matters).
    Nul,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotInitialized => write!(f, "espeak-ng is not initialized"),
            Error::Init(p) => write!(f, "espeak-ng failed to load its data from {}", p.display()),
            Error::Voice(v) => write!(f, "espeak-ng has no voice '{v}'"),
            Error::Nul => write!(f, "text contains a NUL byte"),
        }
    }
}

impl std::error::Error for Error {}

/// The one espeak-ng instance of the process; reach it through [`lock`].
pub struct Espeak {
    data_dir: Option<PathBuf>,
    voice: String,
}

static ESPEAK: Mutex<Espeak> = Mutex::new(Espeak { data_dir: None, voice: String::new() });

/// Locks the process's espeak-ng (global C state) for a sequence of calls.
pub fn lock() -> MutexGuard<'static, Espeak> {
    ESPEAK.lock().unwrap_or_else(|e| e.into_inner())
}

impl Espeak {
    /// The data folder espeak-ng was initialized with, if it was.
    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// Initializes espeak-ng (synchronous mode, no audio) with the data in `data_dir` (a
    /// folder holding phontab, phondata, ..., as [`install_data`] returns). A no-op when
    /// already initialized with that folder. espeak-ng looks nowhere else for data.
    pub fn initialize(&mut self, data_dir: &Path) -> Result<(), Error> {
        if self.data_dir.as_deref() == Some(data_dir) {
            return Ok(());
        }
        // espeak-ng would fall back to $ESPEAK_DATA_PATH, ~/espeak-ng-data or its built-in
        // path for a folder that does not look like data: check first.
        if !data_dir.join("phontab").is_file() || !data_dir.join("voices").is_dir() {
            return Err(Error::Init(data_dir.to_path_buf()));
        }
        let path = path_cstring(data_dir)?;
        // SAFETY: plain C call; `path` outlives it. DONT_EXIT: report failure instead of
        // espeak-ng calling exit().
        let rate = unsafe {
            ffi::espeak_Initialize(ffi::AUDIO_OUTPUT_SYNCHRONOUS, 0, path.as_ptr(), ffi::ESPEAK_INITIALIZE_DONT_EXIT)
        };
        if rate <= 0 || self.loaded_data_path().as_deref() != Some(data_dir) {
            self.data_dir = None;
            return Err(Error::Init(data_dir.to_path_buf()));
        }
        self.data_dir = Some(data_dir.to_path_buf());
        self.voice.clear();
        Ok(())
    }

    /// The data folder espeak-ng itself reports using (`espeak_Info`).
    pub fn loaded_data_path(&self) -> Option<PathBuf> {
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: espeak_Info writes a pointer to its static path buffer.
        unsafe { ffi::espeak_Info(&mut p) };
        if p.is_null() {
            return None;
        }
        // SAFETY: NUL-terminated static buffer.
        let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        Some(PathBuf::from(s))
    }

    /// Selects the espeak voice `name` (e.g. `en-us`, `de`, `fr-fr`), as Piper's
    /// `espeak.voice`.
    pub fn set_voice(&mut self, name: &str) -> Result<(), Error> {
        if self.data_dir.is_none() {
            return Err(Error::NotInitialized);
        }
        if self.voice == name {
            return Ok(());
        }
        let c = CString::new(name).map_err(|_| Error::Nul)?;
        // SAFETY: `c` outlives the call.
        if unsafe { ffi::espeak_SetVoiceByName(c.as_ptr()) } != ffi::EE_OK {
            self.voice.clear();
            return Err(Error::Voice(name.to_string()));
        }
        self.voice = name.to_string();
        Ok(())
    }

    /// The voice last selected with [`Espeak::set_voice`].
    pub fn voice(&self) -> &str {
        &self.voice
    }

    /// IPA phonemes of `text` in the current voice, one string per clause as
    /// `espeak_TextToPhonemes` returns them, each followed by its terminating punctuation
    /// (`.`, `,`, `;`, `:`, `!`, `?`) when the text had one, as Piper keeps it.
    pub fn text_to_phonemes(&mut self, text: &str) -> Result<Vec<String>, Error> {
        if self.data_dir.is_none() {
            return Err(Error::NotInitialized);
        }
        let text_c = CString::new(text).map_err(|_| Error::Nul)?;
        let start = text_c.as_ptr() as usize;
        let bytes = text_c.as_bytes();
        let mut ptr = text_c.as_ptr() as *const c_void;
        let mut clauses = Vec::new();
        while !ptr.is_null() {
            let before = ptr as usize - start;
            // SAFETY: `ptr` points into `text_c` (NUL-terminated, alive for the loop); espeak
            // advances it past the clause it translated or sets it to null at the end.
            let out = unsafe { ffi::espeak_TextToPhonemes(&mut ptr, ffi::ESPEAK_CHARS_UTF8, ffi::ESPEAK_PHONEMES_IPA) };
            let after = if ptr.is_null() { bytes.len() } else { (ptr as usize - start).min(bytes.len()) };
            let mut ph = if out.is_null() {
                String::new()
            } else {
                // SAFETY: espeak returns a NUL-terminated string valid until the next call.
                unsafe { CStr::from_ptr(out) }.to_string_lossy().trim().to_string()
            };
            let consumed = String::from_utf8_lossy(&bytes[before.min(after)..after]);
            let mut tail: Vec<char> = consumed.trim_end().chars().collect();
            // Mid-text, espeak has read one character past the clause's punctuation.
            if !ptr.is_null() && tail.last().is_some_and(|c| !".,;:!?".contains(*c)) {
                tail.pop();
            }
            let tail: String = tail.into_iter().collect();
            if let Some(p) = tail.trim_end().chars().last().filter(|c| ".,;:!?".contains(*c)) {
                ph.push(p);
            }
            if !ph.is_empty() {
                clauses.push(ph);
            }
            if after <= before && !ptr.is_null() {
                break; // no progress: never loop forever on odd input
            }
        }
        Ok(clauses)
    }
}

#[cfg(unix)]
fn path_cstring(p: &Path) -> Result<CString, Error> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(p.as_os_str().as_bytes()).map_err(|_| Error::Nul)
}

#[cfg(not(unix))]
fn path_cstring(p: &Path) -> Result<CString, Error> {
    CString::new(p.to_str().ok_or(Error::Nul)?).map_err(|_| Error::Nul)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embeds_core_files_and_languages() {
        let names: Vec<&str> = FILES.iter().map(|(n, _)| *n).collect();
        for f in
            ["phontab", "phonindex", "phondata", "intonations", "en_dict", "de_dict", "voices/!v/m1", "lang/gmw/en-US"]
        {
            assert!(names.contains(&f), "{f} not embedded");
        }
        assert!(languages().len() >= 100, "{}", languages().len());
    }
}
