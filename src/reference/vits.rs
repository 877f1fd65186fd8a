//! CPU references of the VITS-specific layers (Piper voices): the text encoder's self-attention
//! with windowed relative positions. It lives with the voice's CPU modules, which run it too.

pub use crate::models::piper::cpu_ops::rel_attention;
