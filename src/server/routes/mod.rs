//! One file per endpoint.

pub mod chat_completions;
pub mod completions;
pub mod embeddings;
pub mod health;
pub mod metrics;
pub mod models;
pub mod openapi;
pub mod ready;
pub mod speech;
pub mod tokenize;
pub mod transcriptions;
pub mod voices;
