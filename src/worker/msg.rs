//! What crosses the channel between the HTTP handlers and the GPU worker.
//! Requests are already validated (`Valid*`): the worker never sees raw JSON.
//! Every sequence carries its own event channel; dropping the receiver
//! cancels the sequence.

use std::time::Instant;

use tokio::sync::mpsc::UnboundedSender;

use crate::models::voice::SpeechUnit;
use crate::text::sampling::SamplingParams;

/// One sequence to generate: a prompt and how to continue it.
#[derive(Debug)]
pub struct ValidSequence {
    pub prompt: Vec<u32>,
    pub sampling: SamplingParams,
    /// Tokens to generate at most (0: only the prompt is processed).
    pub max_tokens: usize,
    /// Top alternatives to report per generated token; None = no logprobs.
    pub logprobs: Option<usize>,
    /// Also report the logprob of every prompt token (echo + logprobs).
    pub prompt_logprobs: bool,
    /// Keep going past end-of-sequence tokens (benchmarks, tests).
    pub ignore_eos: bool,
    /// May start from a prefix another sequence left in the KV cache (the prefix cache).
    pub cache_prompt: bool,
    pub events: UnboundedSender<SeqEvent>,
    /// Set by the HTTP side when a stop string ended the sequence, before it drops the event
    /// receiver: the worker then counts the release as a stop, not as a client that went away.
    pub stopped: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The grammar the output must follow (structured output), at its start.
    pub constraint: Option<crate::text::grammar::Constraint>,
}

/// A request for one model: its sequences are queued and admitted together.
#[derive(Debug)]
pub struct ValidGenerate {
    /// Index into the worker's model list.
    pub model: usize,
    pub sequences: Vec<ValidSequence>,
    pub received: Instant,
}

/// One audio clip to transcribe (already decoded to 16 kHz mono at the edge).
pub struct ValidTranscribe {
    /// Index into the worker's speech model list.
    pub model: usize,
    pub audio: Vec<f32>,
    pub opts: crate::models::speech::TranscribeOptions,
    pub events: UnboundedSender<AudioEvent>,
    pub received: Instant,
}

impl std::fmt::Debug for ValidTranscribe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ValidTranscribe").field("model", &self.model).field("samples", &self.audio.len()).finish()
    }
}

/// What an audio job reports: its segments as they finish, then the whole
/// transcript (or a failure). Separate from the text events on purpose.
#[derive(Debug)]
pub enum AudioEvent {
    Segment(crate::models::speech::Segment),
    Done(crate::models::speech::Transcript),
    Failed(WorkerError),
}

#[derive(Debug)]
pub enum WorkerMsg {
    Generate(ValidGenerate),
    Transcribe(ValidTranscribe),
    Speech(ValidSpeech),
    Embed(ValidEmbed),
}

/// Inputs for one embedding model, tokenized at the edge (each within the model's limit); the
/// vectors come back in input order, full width (the edge truncates to `dimensions`).
#[derive(Debug)]
pub struct ValidEmbed {
    /// Index into the worker's embedding model list.
    pub model: usize,
    pub inputs: Vec<Vec<u32>>,
    pub reply: tokio::sync::oneshot::Sender<Result<Vec<Vec<f32>>, WorkerError>>,
    pub received: Instant,
}

/// Text to speech, already cut into units by the voice's front end at the edge, synthesized in
/// order and streamed back as each unit's audio comes.
#[derive(Debug)]
pub struct ValidSpeech {
    /// Index into the worker's voice list.
    pub voice: usize,
    pub units: Vec<SpeechUnit>,
    /// OpenAI's `speed` (1.0 unless the voice honours others).
    pub speed: f64,
    pub events: UnboundedSender<SpeechEvent>,
    pub received: Instant,
}

/// What a speech job reports (its own type: text and audio share no event enum).
#[derive(Debug)]
pub enum SpeechEvent {
    /// The next samples of unit `sentence`, in [-1, 1] at the voice's sample rate (a unit's
    /// audio may come in several chunks).
    Audio {
        sentence: usize,
        samples: Vec<f32>,
    },
    Done {
        sentences: usize,
        samples: usize,
    },
    Failed(WorkerError),
}

/// Logprob of one token and the most likely alternatives at its position.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenLogprob {
    pub logprob: f32,
    /// (token id, logprob), best first.
    pub top: Vec<(u32, f32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    /// An end-of-sequence token (not reported as a token).
    Eos,
    /// max_tokens, or the context is full.
    Length,
    /// The output's grammar (`response_format`) allows nothing more.
    Complete,
}

#[derive(Debug)]
pub enum SeqEvent {
    /// Sent once at admission: how many prompt tokens came from the prefix cache (not prefilled).
    PromptCached {
        tokens: usize,
    },
    /// Logprobs of the prompt tokens, the first one having none.
    PromptLogprobs(Vec<Option<TokenLogprob>>),
    Token {
        id: u32,
        logprob: Option<TokenLogprob>,
    },
    Finished {
        reason: FinishReason,
    },
    Failed(WorkerError),
}

/// Failures inside the worker, reported on the sequence's channel.
#[derive(Debug, Clone, thiserror::Error)]
pub enum WorkerError {
    #[error("the sequence needs {need} tokens of context but the model holds {max}")]
    ContextFull { need: usize, max: usize },
    #[error("inference failed: {0}")]
    Engine(String),
    /// The GPU went away under the request; the worker opens it again and reloads the models.
    #[error("the GPU device was lost ({0}); the server is reloading its models, retry shortly")]
    DeviceLost(String),
}

impl WorkerError {
    /// `self`, or DeviceLost where the device is gone (a failing readback, then, is the loss's doing,
    /// not the request's).
    pub fn or_device_lost(self, health: &crate::gpu::DeviceHealth) -> WorkerError {
        match (self, health.reason()) {
            (WorkerError::Engine(_), Some(why)) => WorkerError::DeviceLost(why),
            (e, _) => e,
        }
    }
}
