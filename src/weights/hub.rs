//! Resolving a `--model` argument: a local folder, or a Hugging Face repo id
//! fetched through hf-hub into the standard cache (HF_HOME), offline-capable.

use std::path::{Path, PathBuf};

use hf_hub::{Repo, RepoType};

use super::hub_spec::{pick_gguf, HubSpec, Target};
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

/// `required` files of the repo `spec` names, at its revision (then whichever of `optional` it has),
/// from the hub, or from the HF cache alone when offline. Returns the local paths of `required`, in
/// order.
pub fn fetch_files(
    spec: &HubSpec,
    required: &[&str],
    optional: &[&str],
    opts: &HubOptions,
) -> Result<Vec<PathBuf>, String> {
    let repo = Repo::with_revision(spec.repo.clone(), RepoType::Model, spec.revision().into());
    let name = &spec.repo;
    if opts.offline {
        let cached = hf_hub::Cache::from_env().repo(repo);
        return required
            .iter()
            .map(|f| {
                cached.get(f).ok_or_else(|| format!("HF_HUB_OFFLINE is set and {name}/{f} is not in the HF cache"))
            })
            .collect();
    }
    let repo = api(opts)?.repo(repo);
    let paths = required.iter().map(|f| repo.get(f).map_err(|e| format!("{name}/{f}: {e}"))).collect();
    for f in optional {
        let _ = repo.get(f);
    }
    paths
}

/// A text model named on the hub (`HubSpec`): the GGUF file it names or picks by quantization, or
/// the snapshot folder of a transformers checkpoint (config.json, the optional files, the (sharded)
/// safetensors); a repo without one gives its default GGUF (`hub_spec::pick_gguf`).
pub(super) fn fetch(spec: &HubSpec, opts: &HubOptions) -> Result<PathBuf, String> {
    let repo = api(opts)?.repo(Repo::with_revision(spec.repo.clone(), RepoType::Model, spec.revision().into()));
    let get = |f: &str| repo.get(f).map_err(|e| format!("{}/{f}: {e}", spec.repo));
    let files = || -> Result<Vec<String>, String> {
        let info = repo.info().map_err(|e| format!("listing {}: {e}", spec.repo))?;
        Ok(info.siblings.into_iter().map(|s| s.rfilename).collect())
    };
    match &spec.target {
        Target::File(f) => get(f),
        Target::Quant(q) => get(&pick_gguf(&spec.repo, &files()?, Some(q))?),
        Target::Repo => {
            let config = match repo.get("config.json") {
                Ok(config) => config,
                // The hub has no config.json there: a GGUF repo's default quantization, where it has
                // GGUFs. (Where the hub did not answer, asking again would only wait again.)
                Err(e) => {
                    if !not_found(&e) {
                        return Err(e.to_string());
                    }
                    let files = files().map_err(|_| e.to_string())?;
                    if files.iter().any(|f| f == "config.json") {
                        return Err(e.to_string());
                    }
                    return get(&pick_gguf(&spec.repo, &files, None)?);
                }
            };
            for f in OPTIONAL {
                let _ = repo.get(f);
            }
            match repo.get("model.safetensors.index.json") {
                Ok(index) => {
                    for shard in shard_names(&index).map_err(|e| e.to_string())? {
                        get(&shard)?;
                    }
                }
                Err(_) => {
                    get("model.safetensors")?;
                }
            }
            Ok(config.parent().expect("a file has a parent").to_path_buf())
        }
    }
}

/// Whether the hub answered that the file does not exist (not: could not be reached).
fn not_found(e: &hf_hub::api::sync::ApiError) -> bool {
    matches!(e, hf_hub::api::sync::ApiError::RequestError(r) if matches!(**r, ureq::Error::Status(404, _)))
}

/// `fetch` from the Hugging Face cache alone (HF_HUB_OFFLINE): what an earlier fetch of the same
/// name and revision stored.
pub(super) fn from_cache(spec: &HubSpec) -> Result<PathBuf, WeightError> {
    let cache = hf_hub::Cache::from_env();
    let repo = Repo::with_revision(spec.repo.clone(), RepoType::Model, spec.revision().into());
    let cached = cache.repo(repo.clone());
    let found = match &spec.target {
        Target::File(f) => cached.get(f).ok_or_else(|| format!("{f} is not")),
        Target::Quant(q) => pick_gguf(&spec.repo, &cached_files(&cache, &repo), Some(q))
            .and_then(|f| cached.get(&f).ok_or_else(|| format!("{f} is not"))),
        Target::Repo => match cached.get("config.json") {
            Some(c) => Ok(c.parent().expect("a file has a parent").to_path_buf()),
            None => pick_gguf(&spec.repo, &cached_files(&cache, &repo), None)
                .and_then(|f| cached.get(&f).ok_or_else(|| format!("{f} is not"))),
        },
    };
    found.map_err(|why| {
        WeightError::Hub(format!(
            "HF_HUB_OFFLINE is set and '{}' (revision {}) is not in the Hugging Face cache ({}: {why}); \
             pass a local folder or file as --model instead",
            spec.repo,
            spec.revision(),
            cache.path().display()
        ))
    })
}

/// The files of the cached snapshot that `repo`'s revision points at (paths inside the repo).
fn cached_files(cache: &hf_hub::Cache, repo: &Repo) -> Vec<String> {
    let folder = cache.path().join(repo.folder_name());
    let commit = std::fs::read_to_string(folder.join("refs").join(repo.revision()))
        .map(|c| c.trim().to_string())
        .unwrap_or_else(|_| repo.revision().to_string());
    let root = folder.join("snapshots").join(commit);
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(rel) = path.strip_prefix(&root) {
                files.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files
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
