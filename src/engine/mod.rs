//! A loaded text model and its sequences: the API the CLI and the GPU worker use.

pub mod session;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::gpu::Gpu;
use crate::models::llama::config::{RawConfig, ARCHITECTURES};
use crate::models::llama::{LlamaConfig, LlamaWeights};
use crate::models::{read_json, ModelError};
use crate::text::TextTokenizer;
use crate::weights::{Checkpoint, WeightFormat};

pub use session::{Session, SessionOptions};

#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub format: WeightFormat,
    /// Upper bound on the context (the model's own limit applies too).
    pub max_context: usize,
    /// Tokens per prefill step; longer prompts are prefilled in chunks.
    pub prefill_chunk: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { format: WeightFormat::Int4 { group: 32 }, max_context: 4096, prefill_chunk: 256 }
    }
}

pub struct TextModel {
    pub gpu: Arc<Gpu>,
    pub cfg: LlamaConfig,
    pub weights: LlamaWeights,
    pub tokenizer: Option<TextTokenizer>,
    pub dir: PathBuf,
    pub opts: LoadOptions,
}

impl TextModel {
    /// Loads a transformers-layout folder (config.json, *.safetensors, tokenizer.json).
    pub fn load(gpu: &Arc<Gpu>, dir: &Path, opts: LoadOptions) -> Result<Self, ModelError> {
        let config_path = dir.join("config.json");
        let raw: RawConfig = read_json(&config_path)?;
        let arch = raw.architectures.first().cloned().unwrap_or_default();
        let family = ARCHITECTURES.iter().find(|(a, _)| *a == arch).map(|(_, f)| *f).ok_or_else(|| {
            ModelError::UnknownArchitecture {
                arch: arch.clone(),
                path: config_path.clone(),
                supported: ARCHITECTURES.iter().map(|(a, _)| *a).collect::<Vec<_>>().join(", "),
            }
        })?;
        let cfg = LlamaConfig::from_raw(&raw, family).map_err(|msg| ModelError::Config { path: config_path.clone(), msg })?;
        let ck = Checkpoint::open(dir)?;
        let weights = LlamaWeights::load(gpu, &ck, &cfg, opts.format)?;
        let tokenizer = if dir.join("tokenizer.json").exists() {
            Some(TextTokenizer::from_dir(dir, &cfg.eos)?)
        } else {
            None
        };
        Ok(TextModel { gpu: gpu.clone(), cfg, weights, tokenizer, dir: dir.to_path_buf(), opts })
    }

    /// The context length sessions get: the model's and the configured limit.
    pub fn max_context(&self) -> usize {
        self.cfg.max_pos.min(self.opts.max_context)
    }
}
