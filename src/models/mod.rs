//! Model families. Each folder mirrors one transformers architecture family:
//! its config.json names, its weight names, and a graph builder.

pub mod llama;
pub mod piper;
pub mod rope;

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{path}: {msg}")]
    Config { path: PathBuf, msg: String },
    #[error("unsupported architecture '{arch}' in {path} (supported: {supported})")]
    UnknownArchitecture { arch: String, path: PathBuf, supported: String },
    #[error(transparent)]
    Weights(#[from] crate::weights::WeightError),
    #[error(transparent)]
    Plan(#[from] crate::graph::executor::PlanError),
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error(transparent)]
    Tokenizer(#[from] crate::text::TokenizerError),
    #[error("the sequence would reach {need} tokens but the context holds {max}")]
    ContextFull { need: usize, max: usize },
}

/// Reads and parses a JSON file into `T`, naming the file on failure.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ModelError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| ModelError::Config { path: path.into(), msg: e.to_string() })?;
    serde_json::from_str(&text).map_err(|e| ModelError::Config { path: path.into(), msg: e.to_string() })
}
