//! The kernel registry: one typed id per WGSL entry point. WGSL sources are
//! included here and nowhere else.

use super::kv_pages::paging_prelude;
use super::params;
use super::{KvDtype, KvLayout};

/// Every compute kernel the engine can dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize)]
pub enum KernelId {
    #[default]
    EmbedF32,
    EmbedInt4,
    RmsNorm,
    MatvecF32,
    MatvecInt4,
    /// `MatvecInt4` in the streaming layout: each workgroup walks several column blocks.
    MatvecInt4Stream,
    MatmulF32,
    MatmulInt4,
    Rope,
    /// Rope at each row's own position (a packed prefill's rows table).
    RopeRows,
    KvAppend,
    /// KV append into each row's own slot and position.
    KvAppendRows,
    Attention,
    SwiGlu,
    Add,
    Argmax,
    Copy,
    MatvecFusedInt4,
    AttentionDecode,
    ShortConv,
    ConvStateUpdate,
    ShortConvUpdate,
    /// `ShortConvUpdate` for a batched decode step: each row's own slot's state.
    ShortConvRows,
    AddRmsNorm,
    AttentionRows,
    CausalConv,
    GatedDelta,
    /// `GatedDelta` with the causal conv folded in (decode).
    GatedDeltaConv,
    /// `GatedDeltaConv` for a batched decode step: each row's own slot's states and position.
    GatedDeltaConvRows,
    RmsNormGated,
    SigmoidGate,
    DualRmsNorm,
    LayerNorm,
    Gelu,
    Im2col,
    AttentionFull,
    Conv1d,
    ConvTranspose1d,
    MatvecSplitInt4,
    SplitCols,
    ArgmaxBlocks,
    ArgmaxReduce,
    /// `ArgmaxReduce` of a one-token decode plan, moving the plan's step position on by one.
    ArgmaxReduceAdvance,
    GatedDeltaChunked,
    Snake,
    WavenetGate,
    LogitStats,
    MatmulBcast,
    SoftmaxRows,
    MatmulBlock16,
    MatmulBlock16Kn,
    MatvecCols8,
    GroupNormStats,
    GroupNormApply,
    LayerNormChannels,
    RelAttention,
    SplineInverse,
    ExpandPrior,
    AttentionTiled,
    /// The feed-forward half of a decode layer: gate/up, SwiGLU and the down projection's per-word partials.
    MatvecMlpInt4,
    /// Decode attention followed by the head's per-word partials of o_proj.
    AttentionDecodeO,
    /// The residual sum of a matvec's per-word partial rows, then the RMSNorm (`Op::PartialsNorm`).
    PartialsNorm,
    /// `AttentionDecodeO` with the q / k / v matvec (and its norm, partial-row sum) computed per head first.
    AttentionQkvO,
    /// A dense decode layer (q / k / v, attention + o_proj rows, MLP) in one dispatch with grid barriers.
    DecodeLayer,
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
    /// Calls `group_sum` (a sum over 32-lane groups), defined by a prelude chosen per adapter.
    pub group_sum: bool,
    /// Calls `reduce_max` / `reduce_sum` (over a 256-invocation workgroup), defined by a prelude chosen per adapter.
    pub wg_reduce: bool,
    /// An INT4 matvec (`FusedMatvecParams`): its shape can be compiled in (`PipelineKey::dims`).
    pub shape_constants: bool,
    /// Calls `gated_delta_core` (`GATED_DELTA_CORE`), defining its conv hooks.
    pub delta_core: bool,
    /// Calls `attend` (`ATTENTION_DECODE_CORE`), defining its hooks.
    pub attention_core: bool,
    /// Calls `finish_split` (`ATTENTION_SPLIT`), binding its scratch.
    pub attention_split: bool,
    /// Calls `grid_sync` (`GRID_SYNC`), defining its hooks.
    pub grid_sync: bool,
    /// Takes its Params (`FusedMatvecParams`), x, `MAX_K4` and the PARTIALS_IN hooks from `MATVEC_INT4_BINDINGS`.
    pub matvec_bindings: bool,
    /// Reads or writes a KV cache through `KvWord` (`KV_F32`, `KV_F16` or `KV_FP8`, per pipeline: `PipelineKey::kv`).
    pub kv_cache: bool,
}

/// `Step` and the bindings of the two uniforms (`p` at 0, `step` at 1), in front of every kernel.
pub const UNIFORMS: &str = include_str!("../../shaders/lib/uniforms.wgsl");

/// `group_sum` through subgroup operations, for adapters whose subgroups are exactly 32 wide.
pub const GROUP_SUM_SUBGROUP: &str = include_str!("../../shaders/lib/reduce_subgroup.wgsl");
/// `group_sum` through workgroup memory, for every other adapter.
pub const GROUP_SUM_SHARED: &str = include_str!("../../shaders/lib/reduce_shared.wgsl");

/// Workgroup-wide `reduce_max` / `reduce_sum` through subgroups (32 wide) or through workgroup memory.
pub const WG_REDUCE_SUBGROUP: &str = include_str!("../../shaders/lib/wg_reduce_subgroup.wgsl");
pub const WG_REDUCE_SHARED: &str = include_str!("../../shaders/lib/wg_reduce_shared.wgsl");

/// The body both INT4 matvec kernels share (they differ in bindings only).
pub const MATVEC_INT4_CORE: &str = include_str!("../../shaders/lib/matvec_int4_core.wgsl");
/// What the INT4 matvec kernels with `FusedMatvecParams` declare alike for the core (`is_int4_matvec`).
pub const MATVEC_INT4_BINDINGS: &str = include_str!("../../shaders/lib/matvec_int4_bindings.wgsl");

/// Decode attention (`attend`, `o_partials`) for the kernels that define its hooks.
pub const ATTENTION_DECODE_CORE: &str = include_str!("../../shaders/lib/attention_decode_core.wgsl");

/// Flash-decoding splits of decode attention (`split_of`, `finish_split`).
pub const ATTENTION_SPLIT: &str = include_str!("../../shaders/lib/attention_split.wgsl");

/// The split scratch and its accessors (`rec_load`, `rec_store`): a `@coherent` binding read
/// through plain loads, or, where the adapter cannot declare one, atomics.
pub const SPLIT_RECORDS_COHERENT: &str = include_str!("../../shaders/lib/split_records_coherent.wgsl");
pub const SPLIT_RECORDS_ATOMIC: &str = include_str!("../../shaders/lib/split_records_atomic.wgsl");

/// A barrier over every workgroup of a dispatch (`grid_sync`).
pub const GRID_SYNC: &str = include_str!("../../shaders/lib/grid_sync.wgsl");

/// One INT4 word of four columns against 32 inputs (`word_dot`): for every kernel
/// that calls them, so split sums add bit-identical terms.
pub const INT4_WORD: &str = include_str!("../../shaders/lib/int4_word.wgsl");

/// The recurrent gated delta rule both decode delta kernels share (they differ in the conv hooks).
pub const GATED_DELTA_CORE: &str = include_str!("../../shaders/lib/gated_delta_core.wgsl");

/// `erf_as`, for the kernels with an exact GELU.
pub const ERF: &str = include_str!("../../shaders/lib/erf.wgsl");

/// The KV cache's word type and its conversions: f32 as it is, f16 packed in u32 pairs, or E4M3 bytes.
pub const KV_F32: &str = include_str!("../../shaders/lib/kv_f32.wgsl");
pub const KV_F16: &str = include_str!("../../shaders/lib/kv_f16.wgsl");
pub const KV_FP8: &str = include_str!("../../shaders/lib/kv_fp8.wgsl");

/// The prelude defining `KvWord`, `kv_get`, `kv_put` and `kv_round` for caches of `kv`.
pub fn kv_prelude(kv: KvDtype) -> &'static str {
    match kv {
        KvDtype::F32 => KV_F32,
        KvDtype::F16 => KV_F16,
        KvDtype::Fp8 => KV_FP8,
    }
}

/// Whether a kernel calls `erf_as` without defining it (it then gets `ERF` prepended).
pub fn uses_erf(source: &str) -> bool {
    source.contains("erf_as(") && !source.contains("fn erf_as(")
}

/// The kernels built on `matvec_int4_core.wgsl` (partials_norm.wgsl: its prologues alone).
const fn is_int4_matvec(file: &str) -> bool {
    matches!(file.as_bytes(), [b'm', b'a', b't', b'v', b'e', b'c', b'_', b'i', b'n', b't', b'4', ..])
        || matches!(file.as_bytes(), [b'm', b'a', b't', b'v', b'e', b'c', b'_', b'f', b'u', b's', b'e', b'd', ..])
        || matches!(file.as_bytes(), [b'm', b'a', b't', b'v', b'e', b'c', b'_', b'm', b'l', b'p', ..])
        || matches!(file.as_bytes(), b"partials_norm.wgsl")
}

/// The kernels built on `attention_decode_core.wgsl`.
const fn is_attention_decode(file: &str) -> bool {
    matches!(file.as_bytes(), b"attention_decode.wgsl" | b"attention_qkv_o.wgsl" | b"decode_layer.wgsl")
}

/// The kernels given `reduce_max` / `reduce_sum` over their 256 invocations (`WG_REDUCE_*`): the
/// decode attention kernels, and the row reductions of prefill attention and the norms.
const fn uses_wg_reduce(file: &str) -> bool {
    is_attention_decode(file)
        || matches!(file.as_bytes(), b"attention.wgsl" | b"attention_full.wgsl" | b"layernorm.wgsl" | b"groupnorm.wgsl")
}

/// The kernels that also use the matvec core (its prologues and lane order) around the attention.
const fn is_attention_matvec(file: &str) -> bool {
    matches!(file.as_bytes(), b"attention_qkv_o.wgsl" | b"decode_layer.wgsl")
}

/// The kernels that read or write a KV cache.
const fn uses_kv_cache(file: &str) -> bool {
    is_attention_decode(file)
        || matches!(file.as_bytes(), b"kv_append.wgsl" | b"attention.wgsl" | b"attention_tiled.wgsl")
}

/// The binding of the block table of a paged cache, one no entry point of the file uses otherwise
/// (naga checks every entry point of a module): in the files of the kernels whose rows each name
/// their sequence's slot. Every other cache kernel sees one sequence, the scratch session's
/// contiguous cache.
pub const fn kv_table_binding(file: &str) -> u32 {
    match file.as_bytes() {
        b"attention_decode.wgsl" => 15,
        b"kv_append.wgsl" => 7,
        _ => u32::MAX,
    }
}

/// Whether the kernel reads a paged cache through its block table (`kv_table_binding`).
pub fn reads_kv_table(file: &str) -> bool {
    kv_table_binding(file) != u32::MAX
}

/// The kernels with flash-decoding splits.
const fn is_attention_split(file: &str) -> bool {
    matches!(file.as_bytes(), b"attention_decode.wgsl" | b"decode_layer.wgsl")
}

/// What the adapter offers that picks the preludes a kernel is compiled with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Preludes {
    /// Subgroups exactly 32 wide (`GpuCaps::subgroups32`): `group_sum` is `subgroupAdd`.
    pub subgroups32: bool,
    /// `subgroupAdd` adds neighbouring lanes first (`subgroup_order::probe`): the partial-sum
    /// consumers re-add the plain matvec's lane values in that order (`SUBGROUP_ADD_NEIGHBOURS`).
    pub neighbours_first: bool,
    /// Storage buffers may be declared `@coherent` (`GpuCaps::coherent_buffers`): values one
    /// workgroup publishes to another inside a dispatch are read through plain loads
    /// (`SPLIT_RECORDS_COHERENT`) instead of atomics (`SPLIT_RECORDS_ATOMIC`).
    pub coherent: bool,
}

/// `group_sum` for these reductions, with `SUBGROUP_ADD_NEIGHBOURS` (the order the INT4 matvec
/// core's partial-sum consumers re-add lane values in).
pub fn group_sum_prelude(r: Preludes) -> String {
    let prelude = if r.subgroups32 { GROUP_SUM_SUBGROUP } else { GROUP_SUM_SHARED };
    format!("const SUBGROUP_ADD_NEIGHBOURS: bool = {};\n{prelude}", r.subgroups32 && r.neighbours_first)
}

impl KernelSource {
    /// The WGSL module to compile: the kernel's file behind the library code it uses
    /// (the uniforms, `group_sum` for this adapter, the shared INT4 matvec body), with KV cache words
    /// of `kv`'s type and addressing (kernels without a cache ignore it).
    pub fn wgsl(&self, r: Preludes, kv: impl Into<KvLayout>) -> String {
        let kv: KvLayout = kv.into();
        let subgroups32 = r.subgroups32;
        if uses_erf(self.source) {
            return format!("{UNIFORMS}\n{ERF}\n{}", self.source);
        }
        if self.delta_core {
            return format!("{UNIFORMS}\n{GATED_DELTA_CORE}\n{}", self.source);
        }
        let mut libs = vec![UNIFORMS.to_string()];
        if self.kv_cache {
            libs.push(kv_prelude(kv.dtype).to_string());
            libs.push(paging_prelude(kv.paging, kv_table_binding(self.file)));
        }
        if self.matvec_bindings {
            libs.push(MATVEC_INT4_BINDINGS.to_string());
        }
        if self.group_sum {
            libs.push(group_sum_prelude(r));
        }
        if self.wg_reduce {
            libs.push((if subgroups32 { WG_REDUCE_SUBGROUP } else { WG_REDUCE_SHARED }).to_string());
        }
        if self.group_sum || self.attention_core {
            libs.push(INT4_WORD.to_string());
        }
        if self.group_sum {
            libs.push(MATVEC_INT4_CORE.to_string());
        }
        if self.attention_core {
            libs.push(ATTENTION_DECODE_CORE.to_string());
        }
        if self.attention_split {
            libs.push((if r.coherent { SPLIT_RECORDS_COHERENT } else { SPLIT_RECORDS_ATOMIC }).to_string());
            libs.push(ATTENTION_SPLIT.to_string());
        }
        if self.grid_sync {
            libs.push(GRID_SYNC.to_string());
        }
        if r.coherent {
            libs.push(self.source.to_string());
        } else {
            // The atomic records need no decoration, and validation refuses it without the feature.
            libs.push(self.source.replace("@coherent ", ""));
        }
        libs.join("\n")
    }
}

macro_rules! src {
    ($file:literal, $entry:literal, $p:ty) => {
        KernelSource {
            file: $file,
            source: include_str!(concat!("../../shaders/", $file)),
            entry: $entry,
            params_fields: <$p>::FIELDS,
            params_size: std::mem::size_of::<$p>(),
            specialized: is_int4_matvec($file) || is_attention_decode($file) || $file == "gated_delta_conv.wgsl",
            group_sum: is_int4_matvec($file) || is_attention_matvec($file),
            shape_constants: is_int4_matvec($file) || is_attention_matvec($file),
            wg_reduce: uses_wg_reduce($file),
            delta_core: $file == "gated_delta.wgsl" || $file == "gated_delta_conv.wgsl",
            attention_core: is_attention_decode($file),
            attention_split: is_attention_split($file),
            grid_sync: $file == "decode_layer.wgsl",
            matvec_bindings: is_int4_matvec($file),
            kv_cache: uses_kv_cache($file),
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
        KernelId::MatvecInt4Stream,
        KernelId::MatmulF32,
        KernelId::MatmulInt4,
        KernelId::Rope,
        KernelId::RopeRows,
        KernelId::KvAppend,
        KernelId::KvAppendRows,
        KernelId::Attention,
        KernelId::SwiGlu,
        KernelId::Add,
        KernelId::Argmax,
        KernelId::Copy,
        KernelId::MatvecFusedInt4,
        KernelId::AttentionDecode,
        KernelId::ShortConv,
        KernelId::ConvStateUpdate,
        KernelId::ShortConvUpdate,
        KernelId::ShortConvRows,
        KernelId::AddRmsNorm,
        KernelId::AttentionRows,
        KernelId::CausalConv,
        KernelId::GatedDelta,
        KernelId::GatedDeltaConv,
        KernelId::GatedDeltaConvRows,
        KernelId::RmsNormGated,
        KernelId::SigmoidGate,
        KernelId::DualRmsNorm,
        KernelId::LayerNorm,
        KernelId::Gelu,
        KernelId::Im2col,
        KernelId::AttentionFull,
        KernelId::Conv1d,
        KernelId::ConvTranspose1d,
        KernelId::MatvecSplitInt4,
        KernelId::SplitCols,
        KernelId::ArgmaxBlocks,
        KernelId::ArgmaxReduce,
        KernelId::ArgmaxReduceAdvance,
        KernelId::GatedDeltaChunked,
        KernelId::Snake,
        KernelId::WavenetGate,
        KernelId::LogitStats,
        KernelId::MatmulBcast,
        KernelId::SoftmaxRows,
        KernelId::MatmulBlock16,
        KernelId::MatmulBlock16Kn,
        KernelId::MatvecCols8,
        KernelId::GroupNormStats,
        KernelId::GroupNormApply,
        KernelId::LayerNormChannels,
        KernelId::RelAttention,
        KernelId::SplineInverse,
        KernelId::ExpandPrior,
        KernelId::AttentionTiled,
        KernelId::MatvecMlpInt4,
        KernelId::AttentionDecodeO,
        KernelId::AttentionQkvO,
        KernelId::PartialsNorm,
        KernelId::DecodeLayer,
    ];

    pub fn source(self) -> KernelSource {
        use params::*;
        match self {
            KernelId::EmbedF32 => src!("embed_f32.wgsl", "embed_f32", EmbedParams),
            KernelId::EmbedInt4 => src!("embed_int4.wgsl", "embed_int4", EmbedParams),
            KernelId::RmsNorm => src!("rmsnorm.wgsl", "rmsnorm", RmsNormParams),
            KernelId::MatvecF32 => src!("matvec_f32.wgsl", "matvec_f32", MatmulParams),
            KernelId::MatvecInt4 => src!("matvec_int4.wgsl", "matvec_int4", FusedMatvecParams),
            KernelId::MatvecInt4Stream => src!("matvec_int4.wgsl", "matvec_int4_stream", FusedMatvecParams),
            KernelId::MatmulF32 => src!("matmul_f32.wgsl", "matmul_f32", MatmulParams),
            KernelId::MatmulInt4 => src!("matmul_int4.wgsl", "matmul_int4", MatmulParams),
            KernelId::Rope => src!("rope.wgsl", "rope", RopeParams),
            KernelId::RopeRows => src!("rope.wgsl", "rope_rows", RopeParams),
            KernelId::KvAppend => src!("kv_append.wgsl", "kv_append", KvAppendParams),
            KernelId::KvAppendRows => src!("kv_append.wgsl", "kv_append_rows", KvAppendParams),
            KernelId::AttentionTiled => src!("attention_tiled.wgsl", "attention_tiled", AttentionParams),
            KernelId::Attention => src!("attention.wgsl", "attention", AttentionParams),
            KernelId::SwiGlu => src!("eltwise.wgsl", "swiglu", EltwiseParams),
            KernelId::Add => src!("eltwise.wgsl", "add", EltwiseParams),
            KernelId::Argmax => src!("argmax.wgsl", "argmax", ArgmaxParams),
            KernelId::Copy => src!("copy.wgsl", "copy", CopyParams),
            KernelId::MatvecFusedInt4 => src!("matvec_fused_int4.wgsl", "matvec_fused_int4", FusedMatvecParams),
            KernelId::AttentionDecode => src!("attention_decode.wgsl", "attention_decode", AttentionDecodeParams),
            KernelId::AttentionDecodeO => src!("attention_decode.wgsl", "attention_decode_o", AttentionDecodeParams),
            KernelId::AttentionQkvO => src!("attention_qkv_o.wgsl", "attention_qkv_o", AttentionQkvParams),
            KernelId::MatvecMlpInt4 => src!("matvec_mlp_int4.wgsl", "matvec_mlp_int4", FusedMatvecParams),
            KernelId::PartialsNorm => src!("partials_norm.wgsl", "partials_norm", FusedMatvecParams),
            KernelId::DecodeLayer => src!("decode_layer.wgsl", "decode_layer", AttentionQkvParams),
            KernelId::ShortConv => src!("short_conv.wgsl", "short_conv", ShortConvParams),
            KernelId::ConvStateUpdate => src!("conv_state_update.wgsl", "conv_state_update", ShortConvParams),
            KernelId::ShortConvUpdate => src!("short_conv_update.wgsl", "short_conv_update", ShortConvParams),
            KernelId::ShortConvRows => src!("short_conv_update.wgsl", "short_conv_rows", ShortConvParams),
            KernelId::AddRmsNorm => src!("add_rmsnorm.wgsl", "add_rmsnorm", AddRmsNormParams),
            KernelId::AttentionRows => src!("attention_decode.wgsl", "attention_rows", AttentionDecodeParams),
            KernelId::CausalConv => src!("causal_conv.wgsl", "causal_conv", ConvParams),
            KernelId::GatedDelta => src!("gated_delta.wgsl", "gated_delta", DeltaParams),
            KernelId::GatedDeltaConv => src!("gated_delta_conv.wgsl", "gated_delta_conv", DeltaParams),
            KernelId::GatedDeltaConvRows => src!("gated_delta_conv.wgsl", "gated_delta_conv_rows", DeltaParams),
            KernelId::RmsNormGated => src!("rmsnorm_gated.wgsl", "rmsnorm_gated", RmsNormParams),
            KernelId::SigmoidGate => src!("sigmoid_gate.wgsl", "sigmoid_gate", EltwiseParams),
            KernelId::DualRmsNorm => src!("dual_rmsnorm.wgsl", "dual_rmsnorm", DualNormParams),
            KernelId::LayerNorm => src!("layernorm.wgsl", "layernorm", LayerNormParams),
            KernelId::Gelu => src!("eltwise.wgsl", "gelu", EltwiseParams),
            KernelId::Im2col => src!("im2col.wgsl", "im2col", Im2colParams),
            KernelId::AttentionFull => src!("attention_full.wgsl", "attention_full", AttentionFullParams),
            KernelId::Conv1d => src!("conv1d.wgsl", "conv1d", Conv1dParams),
            KernelId::ConvTranspose1d => src!("conv_transpose1d.wgsl", "conv_transpose1d", ConvTranspose1dParams),
            KernelId::MatvecSplitInt4 => {
                src!("matvec_fused_split_int4.wgsl", "matvec_fused_split_int4", FusedMatvecParams)
            }
            KernelId::SplitCols => src!("split_cols.wgsl", "split_cols", SplitParams),
            KernelId::ArgmaxBlocks => src!("argmax.wgsl", "argmax_blocks", ArgmaxParams),
            KernelId::ArgmaxReduce => src!("argmax.wgsl", "argmax_reduce", ArgmaxParams),
            KernelId::ArgmaxReduceAdvance => src!("argmax.wgsl", "argmax_reduce_advance", ArgmaxParams),
            KernelId::GatedDeltaChunked => src!("gated_delta_chunked.wgsl", "gated_delta_chunked", DeltaParams),
            KernelId::Snake => src!("snake.wgsl", "snake", SnakeParams),
            KernelId::WavenetGate => src!("wavenet_gate.wgsl", "wavenet_gate", SnakeParams),
            KernelId::LogitStats => src!("logit_stats.wgsl", "logit_stats", LogitStatsParams),
            KernelId::MatmulBcast => src!("matmul_bcast.wgsl", "matmul_bcast", MatmulStridedParams),
            KernelId::SoftmaxRows => src!("softmax_rows.wgsl", "softmax_rows", EltwiseParams),
            KernelId::MatmulBlock16 => src!("matmul_block16.wgsl", "matmul_block16", MatmulStridedParams),
            KernelId::MatmulBlock16Kn => src!("matmul_block16.wgsl", "matmul_block16_kn", MatmulStridedParams),
            KernelId::MatvecCols8 => src!("matvec_cols8.wgsl", "matvec_cols8", MatmulParams),
            KernelId::GroupNormStats => src!("groupnorm.wgsl", "groupnorm_stats", GroupNormParams),
            KernelId::GroupNormApply => src!("groupnorm.wgsl", "groupnorm_apply", GroupNormParams),
            KernelId::LayerNormChannels => {
                src!("layernorm_channels.wgsl", "layernorm_channels", LayerNormChannelsParams)
            }
            KernelId::RelAttention => src!("rel_attention.wgsl", "rel_attention", RelAttentionParams),
            KernelId::SplineInverse => src!("spline_inverse.wgsl", "spline_inverse", SplineParams),
            KernelId::ExpandPrior => src!("expand_prior.wgsl", "expand_prior", ExpandPriorParams),
        }
    }
}
