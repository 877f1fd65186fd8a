//! The model-agnostic speech-to-text interface: 16 kHz mono f32 samples in,
//! timed segments (text, tokens, log-probabilities) out. Whisper implements
//! it, and so does Moonshine, so the worker, the CLI
//! and the HTTP route never name a model family.

use std::ops::ControlFlow;

use super::ModelError;

/// The transcript's plain data types live in the text layer (`text::transcript`), which renders them
/// too (`text::subtitles`); here under their old path.
pub use crate::text::transcript::{Segment, Transcript, Word};

/// What a caller may ask of a transcription.
#[derive(Debug, Clone, Default)]
pub struct TranscribeOptions {
    /// ISO 639-1 code ("en"); None detects it where the model can.
    pub language: Option<String>,
    /// Text that conditions the first window (style, spelling of names).
    pub prompt: Option<String>,
    /// 0 = greedy with temperature fallback on failed windows; > 0 samples.
    pub temperature: f32,
    /// Seed for sampling at temperature > 0.
    pub seed: Option<u64>,
    /// Also time each word (OpenAI's timestamp_granularities[]=word).
    pub word_timestamps: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SpeechError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("unsupported language '{0}' for this model")]
    Language(String),
    #[error("cancelled")]
    Cancelled,
    #[error("{0}")]
    Tokenizer(String),
}

/// What a transcription reports while it runs.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// A finished segment, in order (for streaming).
    Segment(&'a Segment),
    /// A window of audio (Whisper's 30 s, a Moonshine chunk) is done and more follow: the GPU
    /// worker lets text sequences step here, so a long file does not stall them.
    Window,
}

/// A loaded speech-to-text model.
pub trait SpeechModel: Send {
    /// Transcribes 16 kHz mono audio. `on_progress` sees each finished segment and the end of
    /// each window but the last, and may stop the work with `Break` (the client went away),
    /// which returns `SpeechError::Cancelled`.
    fn transcribe(
        &mut self,
        audio: &[f32],
        opts: &TranscribeOptions,
        on_progress: &mut dyn FnMut(Progress<'_>) -> ControlFlow<()>,
    ) -> Result<Transcript, SpeechError>;

    /// ISO codes accepted by `TranscribeOptions::language`.
    fn languages(&self) -> Vec<String>;

    /// Whether `TranscribeOptions::word_timestamps` is honoured.
    fn word_timestamps(&self) -> bool {
        false
    }
}

/// zlib compression ratio of `text` (bytes / compressed bytes), Whisper's
/// repetition detector.
pub fn compression_ratio(text: &str) -> f64 {
    use std::io::Write;
    if text.is_empty() {
        return 0.0;
    }
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = e.write_all(text.as_bytes());
    let z = e.finish().unwrap_or_default();
    text.len() as f64 / z.len().max(1) as f64
}
