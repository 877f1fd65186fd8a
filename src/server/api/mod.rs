//! OpenAI wire types: request bodies as clients send them (validated later in
//! `server::validate`), and responses / stream chunks exactly in OpenAI's shape.

pub mod chat;
pub mod common;
pub mod completions;
pub mod embeddings;
pub mod models;
pub mod speech;

pub use common::{StreamOptions, Usage};
