//! Moonshine (transformers `moonshine`, UsefulSensors/moonshine-* layout):
//! a conv stem on raw 16 kHz samples, a rotary encoder, a KV-cached decoder
//! with cross-attention over K/V computed once per clip, and the
//! transcription loop over chunks cut at silences (`segment`).

pub mod config;
pub mod model;
pub mod segment;
pub mod transcribe;
pub mod weights;

pub use config::MoonshineConfig;
pub use model::{Decoder, Encoded, Moonshine};
pub use transcribe::MoonshineTranscriber;
