//! A loaded text model and its sequences: the API the CLI and the GPU worker use.

pub mod architectures;
pub mod batch;
pub mod embed;
pub mod session;

use std::path::{Path, PathBuf};

use crate::executor::Executor;
use crate::gpu::KvDtype;
use crate::models::llama::gguf::GgufSource;
use crate::models::llama::LlamaArch;
use crate::models::{ModelError, TextArch};
use crate::passes::FusionConfig;
use crate::text::TextTokenizer;
use crate::weights::{Checkpoint, TensorSource, WeightFormat};
use architectures::load_text_arch;

pub use batch::{BatchedDecoder, PoolUsage};
pub use session::{Session, SessionOptions, SHORT_PREFILL_ROWS};

#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub format: WeightFormat,
    /// Upper bound on the context (the model's own limit applies too).
    pub max_context: usize,
    /// Tokens per prefill step; longer prompts are prefilled in chunks.
    pub prefill_chunk: usize,
    /// Decode fusion passes (they apply to INT4 weights).
    pub fusion: FusionConfig,
    /// The KV caches' values (the server's `kv_dtype`).
    pub kv_dtype: KvDtype,
    /// The batched decoder's KV caches as a paged pool (None: a region of max_context positions per
    /// slot). Single sequences (`Session`) keep one contiguous cache.
    pub kv_pool: Option<KvPoolOptions>,
}

/// A paged KV pool: room for `size` over all sequences (rounded up to whole blocks, at least one
/// sequence of the whole context, at most every slot's whole context), in blocks of `block_tokens`
/// (a power of two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvPoolOptions {
    pub size: KvPoolSize,
    pub block_tokens: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvPoolSize {
    /// Positions.
    Tokens(usize),
    /// Device memory of every layer's K and V (`TextArch::kv_bytes_per_position` each).
    Bytes(u64),
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: WeightFormat::Int4 { group: 32 },
            max_context: 4096,
            prefill_chunk: 1024,
            fusion: FusionConfig::default(),
            kv_dtype: KvDtype::F32,
            kv_pool: None,
        }
    }
}

pub struct TextModel {
    /// Runs the model's plans (and owns the device its weights live on).
    pub exec: Executor,
    /// The family's weights and graph builder.
    pub arch: Box<dyn TextArch>,
    pub tokenizer: Option<TextTokenizer>,
    pub dir: PathBuf,
    pub opts: LoadOptions,
}

impl TextModel {
    /// Loads a transformers-layout folder (config.json, *.safetensors, tokenizer.json).
    pub fn load(exec: &Executor, dir: &Path, opts: LoadOptions) -> Result<Self, ModelError> {
        check_options(&opts)?;
        let ck = Checkpoint::open(dir)?;
        let arch = load_text_arch(exec.gpu(), &dir.join("config.json"), &ck, opts.format)?;
        ck.check_all_layers_read()?;
        let tokenizer =
            if dir.join("tokenizer.json").exists() { Some(TextTokenizer::from_dir(dir, arch.eos())?) } else { None };
        if let Some(t) = &tokenizer {
            check_vocab(t, arch.vocab())?;
        }
        Ok(Self::from_arch(exec, arch, tokenizer, dir, opts))
    }

    /// Loads a GGUF file (llama / qwen2 / qwen3), tokenizer from its metadata.
    pub fn load_gguf(exec: &Executor, path: &Path, opts: LoadOptions) -> Result<Self, ModelError> {
        check_options(&opts)?;
        let src = GgufSource::open(path)?;
        let mut cfg = src.config()?;
        let info = src
            .file
            .tokenizer()
            .map_err(|e| crate::weights::WeightError::Format { path: path.into(), msg: e.to_string() })?;
        cfg.eos = info.eos.clone();
        cfg.bos = info.bos;
        let tok = TextTokenizer::from_tokenizer(info.tokenizer, info.eos, info.bos, info.chat_template);
        let arch = Box::new(LlamaArch::new(exec.gpu(), cfg, &src, opts.format)?);
        check_vocab(&tok, arch.vocab())?;
        Ok(Self::from_arch(exec, arch, Some(tok), path, opts))
    }

    /// A GGUF file or a transformers folder, by what `path` is.
    pub fn load_path(exec: &Executor, path: &Path, opts: LoadOptions) -> Result<Self, ModelError> {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")) {
            Self::load_gguf(exec, path, opts)
        } else {
            Self::load(exec, path, opts)
        }
    }

    /// The family a config.json names, with weights from any tensor source (checkpoint, random weights).
    pub fn from_source(
        exec: &Executor,
        config_path: &Path,
        src: &dyn TensorSource,
        tokenizer: Option<TextTokenizer>,
        opts: LoadOptions,
    ) -> Result<Self, ModelError> {
        let arch = load_text_arch(exec.gpu(), config_path, src, opts.format)?;
        Ok(Self::from_arch(exec, arch, tokenizer, config_path.parent().unwrap_or(Path::new(".")), opts))
    }

    pub fn from_arch(
        exec: &Executor,
        arch: Box<dyn TextArch>,
        tokenizer: Option<TextTokenizer>,
        dir: &Path,
        opts: LoadOptions,
    ) -> Self {
        TextModel { exec: exec.clone(), arch, tokenizer, dir: dir.to_path_buf(), opts }
    }

    /// The context length sessions get: the model's and the configured limit.
    pub fn max_context(&self) -> usize {
        self.arch.max_positions().min(self.opts.max_context)
    }
}

/// A context of 0 tokens leaves nothing to bind on the GPU (wgpu then refuses mid-load).
fn check_options(opts: &LoadOptions) -> Result<(), ModelError> {
    if opts.max_context == 0 {
        return Err(ModelError::Unsupported("max_context must be at least 1".into()));
    }
    Ok(())
}

/// A tokenizer with ids past the embedding would send them to the GPU as out-of-range rows
/// (nonsense, not an error), so a mismatched tokenizer fails the load.
fn check_vocab(tok: &TextTokenizer, vocab: usize) -> Result<(), ModelError> {
    let n = tok.vocab_size();
    if n > vocab {
        return Err(ModelError::Unsupported(format!(
            "the tokenizer has {n} tokens but the model's vocabulary holds {vocab}: a tokenizer of another model?"
        )));
    }
    Ok(())
}
