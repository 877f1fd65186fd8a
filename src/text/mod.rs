//! Text: tokenizer wrapper and streaming detokenization.

pub mod tokenizer;

pub use tokenizer::{TextTokenizer, TokenizerError};
