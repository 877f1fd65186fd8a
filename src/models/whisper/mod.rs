//! Whisper (transformers `whisper`, openai/whisper-* layout): log-mel front
//! end (`audio::mel`), GPU encoder, KV-cached decoder, and the transcription
//! loop (timestamp tokens, 30 s windows with timestamp-driven seeking,
//! initial prompt, temperature fallback).

pub mod align;
pub mod config;
pub mod model;
pub mod tokens;
pub mod transcribe;
pub mod weights;

pub use config::WhisperConfig;
pub use model::{Decoder, Encoded, Whisper};
pub use transcribe::WhisperTranscriber;
