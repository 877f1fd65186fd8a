//! Self-contained GGUF support: header/metadata reader (v2, v3), ggml
//! dequantization (bit-exact with gguf-py), lossless Q4 -> INT4 group
//! repacking, tokenizer construction and llama-family hyper-parameters.
//!
//! Everything here refers only to `super::` paths and external crates, so the
//! module can be mounted anywhere as `gguf`.

pub mod dequant;
pub mod error;
pub mod int4;
pub mod metadata;
pub mod params;
pub mod pretok;
pub mod reader;
pub mod tokenizer;
pub mod types;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;

pub use dequant::{dequantize, DequantError};
pub use error::{GgufError, Result};
pub use int4::Int4Groups;
pub use metadata::{MetaArray, MetaValue, Metadata};
pub use params::{select_rows_f32, unpermute_rows, GgufLlamaParams};
pub use reader::{parse_header, GgufHeader, TensorInfo};
pub use tokenizer::{build_tokenizer, GgufTokenizerInfo};
pub use types::GgmlType;

enum Backing {
    Mmap(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mmap(m) => m,
            Backing::Owned(v) => v,
        }
    }
}

/// An opened GGUF file (memory-mapped, or owned bytes).
pub struct GgufFile {
    label: String,
    data: Backing,
    header: GgufHeader,
    by_name: HashMap<String, usize>,
}

impl std::fmt::Debug for GgufFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GgufFile")
            .field("label", &self.label)
            .field("version", &self.header.version)
            .field("metadata", &self.header.metadata.len())
            .field("tensors", &self.header.tensors.len())
            .finish()
    }
}

impl GgufFile {
    /// Memory-maps and parses `path`. The file must not be modified while open.
    pub fn open(path: impl AsRef<Path>) -> Result<GgufFile> {
        let path = path.as_ref();
        let label = path.display().to_string();
        let io = |source| GgufError::Io { file: label.clone(), source };
        let file = std::fs::File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let data = if len == 0 {
            Backing::Owned(Vec::new())
        } else {
            // SAFETY: read-only mapping; callers must not truncate or rewrite
            // the file while it is open (documented above).
            Backing::Mmap(unsafe { memmap2::Mmap::map(&file) }.map_err(io)?)
        };
        Self::from_backing(label, data)
    }

    /// Parses GGUF bytes held in memory; `label` names the data in errors.
    pub fn from_bytes(label: impl Into<String>, bytes: Vec<u8>) -> Result<GgufFile> {
        Self::from_backing(label.into(), Backing::Owned(bytes))
    }

    fn from_backing(label: String, data: Backing) -> Result<GgufFile> {
        let header = parse_header(&label, data.bytes())?;
        let by_name = header.tensors.iter().enumerate().map(|(i, t)| (t.name.clone(), i)).collect();
        Ok(GgufFile { label, data, header, by_name })
    }

    /// Path (or label) used in error messages.
    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn version(&self) -> u32 {
        self.header.version
    }

    pub fn header(&self) -> &GgufHeader {
        &self.header
    }

    pub fn metadata(&self) -> &Metadata {
        &self.header.metadata
    }

    /// Tensor infos in file order.
    pub fn tensor_infos(&self) -> &[TensorInfo] {
        &self.header.tensors
    }

    pub fn tensor_info(&self, name: &str) -> Option<&TensorInfo> {
        self.by_name.get(name).map(|&i| &self.header.tensors[i])
    }

    fn info_or_err(&self, name: &str) -> Result<&TensorInfo> {
        self.tensor_info(name)
            .ok_or_else(|| GgufError::TensorNotFound { file: self.label.clone(), tensor: name.to_string() })
    }

    /// The raw bytes of a tensor (bounds were checked when the file was opened,
    /// and are checked again here).
    pub fn tensor_data(&self, name: &str) -> Result<&[u8]> {
        let info = self.info_or_err(name)?;
        let bytes = self.data.bytes();
        let range = self
            .header
            .data_offset
            .checked_add(info.offset)
            .and_then(|s| Some((s, s.checked_add(info.n_bytes)?)))
            .filter(|&(_, e)| e <= bytes.len() as u64);
        match range {
            Some((s, e)) => Ok(&bytes[s as usize..e as usize]),
            None => Err(GgufError::BadTensor {
                file: self.label.clone(),
                tensor: name.to_string(),
                msg: "data lies outside the file".into(),
            }),
        }
    }

    /// Dequantizes a tensor to f32. The shape is row-major, outermost first
    /// (ggml `ne` reversed): a matrix with `ne = [cols, rows]` gives `[rows, cols]`.
    pub fn tensor_f32(&self, name: &str) -> Result<(Vec<usize>, Vec<f32>)> {
        let info = self.info_or_err(name)?;
        let data = self.tensor_data(name)?;
        let values = dequantize(info.ty, data, info.n_elements as usize).map_err(|e| match e {
            DequantError::Unsupported(ty) => GgufError::UnsupportedType {
                file: self.label.clone(),
                tensor: name.to_string(),
                ty: ty.to_string(),
                op: "dequantization",
            },
            other => {
                GgufError::BadTensor { file: self.label.clone(), tensor: name.to_string(), msg: other.to_string() }
            }
        })?;
        Ok((info.shape(), values))
    }

    /// Repacks a Q4_0 / Q4_1 / Q4_K tensor losslessly into [`Int4Groups`]
    /// (`rows` = product of all but the innermost ggml dimension, `cols` = `ne[0]`).
    /// `Ok(None)` for any other type.
    pub fn tensor_int4(&self, name: &str) -> Result<Option<Int4Groups>> {
        let info = self.info_or_err(name)?;
        if !Int4Groups::supports(info.ty) {
            return Ok(None);
        }
        let data = self.tensor_data(name)?;
        let cols = info.dims.first().copied().unwrap_or(1) as usize;
        let rows = info.dims.iter().skip(1).product::<u64>() as usize;
        Int4Groups::from_ggml(info.ty, data, rows, cols).map_err(|e| GgufError::BadTensor {
            file: self.label.clone(),
            tensor: name.to_string(),
            msg: e.to_string(),
        })
    }

    /// Llama-family hyper-parameters; a missing vocab size falls back to the
    /// outer dimension of `token_embd.weight`.
    pub fn llama_params(&self) -> Result<GgufLlamaParams> {
        let mut p = GgufLlamaParams::from_metadata(self.metadata())?;
        if p.vocab_size == 0 {
            if let Some(t) = self.tensor_info("token_embd.weight") {
                p.vocab_size = t.dims.get(1).copied().unwrap_or(0) as usize;
            }
        }
        Ok(p)
    }

    /// Builds the tokenizer from `tokenizer.ggml.*` metadata.
    pub fn tokenizer(&self) -> Result<GgufTokenizerInfo> {
        build_tokenizer(self.metadata())
    }
}
