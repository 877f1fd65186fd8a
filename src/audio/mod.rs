//! Audio in and out: decode uploads (symphonia), resample to the model's rate
//! (rubato) and Whisper's log-mel features; encode synthesized audio for the
//! wire, chunk by chunk as sentences finish.

pub mod decode;
pub mod decode_opus;
pub mod encode;
pub mod matroska_check;
pub mod mel;
pub mod mp4_check;
pub mod pcm;
pub mod resample;

pub use decode::{decode, Pcm, SUPPORTED};

/// Sample rate every speech model here consumes.
pub const MODEL_RATE: u32 = 16_000;

#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    #[error("the audio file is empty (no samples)")]
    Empty,
    #[error("{0}")]
    Unsupported(String),
    #[error("the audio file is corrupt: {0}")]
    Corrupt(String),
    #[error("unsupported sample rate {0} Hz (accepted: {min}..={max} Hz)", min = decode::MIN_SAMPLE_RATE, max = decode::MAX_SAMPLE_RATE)]
    SampleRate(u32),
    #[error("resampling failed: {0}")]
    Resample(String),
    #[error("the audio is silent (every sample is zero)")]
    Silent,
}

/// Refuses digital silence before it reaches a speech model: Whisper "hears" words in it
/// (" you"), so the HTTP route and `gerbil transcribe` both answer it with this error.
pub fn check_not_silent(pcm: &[f32]) -> Result<(), AudioError> {
    if pcm.iter().all(|s| *s == 0.0) {
        return Err(AudioError::Silent);
    }
    Ok(())
}

/// Decodes an upload and converts it to 16 kHz mono.
pub fn load_16k(bytes: Vec<u8>, ext: Option<&str>) -> Result<Vec<f32>, AudioError> {
    let pcm = decode(bytes, ext)?;
    resample::resample(&pcm.samples, pcm.sample_rate, MODEL_RATE)
}
pub use encode::{AudioFormat, EncodeError, StreamEncoder};
