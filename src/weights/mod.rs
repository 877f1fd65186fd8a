//! Weights: reading checkpoints (safetensors, sharded), converting to f32, and
//! quantizing to INT4 groups.

pub mod int4;
