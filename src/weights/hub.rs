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
    /// gerbil's own cache (~/.cache/gerbil): wheels from PyPI under pypi/, models read from
    /// other formats under converted/, espeak-ng's data.
    pub cache_dir: PathBuf,
    /// PyPI's simple index (PIP_INDEX_URL where set).
    pub pypi_index: String,
}

impl HubOptions {
    pub fn pypi_cache(&self) -> PathBuf {
        self.cache_dir.join("pypi")
    }
}

const OPTIONAL: &[&str] = &["tokenizer.json", "tokenizer_config.json", "generation_config.json"];

fn api(opts: &HubOptions) -> Result<hf_hub::api::sync::Api, String> {
    hf_hub::api::sync::ApiBuilder::from_env()
        .with_progress(opts.progress)
        .with_token(opts.token.clone())
        .build()
        .map_err(|e| e.to_string())
}

/// `required` files of `repo_id` (then whichever of `optional` it has) from the hub, or from the
/// HF cache alone when offline. Returns the local paths of `required`, in order.
pub fn fetch_files(
    repo_id: &str,
    required: &[&str],
    optional: &[&str],
    opts: &HubOptions,
) -> Result<Vec<PathBuf>, String> {
    if opts.offline {
        let repo = hf_hub::Cache::from_env().model(repo_id.to_string());
        return required
            .iter()
            .map(|f| {
                repo.get(f).ok_or_else(|| format!("HF_HUB_OFFLINE is set and {repo_id}/{f} is not in the HF cache"))
            })
            .collect();
    }
    let repo = api(opts)?.model(repo_id.to_string());
    let paths = required.iter().map(|f| repo.get(f).map_err(|e| format!("{repo_id}/{f}: {e}"))).collect();
    for f in optional {
        let _ = repo.get(f);
    }
    paths
}

/// A transformers repo from the hub: config.json, the optional files, the (sharded) safetensors.
/// Returns the snapshot folder.
pub(super) fn fetch(repo_id: &str, opts: &HubOptions) -> Result<PathBuf, String> {
    let repo = api(opts)?.model(repo_id.to_string());
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

pub(super) fn from_cache(repo_id: &str) -> Result<PathBuf, WeightError> {
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
