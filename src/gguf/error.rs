//! Error type for everything in the GGUF module.

use std::fmt;

/// Any failure while reading, decoding or interpreting a GGUF file.
///
/// Every variant names the file (its path, or the label given to
/// [`super::GgufFile::from_bytes`]) and, where relevant, the tensor or key.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    #[error("{file}: I/O error: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: not a GGUF file (magic bytes {magic:02x?}, expected \"GGUF\")")]
    BadMagic { file: String, magic: [u8; 4] },
    #[error("{file}: unsupported GGUF version {version} (supported: 2 and 3){hint}")]
    UnsupportedVersion { file: String, version: u32, hint: VersionHint },
    #[error("{file}: truncated: need {need} bytes for {what} at offset {offset}, but the file has {len} bytes")]
    Truncated { file: String, what: String, offset: u64, need: u64, len: u64 },
    #[error("{file}: malformed header: {msg}")]
    Malformed { file: String, msg: String },
    #[error("{file}: tensor '{tensor}': {msg}")]
    BadTensor { file: String, tensor: String, msg: String },
    #[error("{file}: tensor '{tensor}' not found")]
    TensorNotFound { file: String, tensor: String },
    #[error("{file}: tensor '{tensor}': {op} is not supported for ggml type {ty}")]
    UnsupportedType { file: String, tensor: String, ty: String, op: &'static str },
    #[error("{file}: metadata key '{key}' is missing")]
    MissingKey { file: String, key: String },
    #[error("{file}: metadata key '{key}' has type {found}, expected {expected}")]
    WrongType { file: String, key: String, found: String, expected: &'static str },
    #[error("{file}: metadata key '{key}': {msg}")]
    BadValue { file: String, key: String, msg: String },
    #[error("{file}: tokenizer: {msg}")]
    Tokenizer { file: String, msg: String },
}

/// Extra text for [`GgufError::UnsupportedVersion`] (e.g. a big-endian hint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionHint {
    None,
    BigEndian,
    V1,
}

impl fmt::Display for VersionHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionHint::None => Ok(()),
            VersionHint::BigEndian => f.write_str("; this looks like a big-endian GGUF, which is not supported"),
            VersionHint::V1 => f.write_str("; GGUF v1 (32-bit counts) is obsolete, re-convert the model"),
        }
    }
}

pub type Result<T, E = GgufError> = std::result::Result<T, E>;
