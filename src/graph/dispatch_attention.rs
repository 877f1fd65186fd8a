//! Kernel choice for the attention ops (part of `dispatch::select_one`): the
//! plain causal attention of prefill, the fused decode attention, and the
//! unfused decode step, which runs the fused kernel in its PREPARED mode so
//! fused and unfused plans share one arithmetic.

use super::dispatch::{bytes, Bind, Dim, DispatchSpec, Grid};
use super::ir::{AttentionDecode, AttnShape, TensorId};
use crate::gpu::params;
use crate::gpu::KernelId;

/// The operands of an `Op::Attention`.
pub struct Plain {
    pub q: TensorId,
    pub k_cache: TensorId,
    pub v_cache: TensorId,
    pub out: TensorId,
    pub attrs: AttnShape,
    pub scale: f32,
}

fn dispatch(
    kernel: KernelId,
    index: usize,
    params: Vec<u8>,
    bindings: Vec<Bind>,
    grid: Grid,
    flags: u32,
) -> DispatchSpec {
    DispatchSpec { kernel, op_index: index, params, bindings, grid, flags }
}

/// `attention_decode.wgsl`'s uniforms.
fn decode_params(a: AttnShape, scale: f32, rotary_dim: usize, flags: u32, eps: f32) -> params::AttentionDecodeParams {
    params::AttentionDecodeParams {
        n_heads: a.n_heads as u32,
        n_kv_heads: a.n_kv_heads as u32,
        head_dim: a.head_dim as u32,
        max_seq: a.max_seq as u32,
        scale,
        rotary_dim: rotary_dim as u32,
        flags,
        qk_eps: eps,
    }
}

/// log2 of the positions a flash-decoding split of one-token decode attention takes: a split of at
/// most 128 positions has every key and value row it reads requested when the kernel starts
/// (attention_decode_core.wgsl's prefetch), so a longer context costs a head more workgroups, not
/// a longer chain of memory round trips. Contexts of at most twice this run unsplit (the kernel's
/// `split_of`): combining the splits (a device-scope release, an atomic ticket, a round trip for
/// the records) costs about 3 us on the H200, what a head's unsplit chain spends on ~130 positions.
const SPLIT_MIN_LOG2: u32 = 7;

/// The most workgroups one split decode attention dispatch runs (heads x splits). The kernel keeps
/// cache rows and o_proj weights in registers, so an SM holds one of its workgroups; past one per
/// SM a second wave costs (the H200 has 132 SMs: at context 2000, 17 splits of 9 heads, 153
/// workgroups, measured 20 us a layer; capped to 14 splits, 126 workgroups, 14.5 us). wgpu does
/// not report SM counts.
const SPLIT_MAX_WORKGROUPS: usize = 128;

/// The one-token decode kernels' split layout for `a`: (grid.y, flag bits, the scratch binding).
/// grid.y is the splits the step's context needs (`Dim::KvSplits`, the kernel's own rule).
fn splits(a: AttnShape) -> (Dim, u32, Bind) {
    let log2 = SPLIT_MIN_LOG2;
    let most = a.max_seq.div_ceil(1 << log2).min(params::attn_decode::MAX_SPLITS).min(SPLIT_MAX_WORKGROUPS / a.n_heads);
    if most <= 1 || a.n_heads > params::attn_decode::MAX_SPLIT_HEADS {
        // The kernel declares the scratch either way: the tickets and one record.
        return (Dim::Fixed(1), 0, Bind::Scratch(SCRATCH_TICKETS + 16));
    }
    let records = a.n_heads * params::attn_decode::MAX_SPLITS * (a.head_dim / 4 + 1) * 16;
    let grid = Dim::KvSplits { log2, most: most as u32, max_seq: a.max_seq as u32 };
    (grid, log2 << params::attn_decode::SPLIT_SHIFT, Bind::Scratch(SCRATCH_TICKETS + records as u32))
}

/// The scratch's tickets (one u32 per head the kernel allows).
const SCRATCH_TICKETS: u32 = (params::attn_decode::MAX_SPLIT_HEADS * 4) as u32;

fn unsupported(a: AttnShape) -> String {
    format!("unsupported heads: {} q / {} kv, head_dim {}", a.n_heads, a.n_kv_heads, a.head_dim)
}

/// `Op::Attention`. A decode plan (`max_tokens == 1`) runs the fused decode
/// kernel's attention on the prepared q and cache where its bindings fit
/// `storage_limit` (else the fused pass was skipped too and both plans run
/// attention.wgsl).
pub fn plain(x: Plain, max_tokens: usize, storage_limit: u32, index: usize) -> Result<DispatchSpec, String> {
    let a = x.attrs;
    if a.head_dim > 256 || !a.n_heads.is_multiple_of(a.n_kv_heads) {
        return Err(unsupported(a));
    }
    let heads = Dim::Fixed(a.n_heads as u32);
    if max_tokens == 1 && a.head_dim.is_multiple_of(4) {
        let (split_y, split_flags, scratch) = splits(a);
        let mut b = vec![Bind::Tensor(x.q)];
        b.extend([Bind::Dummy; 5]);
        b.extend([x.k_cache, x.v_cache, x.out].map(Bind::Tensor));
        b.push(scratch);
        if b.len() as u32 <= storage_limit {
            let flags = params::attn_decode::PREPARED | split_flags;
            let p = decode_params(a, x.scale, 0, flags, 0.0);
            let grid = Grid { x: heads, y: split_y };
            return Ok(dispatch(KernelId::AttentionDecode, index, bytes(p), b, grid, flags));
        }
    }
    let p = params::AttentionParams {
        n_heads: a.n_heads as u32,
        n_kv_heads: a.n_kv_heads as u32,
        head_dim: a.head_dim as u32,
        max_seq: a.max_seq as u32,
        scale: x.scale,
        ..Default::default()
    };
    let b = [x.q, x.k_cache, x.v_cache, x.out].map(Bind::Tensor).to_vec();
    if a.head_dim.is_multiple_of(32) {
        // 32 query rows per workgroup: grid.y = ceil(n_tokens / 32).
        let grid = Grid { x: heads, y: Dim::Tokens { mul: 1, div: 32 } };
        return Ok(dispatch(KernelId::AttentionTiled, index, bytes(p), b, grid, 0));
    }
    Ok(dispatch(KernelId::Attention, index, bytes(p), b, Grid { x: heads, y: Dim::TOKENS }, 0))
}

/// `Op::AttentionDecode` (rows = None: split over long contexts, see `splits`) and
/// `Op::AttentionRows` (batched decode: one workgroup per head and row).
pub fn decode(a: &AttentionDecode, rows: Option<TensorId>, index: usize) -> Result<DispatchSpec, String> {
    let s = a.attrs;
    // head_dim: at most the 256 threads, a multiple of 4 (the kernel reads cache rows as vec4s).
    if s.head_dim > 256
        || !s.head_dim.is_multiple_of(4)
        || !s.n_heads.is_multiple_of(s.n_kv_heads)
        || a.rope.rotary_dim > s.head_dim
    {
        return Err(unsupported(s));
    }
    let mut flags = if a.rope.interleaved { params::attn_decode::INTERLEAVED } else { 0 };
    let mut eps = 0.0;
    let (qn, kn) = match a.qk_norm {
        Some((qn, kn, e)) => {
            flags |= params::attn_decode::QK_NORM;
            eps = e;
            (Bind::Tensor(qn), Bind::Tensor(kn))
        }
        None => (Bind::Dummy, Bind::Dummy),
    };
    let mut b = vec![Bind::Tensor(a.q), Bind::Tensor(a.k), Bind::Tensor(a.v), Bind::Tensor(a.cos_sin), qn, kn];
    b.extend([a.k_cache, a.v_cache, a.out].map(Bind::Tensor));
    let (kernel, y) = match rows {
        Some(r) => {
            b.push(Bind::Tensor(r));
            (KernelId::AttentionRows, Dim::TOKENS)
        }
        None => {
            let (split_y, split_flags, scratch) = splits(s);
            flags |= split_flags;
            b.push(scratch);
            (KernelId::AttentionDecode, split_y)
        }
    };
    let p = decode_params(s, a.scale, a.rope.rotary_dim, flags, eps);
    Ok(dispatch(kernel, index, bytes(p), b, Grid { x: Dim::Fixed(s.n_heads as u32), y }, flags))
}
