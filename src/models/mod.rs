//! Model families. Each folder mirrors one transformers architecture family:
//! its config.json names, its weight names, and a graph builder.

pub mod dac;
pub mod decoder;
pub mod lfm2;
pub mod llm;
pub mod llama;
pub mod moonshine;
pub mod outetts;
pub mod piper;
pub mod qwen3_5;
pub mod rope;
pub mod speech;
pub mod whisper;

pub use decoder::{ArchLoader, TextArch};

/// transformers `architectures` names of the decoder-only text families, and their loaders.
pub const TEXT_ARCHITECTURES: &[(&str, ArchLoader)] = &[
    ("LlamaForCausalLM", llama::arch::load),
    ("MistralForCausalLM", llama::arch::load),
    ("Qwen2ForCausalLM", llama::arch::load),
    ("Qwen3ForCausalLM", llama::arch::load),
    ("Lfm2ForCausalLM", lfm2::arch::load),
    ("Qwen3_5ForCausalLM", qwen3_5::arch::load),
    ("Qwen3_5ForConditionalGeneration", qwen3_5::arch::load),
];

#[derive(serde::Deserialize)]
struct ArchitecturesOnly {
    #[serde(default)]
    architectures: Vec<String>,
}

/// Loads the text family a config.json names.
pub fn load_text_arch(
    gpu: &crate::gpu::Gpu,
    config_path: &Path,
    src: &dyn crate::weights::TensorSource,
    format: crate::weights::WeightFormat,
) -> Result<Box<dyn TextArch>, ModelError> {
    let names: ArchitecturesOnly = read_json(config_path)?;
    let arch = names.architectures.first().cloned().unwrap_or_default();
    let loader = TEXT_ARCHITECTURES.iter().find(|(a, _)| *a == arch).map(|(_, l)| *l).ok_or_else(|| {
        ModelError::UnknownArchitecture {
            arch: arch.clone(),
            path: config_path.to_path_buf(),
            supported: TEXT_ARCHITECTURES.iter().map(|(a, _)| *a).collect::<Vec<_>>().join(", "),
        }
    })?;
    loader(gpu, config_path, src, format)
}

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
    #[error("{0} is not supported")]
    Unsupported(String),
    #[error("the sequence would reach {need} tokens but the context holds {max}")]
    ContextFull { need: usize, max: usize },
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
