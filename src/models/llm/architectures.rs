//! The decoder-only text families, registered by the transformers `architectures` name their
//! config.json gives. Adding a text family is a folder under `models/` and a line here.

use std::path::Path;

use crate::models::decoder::{ArchLoader, TextArch};
use crate::models::{lfm2, llama, qwen3_5, read_json, ModelError};

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
