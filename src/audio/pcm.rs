//! Decoded audio and the limits every decoder holds it to (decode.rs for symphonia's formats,
//! decode_opus.rs for Opus), apart from both so neither decoder imports the other's file for them.

use super::AudioError;

/// Longest audio accepted, in seconds. Decoding holds it all in memory (f32), and compressed
/// formats can ask for far more than their bytes suggest (an empty Opus packet conceals 120 ms,
/// a FLAC constant subframe is a few bytes).
pub const MAX_SECONDS: usize = 2 * 3600;

pub(super) fn too_long() -> AudioError {
    AudioError::Unsupported(format!(
        "the audio is longer than {} hours, the most this server decodes",
        MAX_SECONDS / 3600
    ))
}

/// Mono samples at their original rate.
#[derive(Debug, Clone)]
pub struct Pcm {
    pub samples: Vec<f32>,
    pub sample_rate: u32,
}
