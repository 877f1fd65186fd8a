//! BERT-style encoders as embedding models (bge, all-MiniLM, e5 and other `BertModel` checkpoints
//! with sentence-transformers files): word + position + token-type embeddings, post-norm layers of
//! bidirectional attention and a GELU MLP, the last layer's rows pooled on the CPU.

pub mod config;
pub mod model;

pub use model::{load, BertEmbedder};
