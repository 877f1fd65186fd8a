//! A loaded text model and its sequences: the API the CLI and the GPU worker use.

pub mod session;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::gpu::Gpu;
use crate::models::llama::config::{RawConfig, ARCHITECTURES};
use crate::models::llama::gguf::GgufSource;
use crate::models::llama::{LlamaConfig, LlamaWeights};
use crate::models::{read_json, ModelError};
use crate::passes::FusionConfig;
use crate::text::TextTokenizer;
use crate::weights::{Checkpoint, TensorSource, WeightFormat};

pub use session::{Session, SessionOptions};

#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub format: WeightFormat,
    /// Upper bound on the context (the model's own limit applies too).
    pub max_context: usize,
    /// Tokens per prefill step; longer prompts are prefilled in chunks.
    pub prefill_chunk: usize,
    /// Decode fusion passes (they apply to INT4 weights).
    pub fusion: FusionConfig,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: WeightFormat::Int4 { group: 32 },
            max_context: 4096,
            prefill_chunk: 256,
            fusion: FusionConfig::default(),
        }
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
        let cfg = read_config(&dir.join("config.json"))?;
        let ck = Checkpoint::open(dir)?;
        let tokenizer =
            if dir.join("tokenizer.json").exists() { Some(TextTokenizer::from_dir(dir, &cfg.eos)?) } else { None };
        Self::from_source(gpu, cfg, &ck, tokenizer, dir, opts)
    }

    /// Loads a GGUF file (llama / qwen2 / qwen3), tokenizer from its metadata.
    pub fn load_gguf(gpu: &Arc<Gpu>, path: &Path, opts: LoadOptions) -> Result<Self, ModelError> {
        let src = GgufSource::open(path)?;
        let mut cfg = src.config()?;
        let info = src
            .file
            .tokenizer()
            .map_err(|e| crate::weights::WeightError::Format { path: path.into(), msg: e.to_string() })?;
        cfg.eos = info.eos.clone();
        cfg.bos = info.bos;
        let tok = TextTokenizer::from_tokenizer(info.tokenizer, info.eos, info.bos, info.chat_template);
        Self::from_source(gpu, cfg, &src, Some(tok), path, opts)
    }

    /// A GGUF file or a transformers folder, by what `path` is.
    pub fn load_path(gpu: &Arc<Gpu>, path: &Path, opts: LoadOptions) -> Result<Self, ModelError> {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")) {
            Self::load_gguf(gpu, path, opts)
        } else {
            Self::load(gpu, path, opts)
        }
    }

    /// A model from any tensor source (checkpoint, GGUF, random weights).
    pub fn from_source(
        gpu: &Arc<Gpu>,
        cfg: LlamaConfig,
        src: &dyn TensorSource,
        tokenizer: Option<TextTokenizer>,
        dir: &Path,
        opts: LoadOptions,
    ) -> Result<Self, ModelError> {
        let weights = LlamaWeights::load(gpu, src, &cfg, opts.format)?;
        Ok(TextModel { gpu: gpu.clone(), cfg, weights, tokenizer, dir: dir.to_path_buf(), opts })
    }

    /// The context length sessions get: the model's and the configured limit.
    pub fn max_context(&self) -> usize {
        self.cfg.max_pos.min(self.opts.max_context)
    }
}

/// Parses a Llama-family config.json.
pub fn read_config(config_path: &Path) -> Result<LlamaConfig, ModelError> {
    let raw: RawConfig = read_json(config_path)?;
    let arch = raw.architectures.first().cloned().unwrap_or_default();
    let family = ARCHITECTURES.iter().find(|(a, _)| *a == arch).map(|(_, f)| *f).ok_or_else(|| {
        ModelError::UnknownArchitecture {
            arch: arch.clone(),
            path: config_path.to_path_buf(),
            supported: ARCHITECTURES.iter().map(|(a, _)| *a).collect::<Vec<_>>().join(", "),
        }
    })?;
    LlamaConfig::from_raw(&raw, family).map_err(|msg| ModelError::Config { path: config_path.to_path_buf(), msg })
}
