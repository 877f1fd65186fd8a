//! Reading the formats voices and speech models are published in (Piper `.onnx`,
//! CTranslate2 Whisper `model.bin`, Moonshine `.ort`) into the layout the loaders read:
//! `model.safetensors` with transformers tensor names + `config.json` (+ tokenizer files).
//! The product does this itself, in Rust, the first time such a model is loaded; the
//! Python converters under tools/ stay only to make fixtures and to cross-check these.

pub mod ct2_whisper;
pub mod moonshine_ort;
pub mod piper_onnx;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub use safetensors::Dtype;

#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not what it claims to be (truncated, corrupt, another model).
    #[error("{path}: {msg}")]
    Format { path: PathBuf, msg: String },
}

impl ConvertError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        ConvertError::Io { path: path.to_path_buf(), source }
    }
    pub fn format(path: &Path, msg: impl Into<String>) -> Self {
        ConvertError::Format { path: path.to_path_buf(), msg: msg.into() }
    }
}

/// One tensor to write: little-endian bytes of `dtype`, row-major `shape`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

impl Tensor {
    pub fn f32(shape: Vec<usize>, values: &[f32]) -> Self {
        Tensor { dtype: Dtype::F32, shape, data: values.iter().flat_map(|v| v.to_le_bytes()).collect() }
    }
}

impl safetensors::View for &Tensor {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> std::borrow::Cow<'_, [u8]> {
        std::borrow::Cow::Borrowed(&self.data)
    }
    fn data_len(&self) -> usize {
        self.data.len()
    }
}

/// Writes `tensors` to `path` through a `.part` file renamed into place, so a crash
/// never leaves a half-written checkpoint that a later start would trust.
pub fn write_safetensors(
    path: &Path,
    tensors: &BTreeMap<String, Tensor>,
    metadata: Option<HashMap<String, String>>,
) -> Result<(), ConvertError> {
    let part = path.with_extension("safetensors.part");
    safetensors::serialize_to_file(tensors.iter().map(|(k, v)| (k.as_str(), v)), metadata, &part)
        .map_err(|e| ConvertError::format(path, e.to_string()))?;
    std::fs::rename(&part, path).map_err(|e| ConvertError::io(path, e))
}

/// Writes `value` as pretty JSON to `path` (through a `.part` file).
pub fn write_json(path: &Path, value: &serde_json::Value) -> Result<(), ConvertError> {
    let part = path.with_extension("json.part");
    let text = serde_json::to_string_pretty(value).expect("a JSON value serializes");
    std::fs::write(&part, text).map_err(|e| ConvertError::io(&part, e))?;
    std::fs::rename(&part, path).map_err(|e| ConvertError::io(path, e))
}
