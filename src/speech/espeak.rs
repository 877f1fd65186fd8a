//! Minimal FFI to the espeak-ng C library (Debian `libespeak-ng-dev`), as Piper uses it:
//! text -> IPA phonemes clause by clause, keeping the clause punctuation. espeak-ng holds
//! global state, so every call goes through one lock.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::Mutex;

#[link(name = "espeak-ng")]
extern "C" {
    fn espeak_Initialize(output: c_int, buflength: c_int, path: *const c_char, options: c_int) -> c_int;
    fn espeak_SetVoiceByName(name: *const c_char) -> c_int;
    fn espeak_TextToPhonemes(textptr: *mut *const c_void, textmode: c_int, phonememode: c_int) -> *const c_char;
}

const AUDIO_OUTPUT_SYNCHRONOUS: c_int = 2;
const ESPEAK_CHARS_UTF8: c_int = 1;
const ESPEAK_PHONEMES_IPA: c_int = 0x02;
const EE_OK: c_int = 0;

#[derive(Debug, thiserror::Error)]
pub enum EspeakError {
    #[error("espeak-ng failed to initialize (is espeak-ng-data installed?)")]
    Init,
    #[error("espeak-ng has no voice '{0}'")]
    Voice(String),
    #[error("text contains a NUL byte")]
    Nul,
}

struct State {
    initialized: bool,
    voice: String,
}

static ESPEAK: Mutex<State> = Mutex::new(State { initialized: false, voice: String::new() });

/// IPA phonemes of `text` in espeak voice `voice`, one string per clause, each followed by
/// its terminating punctuation (`.`, `,`, `?`, ...) when the text had one, as Piper keeps it.
pub fn phonemize(text: &str, voice: &str) -> Result<Vec<String>, EspeakError> {
    let mut st = ESPEAK.lock().unwrap_or_else(|e| e.into_inner());
    if !st.initialized {
        // SAFETY: plain C call; a null path means the library's default data directory.
        let rate = unsafe { espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, std::ptr::null(), 0) };
        if rate <= 0 {
            return Err(EspeakError::Init);
        }
        st.initialized = true;
    }
    if st.voice != voice {
        let name = CString::new(voice).map_err(|_| EspeakError::Nul)?;
        // SAFETY: `name` outlives the call.
        if unsafe { espeak_SetVoiceByName(name.as_ptr()) } != EE_OK {
            return Err(EspeakError::Voice(voice.to_string()));
        }
        st.voice = voice.to_string();
    }
    let text_c = CString::new(text).map_err(|_| EspeakError::Nul)?;
    let start = text_c.as_ptr() as usize;
    let bytes = text_c.as_bytes();
    let mut ptr = text_c.as_ptr() as *const c_void;
    let mut clauses = Vec::new();
    while !ptr.is_null() {
        let before = ptr as usize - start;
        // SAFETY: `ptr` points into `text_c` (NUL-terminated, alive for the loop); espeak
        // advances it past the clause it translated or sets it to null at the end.
        let out = unsafe { espeak_TextToPhonemes(&mut ptr, ESPEAK_CHARS_UTF8, ESPEAK_PHONEMES_IPA) };
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
