//! Text to speech front end: sentence splitting, espeak-ng phonemization and Piper's
//! phoneme-id mapping.

pub mod espeak;
pub mod phonemes;
pub mod sentences;
