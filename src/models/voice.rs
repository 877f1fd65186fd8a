//! The model-agnostic text-to-speech interface. A voice family brings two halves:
//! - a `FrontEnd` (CPU only, `Send + Sync`): text in, synthesis units out. The server runs it on
//!   a blocking thread, so a slow phonemizer never holds the GPU worker;
//! - a `Voice` (owned by the GPU worker): one unit in, audio out through an `AudioSink`, in as
//!   many chunks as the family can stream, stopping early once the sink no longer wants audio.
//!
//! Families are registered in `models::registry::VOICE_FAMILIES`, by the `kind` a config's
//! `[[voices]]` entry names; nothing above `models/` names a family.

use std::sync::Arc;

use crate::config::VoiceSpec;
use crate::executor::Executor;
use crate::models::ModelError;
use crate::weights::hub::HubOptions;

/// One piece of speech a voice synthesizes in one call: a sentence, or part of a long one.
/// What it holds is the front end's choice; the voice of the same family reads it back.
#[derive(Debug, Clone, PartialEq)]
pub enum SpeechUnit {
    /// Text as the family's model reads it (normalized by its front end).
    Text(String),
    /// Symbol ids of the family's own alphabet (phonemes, say).
    Ids(Vec<i64>),
}

/// What a front end made of a request's `input`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeechUnits {
    /// None for input with nothing to voice (symbols, punctuation): the answer is an audio file
    /// with no samples, as a reader falls silent on them.
    pub units: Vec<SpeechUnit>,
    /// The input's size in the family's own unit (phonemes, characters): the usage's input tokens.
    pub input_tokens: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum FrontEndError {
    #[error("text front end: {0}")]
    Failed(String),
}

/// Text in, synthesis units out, on the CPU.
pub trait FrontEnd: Send + Sync {
    fn units(&self, input: &str) -> Result<SpeechUnits, FrontEndError>;
}

/// Per-request synthesis settings every family understands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SynthOptions {
    /// Speaking rate, 1.0 as the voice's own (OpenAI's `speed`, 0.25 to 4).
    pub speed: f64,
    /// Noise seed of this unit: a unit sounds the same wherever it falls in a request.
    pub seed: u64,
}

/// Where a voice puts its audio.
pub trait AudioSink {
    /// False once nobody listens (the client went away): a long synthesis stops at its next check.
    fn wants_more(&self) -> bool;
    /// The next samples of the unit, in order, at the voice's sample rate.
    fn audio(&mut self, samples: Vec<f32>);
}

/// What the worker and the server need to know of a loaded voice without holding it.
#[derive(Clone)]
pub struct VoiceInfo {
    pub sample_rate: u32,
    /// Whether `SynthOptions::speed` other than 1.0 is honoured (else a request asking for one is refused).
    pub variable_speed: bool,
    /// The language it speaks, where the voice says (an espeak-ng voice name such as "en-us").
    pub language: Option<String>,
    pub front_end: Arc<dyn FrontEnd>,
}

/// A loaded voice on the GPU.
pub trait Voice: Send {
    fn info(&self) -> VoiceInfo;
    /// Speaks one unit made by this voice's front end into `sink`.
    fn synthesize(&mut self, unit: &SpeechUnit, opts: SynthOptions, sink: &mut dyn AudioSink)
        -> Result<(), ModelError>;
}

/// A voice and where its weights came from (a path, a repo id, a package).
pub struct LoadedVoice {
    pub voice: Box<dyn Voice>,
    pub origin: String,
}

/// What a family's loader is given.
pub struct VoiceLoad<'a> {
    pub exec: Executor,
    pub spec: &'a VoiceSpec,
    pub hub: &'a HubOptions,
    /// The server's context limit, for families whose backbone is a text model.
    pub max_context: usize,
}

pub type VoiceLoader = fn(&VoiceLoad) -> Result<LoadedVoice, ModelError>;

/// A unit of the wrong variant for a family (a front end of another family made it).
pub fn wrong_unit(family: &str) -> ModelError {
    ModelError::Unsupported(format!("this speech unit for a {family} voice"))
}
