//! Kernel choice for the attention ops (part of `dispatch::select_one`): the
//! plain causal attention of prefill, the fused decode attention, and the
//! unfused decode step, which runs the fused kernel in its PREPARED mode so
//! fused and unfused plans share one arithmetic.

use super::dispatch_spec::{bytes, Bind, Dim, DispatchSpec, Grid, SPLIT_MAX_WORKGROUPS};
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

/// log2 of the positions a flash-decoding split of decode attention takes: a split of at most 128
/// positions has every key and value row it reads requested when the kernel starts
/// (attention_decode_core.wgsl's prefetch), so a longer context costs a head more workgroups, not
/// a longer chain of memory round trips. Contexts of at most twice this run unsplit (the kernel's
/// `split_of`): combining the splits (a device-scope release, an atomic ticket, a round trip for
/// the records) costs about 3 us on the H200, what a head's unsplit chain spends on ~130 positions.
pub const SPLIT_MIN_LOG2: u32 = 7;

/// The decode kernels' split layout for `a` (`per_row`: batched decode's rows): the grid's y size,
/// flag bits and the scratch binding. The grid follows the step's context (`Dim::KvSplits`, the
/// kernel's own rule); the kernel takes the splits each head's context needs.
fn splits(a: AttnShape, per_row: bool) -> (Dim, u32, Bind) {
    let (log2, most) = (SPLIT_MIN_LOG2, split_most(a));
    let heads = a.n_heads as u32;
    let scratch = Bind::Scratch(split_scratch_bytes(a));
    if most <= 1 {
        let rows = if per_row { Dim::TOKENS } else { Dim::Fixed(1) };
        return (rows, 0, scratch);
    }
    let grid = Dim::KvSplits { log2, most, max_seq: a.max_seq as u32, heads, per_row };
    (grid, log2 << params::attn_decode::SPLIT_SHIFT, scratch)
}

/// The scratch's tickets (attention_split.wgsl's MAX_TICKETS u32s).
const SCRATCH_TICKETS: u32 = (params::attn_decode::MAX_TICKETS * 4) as u32;

/// The most splits a head of `a` takes in one-token decode (1: no splits, where max_seq needs none or
/// the workgroup cap leaves a head fewer than two).
pub fn split_most(a: AttnShape) -> u32 {
    let most = a.max_seq.div_ceil(1 << SPLIT_MIN_LOG2).min(params::attn_decode::MAX_SPLITS) as u32;
    if a.n_heads as u32 * 2 > SPLIT_MAX_WORKGROUPS {
        return 1;
    }
    most
}

/// The split scratch's bytes: the tickets, then a record per workgroup of a split dispatch (at most
/// SPLIT_MAX_WORKGROUPS, so that many records and tickets, fewer than MAX_TICKETS, are in use).
fn split_scratch_bytes(a: AttnShape) -> u32 {
    SCRATCH_TICKETS + SPLIT_MAX_WORKGROUPS * (a.head_dim as u32 / 4 + 1) * 16
}

fn unsupported(a: AttnShape) -> String {
    format!("unsupported heads: {} q / {} kv, head_dim {}", a.n_heads, a.n_kv_heads, a.head_dim)
}

/// `Op::Attention`. A decode plan (`max_rows == 1`) runs the fused decode
/// kernel's attention on the prepared q and cache where its bindings fit
/// `storage_limit` (else the fused pass was skipped too and both plans run
/// attention.wgsl).
pub fn plain(x: Plain, max_rows: usize, storage_limit: u32, index: usize) -> Result<DispatchSpec, String> {
    let a = x.attrs;
    if a.head_dim > 256 || !a.n_heads.is_multiple_of(a.n_kv_heads) {
        return Err(unsupported(a));
    }
    let heads = Dim::Fixed(a.n_heads as u32);
    if max_rows == 1 && a.head_dim.is_multiple_of(4) {
        let (split_y, split_flags, scratch) = splits(a, false);
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

/// `Op::Attention` with rows (a packed prefill): row r attends over its slot's positions
/// 0..=rows[2r + 1], which a `KvAppend` of every row wrote before (so rows of one sequence see each
/// other): the batched decode kernel in its PREPARED mode, one workgroup a head and row (and split).
pub fn plain_rows(x: Plain, rows: TensorId, index: usize) -> Result<DispatchSpec, String> {
    let a = x.attrs;
    if a.head_dim > 256 || !a.head_dim.is_multiple_of(4) || !a.n_heads.is_multiple_of(a.n_kv_heads) {
        return Err(unsupported(a));
    }
    let (split_y, split_flags, scratch) = splits(a, true);
    let mut b = vec![Bind::Tensor(x.q)];
    b.extend([Bind::Dummy; 5]);
    b.extend([x.k_cache, x.v_cache, x.out].map(Bind::Tensor));
    b.extend([scratch, Bind::Tensor(rows)]);
    let flags = params::attn_decode::PREPARED | split_flags;
    let p = decode_params(a, x.scale, 0, flags, 0.0);
    let grid = Grid { x: Dim::Fixed(a.n_heads as u32), y: split_y };
    Ok(dispatch(KernelId::AttentionRows, index, bytes(p), b, grid, flags))
}

/// `Op::AttentionDecode` (rows = None) and `Op::AttentionRows` (batched decode: each row at its own
/// slot and position); both split long contexts (see `splits`).
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
    let (split_y, split_flags, scratch) = splits(s, rows.is_some());
    flags |= split_flags;
    b.push(scratch);
    let kernel = match rows {
        Some(r) => {
            b.push(Bind::Tensor(r));
            KernelId::AttentionRows
        }
        None => KernelId::AttentionDecode,
    };
    let p = decode_params(s, a.scale, a.rope.rotary_dim, flags, eps);
    Ok(dispatch(kernel, index, bytes(p), b, Grid { x: Dim::Fixed(s.n_heads as u32), y: split_y }, flags))
}
