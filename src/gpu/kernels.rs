//! The kernel registry: one typed id per WGSL entry point. WGSL sources are
//! included here and nowhere else.

use super::params;

/// Every compute kernel the engine can dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize)]
pub enum KernelId {
    #[default]
    EmbedF32,
    EmbedInt4,
    RmsNorm,
    MatvecF32,
    MatvecInt4,
    MatmulF32,
    MatmulInt4,
    Rope,
    KvAppend,
    Attention,
    SwiGlu,
    Add,
    Argmax,
    Copy,
    MatvecFusedInt4,
    AttentionDecode,
    Conv1d,
    ConvTranspose1d,
}

/// Where a kernel's code lives and which uniform layout it declares.
pub struct KernelSource {
    pub file: &'static str,
    pub source: &'static str,
    pub entry: &'static str,
    /// Field table of the `Params` struct at binding 0 (see `params.rs`).
    pub params_fields: &'static [(&'static str, usize)],
    pub params_size: usize,
    /// Declares `override FLAGS: u32` (see `PipelineKey::flags`).
    pub specialized: bool,
}

macro_rules! src {
    ($file:literal, $entry:literal, $p:ty) => {
        KernelSource {
            file: $file,
            source: include_str!(concat!("../../shaders/", $file)),
            entry: $entry,
            params_fields: <$p>::FIELDS,
            params_size: std::mem::size_of::<$p>(),
            specialized: $file.starts_with("matvec_fused") || $file.starts_with("attention_decode"),
        }
    };
}

impl KernelId {
    pub const ALL: &'static [KernelId] = &[
        KernelId::EmbedF32,
        KernelId::EmbedInt4,
        KernelId::RmsNorm,
        KernelId::MatvecF32,
        KernelId::MatvecInt4,
        KernelId::MatmulF32,
        KernelId::MatmulInt4,
        KernelId::Rope,
        KernelId::KvAppend,
        KernelId::Attention,
        KernelId::SwiGlu,
        KernelId::Add,
        KernelId::Argmax,
        KernelId::Copy,
        KernelId::MatvecFusedInt4,
        KernelId::AttentionDecode,
        KernelId::Conv1d,
        KernelId::ConvTranspose1d,
    ];

    pub fn source(self) -> KernelSource {
        use params::*;
        match self {
            KernelId::EmbedF32 => src!("embed_f32.wgsl", "embed_f32", EmbedParams),
            KernelId::EmbedInt4 => src!("embed_int4.wgsl", "embed_int4", EmbedParams),
            KernelId::RmsNorm => src!("rmsnorm.wgsl", "rmsnorm", RmsNormParams),
            KernelId::MatvecF32 => src!("matvec_f32.wgsl", "matvec_f32", MatmulParams),
            KernelId::MatvecInt4 => src!("matvec_int4.wgsl", "matvec_int4", MatmulParams),
            KernelId::MatmulF32 => src!("matmul_f32.wgsl", "matmul_f32", MatmulParams),
            KernelId::MatmulInt4 => src!("matmul_int4.wgsl", "matmul_int4", MatmulParams),
            KernelId::Rope => src!("rope.wgsl", "rope", RopeParams),
            KernelId::KvAppend => src!("kv_append.wgsl", "kv_append", KvAppendParams),
            KernelId::Attention => src!("attention.wgsl", "attention", AttentionParams),
            KernelId::SwiGlu => src!("eltwise.wgsl", "swiglu", EltwiseParams),
            KernelId::Add => src!("eltwise.wgsl", "add", EltwiseParams),
            KernelId::Argmax => src!("argmax.wgsl", "argmax", ArgmaxParams),
            KernelId::Copy => src!("copy.wgsl", "copy", CopyParams),
            KernelId::MatvecFusedInt4 => src!("matvec_fused_int4.wgsl", "matvec_fused_int4", FusedMatvecParams),
            KernelId::AttentionDecode => src!("attention_decode.wgsl", "attention_decode", AttentionDecodeParams),
            KernelId::Conv1d => src!("conv1d.wgsl", "conv1d", Conv1dParams),
            KernelId::ConvTranspose1d => src!("conv_transpose1d.wgsl", "conv_transpose1d", ConvTranspose1dParams),
        }
    }
}
