//! Text -> IPA phonemes clause by clause, keeping the clause punctuation, as Piper uses
//! espeak-ng. espeak-ng 1.52.0.1 is built from vendored source into the binary
//! (`vendor/gerbil-espeak`), its compiled data embedded: on first use the data is written
//! once into the user's cache folder and espeak-ng reads it from there, nothing else.
//! espeak-ng holds global state, so every call goes through the crate's one lock.

use std::path::PathBuf;
use std::sync::OnceLock;

/// Where the data is written: set once at start-up from the configured cache
/// (`set_data_root`); the system temp folder's `gerbil` until then.
static DATA_ROOT: OnceLock<PathBuf> = OnceLock::new();

/// Sets the folder espeak-ng's data is written under (before the first `phonemize`; later
/// calls are ignored, as is a call after espeak-ng has started).
pub fn set_data_root(root: PathBuf) {
    let _ = DATA_ROOT.set(root);
}

#[derive(Debug, thiserror::Error)]
pub enum EspeakError {
    #[error("espeak-ng failed to initialize from its data folder")]
    Init,
    #[error("espeak-ng has no voice '{0}'")]
    Voice(String),
    #[error("text contains a NUL byte")]
    Nul,
    #[error("could not write espeak-ng's data under {0}: {1}")]
    Install(String, std::io::Error),
}

/// IPA phonemes of `text` in espeak voice `voice`, one string per clause, each followed by
/// its terminating punctuation (`.`, `,`, `?`, ...) when the text had one, as Piper keeps it.
pub fn phonemize(text: &str, voice: &str) -> Result<Vec<String>, EspeakError> {
    let mut es = gerbil_espeak::lock();
    if es.data_dir().is_none() {
        let root = DATA_ROOT.get_or_init(|| std::env::temp_dir().join("gerbil")).clone();
        let dir =
            gerbil_espeak::install_data(&root).map_err(|e| EspeakError::Install(root.display().to_string(), e))?;
        es.initialize(&dir).map_err(|e| {
            tracing::error!("{e}");
            EspeakError::Init
        })?;
    }
    es.set_voice(voice).map_err(|e| match e {
        gerbil_espeak::Error::Nul => EspeakError::Nul,
        _ => EspeakError::Voice(voice.to_string()),
    })?;
    es.text_to_phonemes(text).map_err(|e| match e {
        gerbil_espeak::Error::Nul => EspeakError::Nul,
        _ => EspeakError::Init,
    })
}
