//! Encoding synthesized audio for the wire, chunk by chunk as sentences finish.

pub mod encode;

pub use encode::{AudioFormat, StreamEncoder};
