//! How a KV cache stores its values: the one choice a cache's kernels are compiled for
//! (`PipelineKey::kv16`, shaders/lib/kv_*.wgsl).

use std::fmt;

/// The element type of a model's KV caches (`kv_dtype` in the config).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KvDtype {
    /// Half the memory and half the bytes attention reads per position; the serving default
    /// (the error it adds, about 2^-11 of each value, is below the INT4 weights').
    F16,
    /// Exact: the mode outputs are compared with reference implementations in.
    F32,
}

impl KvDtype {
    /// Bytes of one cached value.
    pub fn bytes(self) -> usize {
        match self {
            KvDtype::F16 => 2,
            KvDtype::F32 => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            KvDtype::F16 => "f16",
            KvDtype::F32 => "f32",
        }
    }
}

impl fmt::Display for KvDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for KvDtype {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "f16" => Ok(KvDtype::F16),
            "f32" => Ok(KvDtype::F32),
            _ => Err(format!("unknown KV cache type '{s}' (f16 or f32)")),
        }
    }
}
