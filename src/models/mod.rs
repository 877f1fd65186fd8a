//! Model families behind four interfaces the worker sees: a text model (`llm`, over the
//! decoder-only families' `decoder::TextArch`), an embedding model (`embedding::EmbeddingModel`), a
//! transcriber (`speech::SpeechModel`) and a voice (`voice::Voice`). Each family lives in one folder, mirroring its reference implementation's
//! config and weight names, and is registered in one place: `registry.rs`.

pub mod bert;
pub mod dac;
pub mod decoder;
pub mod embedding;
pub mod lfm2;
pub mod llama;
pub mod llm;
pub mod moonshine;
pub mod outetts;
pub mod piper;
pub mod qwen3_5;
pub mod registry;
pub mod rope;
pub mod speech;
pub mod speech_runner;
pub mod text_base;
pub mod text_config;
pub mod voice;
pub mod whisper;

pub use decoder::{ArchLoader, TextArch};

use std::path::{Path, PathBuf};

pub use registry::{load_transcriber, load_voice};

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{path}: {msg}")]
    Config { path: PathBuf, msg: String },
    #[error("unsupported architecture '{arch}' in {path} (supported: {supported})")]
    UnknownArchitecture { arch: String, path: PathBuf, supported: String },
    #[error(transparent)]
    Weights(#[from] crate::weights::WeightError),
    #[error(transparent)]
    Plan(#[from] crate::graph::plan::PlanError),
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error(transparent)]
    Tokenizer(#[from] crate::text::TokenizerError),
    #[error("{0} is not supported")]
    Unsupported(String),
    #[error("the sequence would reach {need} tokens but the context holds {max}")]
    ContextFull { need: usize, max: usize },
    #[error("the KV pool has no room: {need} more blocks wanted, {free} free (every other block is held by a running sequence)")]
    KvPoolFull { need: usize, free: usize },
    #[error("a grid barrier waited out its polls (the GPU did not hold the kernel's whole grid at once), so the decode steps since the last read are wrong; the session decodes without grid barriers from now on: reset it and decode again")]
    GridBarrierTimeout,
}

/// Reads and parses a JSON file into `T`, naming the file on failure.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ModelError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| ModelError::Config { path: path.into(), msg: e.to_string() })?;
    serde_json::from_str(&text).map_err(|e| ModelError::Config { path: path.into(), msg: e.to_string() })
}

/// The numbers every text config carries that, out of range, would not fail anywhere but give
/// NaN logits (rope_theta <= 0, a negative epsilon) or a context of nothing (max_position 0, which
/// the GPU then refuses mid-load). Checked when the config is read, so the model fails its own load.
pub fn check_text_numbers(max_position: usize, rope_theta: f64, eps: f64, vocab: usize) -> Result<(), String> {
    if max_position == 0 {
        return Err("max_position_embeddings (the context length) must be positive".into());
    }
    if !(rope_theta.is_finite() && rope_theta > 0.0) {
        return Err(format!("rope_theta must be a positive number, got {rope_theta}"));
    }
    if !(eps.is_finite() && eps >= 0.0) {
        return Err(format!("the norm epsilon must be a non-negative number, got {eps}"));
    }
    if vocab == 0 {
        return Err("vocab_size must be positive".into());
    }
    Ok(())
}
