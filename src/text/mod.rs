//! Text: tokenizer wrapper, streaming detokenization, chat templates,
//! sampling, structured-output grammars and stop strings.

pub mod chat;
pub mod grammar;
pub mod reasoning;
pub mod sampling;
pub mod stop;
pub mod subtitles;
pub mod token_bytes;
pub mod tokenizer;
pub mod tools;
pub mod transcript;
pub mod wer;

pub use tokenizer::{TextTokenizer, TokenizerError};
