//! POST /v1/audio/speech wire types (OpenAI's), and the SSE events of stream_format "sse".

use serde::{Deserialize, Serialize};

/// `voice` is a name, or (newer SDKs) an object `{"id": name}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum VoiceParam {
    Name(String),
    Object { id: String },
}

impl VoiceParam {
    pub fn name(&self) -> &str {
        match self {
            VoiceParam::Name(n) | VoiceParam::Object { id: n } => n,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct SpeechRequest {
    pub model: String,
    pub input: String,
    pub voice: VoiceParam,
    /// Accepted; Piper voices have no way to follow instructions.
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default)]
    pub response_format: Option<String>,
    #[serde(default)]
    pub speed: Option<f64>,
    #[serde(default)]
    pub stream_format: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SpeechUsage {
    pub input_tokens: usize,
    pub output_tokens: usize,
    pub total_tokens: usize,
}

/// One SSE event: `speech.audio.delta` (base64 audio) or `speech.audio.done` (usage).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type")]
pub enum SpeechStreamEvent {
    #[serde(rename = "speech.audio.delta")]
    Delta { audio: String },
    #[serde(rename = "speech.audio.done")]
    Done { usage: SpeechUsage },
}

#[derive(Debug, Clone, Serialize)]
pub struct VoiceObject {
    pub id: String,
    pub object: &'static str,
    pub sample_rate: u32,
    pub language: String,
    /// `response_format` values this server encodes.
    pub formats: Vec<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
pub struct VoiceList {
    pub object: &'static str,
    pub data: Vec<VoiceObject>,
}
