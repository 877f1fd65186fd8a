//! Weights: reading checkpoints (safetensors, sharded), converting to f32,
//! quantizing to INT4 groups, and fetching models from the Hugging Face hub.

pub mod convert;
pub mod hub;
pub mod hub_spec;
pub mod int4;
pub mod pypi;
pub mod random;
pub mod safetensors;
pub mod sources;
pub mod unread;

use std::path::{Path, PathBuf};

pub use self::safetensors::Checkpoint;

#[derive(Debug, thiserror::Error)]
pub enum WeightError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a valid checkpoint file: {msg}")]
    Format { path: PathBuf, msg: String },
    #[error("no *.safetensors weights in {dir}")]
    NoWeights { dir: PathBuf },
    #[error("tensor '{name}' is missing from the checkpoint in {dir}")]
    Missing { name: String, dir: PathBuf },
    #[error(
        "tensor '{name}' in {dir} is in a layer the model does not have: the config describes {layers} \
         layer(s) under '{list}' and the checkpoint has more (a config.json of another model?)"
    )]
    UnreadLayer { name: String, dir: PathBuf, list: String, layers: usize },
    #[error("tensor '{name}' in {path} has shape {got:?}, expected {want:?}")]
    Shape { name: String, path: PathBuf, want: Vec<usize>, got: Vec<usize> },
    #[error("tensor '{name}' in {path} has unsupported dtype {dtype} (f32, f16, bf16 are supported)")]
    Dtype { name: String, path: PathBuf, dtype: String },
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error("{0}")]
    Hub(String),
}

impl WeightError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        WeightError::Io { path: path.to_path_buf(), source }
    }
}

/// Where a model's tensors come from (a safetensors checkpoint, a GGUF file,
/// random weights for benchmarks), by transformers tensor name.
pub trait TensorSource {
    fn contains(&self, name: &str) -> bool;
    /// The tensor as f32, checked against `shape`.
    fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightError>;
    /// The tensor as lossless INT4 groups, when the source stores it so.
    fn int4(&self, _name: &str, _rows: usize, _cols: usize) -> Result<Option<int4::Int4Matrix>, WeightError> {
        Ok(None)
    }
}

impl TensorSource for Checkpoint {
    fn contains(&self, name: &str) -> bool {
        Checkpoint::contains(self, name)
    }
    fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightError> {
        Checkpoint::f32(self, name, shape)
    }
}

/// How linear layers are stored on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WeightFormat {
    F32,
    /// INT4 groups; the group size is the preferred one (a smaller one is
    /// picked when it does not divide a matrix's input width).
    Int4 {
        group: usize,
    },
}
