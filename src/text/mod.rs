//! Text: tokenizer wrapper, streaming detokenization, chat templates,
//! sampling and stop strings.

pub mod chat;
pub mod sampling;
pub mod stop;
pub mod subtitles;
pub mod token_bytes;
pub mod tokenizer;
pub mod wer;

pub use tokenizer::{TextTokenizer, TokenizerError};
