//! The model-agnostic speech-to-text interface: 16 kHz mono f32 samples in,
//! timed segments (text, tokens, log-probabilities) out. Whisper implements
//! it, and so does Moonshine, so the worker, the CLI
//! and the HTTP route never name a model family.

use std::ops::ControlFlow;

use super::ModelError;

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

/// One word and its time in seconds (OpenAI's verbose_json `words`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Word {
    pub word: String,
    pub start: f64,
    pub end: f64,
}

/// One timed piece of the transcript (OpenAI's verbose_json segment).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Segment {
    pub id: usize,
    /// Window start, in mel frames (10 ms each), as OpenAI reports it.
    pub seek: usize,
    pub start: f64,
    pub end: f64,
    pub text: String,
    pub tokens: Vec<u32>,
    pub temperature: f32,
    pub avg_logprob: f64,
    pub compression_ratio: f64,
    pub no_speech_prob: f64,
    /// The segment's words when word timestamps were asked for (reported at
    /// the top level of verbose_json, as OpenAI does).
    #[serde(skip)]
    pub words: Vec<Word>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Transcript {
    pub text: String,
    pub language: String,
    /// Seconds of audio.
    pub duration: f64,
    pub segments: Vec<Segment>,
}

impl Transcript {
    /// Every segment's words in order.
    pub fn words(&self) -> Vec<Word> {
        self.segments.iter().flat_map(|s| s.words.iter().cloned()).collect()
    }

    /// OpenAI's verbose_json body (without usage); `words` at the top level when asked for.
    pub fn verbose_json(&self, words: bool) -> serde_json::Value {
        let mut v = serde_json::json!({
            "task": "transcribe",
            "language": self.language,
            "duration": self.duration,
            "text": self.text,
            "segments": self.segments,
        });
        if words {
            v["words"] = serde_json::json!(self.words());
        }
        v
    }
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

/// Loads the speech model in `dir` by its config.json `model_type`.
pub fn load(gpu: &std::sync::Arc<crate::gpu::Gpu>, dir: &std::path::Path) -> Result<Box<dyn SpeechModel>, ModelError> {
    #[derive(serde::Deserialize)]
    struct Head {
        model_type: Option<String>,
    }
    let path = dir.join("config.json");
    let head: Head = super::read_json(&path)?;
    match head.model_type.as_deref() {
        Some("whisper") => Ok(Box::new(super::whisper::WhisperTranscriber::load(gpu, dir)?)),
        Some("moonshine") => Ok(Box::new(super::moonshine::MoonshineTranscriber::load(gpu, dir)?)),
        other => Err(ModelError::UnknownArchitecture {
            arch: other.unwrap_or("(none)").to_string(),
            path,
            supported: "whisper, moonshine".into(),
        }),
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
