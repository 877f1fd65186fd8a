//! Kernel selection: each op becomes one dispatch spec (kernel, uniform params,
//! ordered bindings, grid). Pure: no GPU objects are created here, so the
//! choice of kernels can be snapshot-tested without a device.

use super::dispatch_attention as attention;
use super::dispatch_matvec as matvec;
use super::dispatch_partials as partials;
use super::dispatch_spec::{bound, bytes, rows_grid, rows_of};
use super::ir::{DeviceTensor, Graph, Op, Rows, TensorId};
use crate::gpu::params::{self, flags};
use crate::gpu::KernelId;

pub use super::dispatch_spec::{Bind, Dim, DispatchSpec, Grid, SelectError, SPLIT_MAX_WORKGROUPS};

fn ceil(a: usize, b: usize) -> u32 {
    a.div_ceil(b) as u32
}

/// How many activation rows a matmul of a plan reads per step, as far as kernel choice goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatmulRows {
    /// Single-sequence decode: the K-parallel matvec kernels.
    One,
    /// Batched decode (one row per active sequence, at most MAX_BATCH_ROWS): the INT4 matvec kernels with
    /// ROWS rows per workgroup (the fused ones too: the fusion passes run on batched graphs).
    Few,
    /// Prefill chunks.
    Many,
}

/// Batched decode plans have at most this many rows; prefill plans are assumed larger.
pub const MAX_BATCH_ROWS: usize = 64;

pub fn matmul_rows(max_rows: usize) -> MatmulRows {
    match max_rows {
        1 => MatmulRows::One,
        n if n <= MAX_BATCH_ROWS => MatmulRows::Few,
        _ => MatmulRows::Many,
    }
}

/// Chooses a kernel for every op. `max_rows == 1` means a decode plan, where
/// matmuls use the K-parallel matvec kernels.
pub fn select(graph: &Graph, max_rows: usize, storage_limit: u32) -> Result<Vec<DispatchSpec>, SelectError> {
    graph.ops.iter().enumerate().map(|(i, op)| select_one(graph, i, op, max_rows, storage_limit)).collect()
}

/// `storage_limit`: storage buffers a dispatch may bind (a kernel needing more is not chosen).
pub fn select_one(
    graph: &Graph,
    index: usize,
    op: &Op,
    max_rows: usize,
    storage_limit: u32,
) -> Result<DispatchSpec, SelectError> {
    let mut spec = select_kernel(graph, index, op, max_rows, storage_limit)?;
    // The ops that may write a packed prefill's output rows (lm_head, argmax) run over those rows only.
    let out = match *op {
        Op::MatMul { out, .. } => Some(out),
        Op::Argmax { logits, .. } => Some(logits),
        Op::ArgmaxBlocks { partials, .. } | Op::ArgmaxReduce { partials, .. } => Some(partials),
        _ => None,
    };
    if let Some(t) = out {
        spec.grid = rows_grid(spec.grid, rows_of(graph, t));
    }
    bind_kv_table(graph, &mut spec).map_err(|msg| SelectError::Shape { index, op: op.name(), msg })?;
    Ok(spec)
}

/// A paged KV cache's block table, bound at its kernel file's own binding: only the kernels whose rows
/// name their sequence's slot read one (`kernels::kv_table_binding`); any other kernel given a paged
/// cache is refused (it addresses one contiguous sequence).
fn bind_kv_table(graph: &Graph, spec: &mut DispatchSpec) -> Result<(), String> {
    if !spec.kernel.source().kv_cache {
        return Ok(());
    }
    let paged = spec.bindings.iter().find_map(|b| match *b {
        Bind::Tensor(t) => bound(graph, t).and_then(DeviceTensor::kv_pages).map(|_| t),
        _ => None,
    });
    let Some(cache) = paged else { return Ok(()) };
    if !matches!(spec.kernel, KernelId::AttentionRows | KernelId::KvAppendRows) {
        return Err(format!(
            "{} cannot read a paged KV cache (only the batched rows kernels can)",
            spec.kernel.source().entry
        ));
    }
    spec.bindings.push(Bind::KvTable(cache));
    Ok(())
}

fn select_kernel(
    graph: &Graph,
    index: usize,
    op: &Op,
    max_rows: usize,
    storage_limit: u32,
) -> Result<DispatchSpec, SelectError> {
    let err = |msg: String| SelectError::Shape { index, op: op.name(), msg };
    let w = |t: TensorId| graph.width(t);
    let tokens_grid = |width: usize| Grid { x: Dim::Fixed(ceil(width, 256)), y: Dim::TOKENS };
    let spec =
        |kernel, params, bindings, grid| DispatchSpec { kernel, op_index: index, params, bindings, grid, flags: 0 };
    Ok(match *op {
        Op::Embed { tokens, table, out } => {
            let width = w(out);
            match bound(graph, table) {
                Some(DeviceTensor::F32 { len, .. }) => {
                    let p =
                        params::EmbedParams { width: width as u32, vocab: (len / width) as u32, ..Default::default() };
                    spec(
                        KernelId::EmbedF32,
                        bytes(p),
                        vec![Bind::Tensor(tokens), Bind::Tensor(table), Bind::Tensor(out)],
                        tokens_grid(width),
                    )
                }
                Some(DeviceTensor::Int4 { rows, cols, group, .. }) if *cols == width => {
                    let p =
                        params::EmbedParams { width: width as u32, vocab: *rows as u32, group: *group as u32, pad0: 0 };
                    spec(
                        KernelId::EmbedInt4,
                        bytes(p),
                        vec![Bind::Tensor(tokens), Bind::Q(table), Bind::Sm(table), Bind::Tensor(out)],
                        tokens_grid(width),
                    )
                }
                _ => return Err(err(format!("embedding table does not match width {width}"))),
            }
        }
        Op::RmsNorm { x, weight, out, dim, rows_per_token, eps, add_unit } => {
            if w(x) != dim * rows_per_token || w(out) != w(x) {
                return Err(err(format!("width {} is not {rows_per_token} rows of {dim}", w(x))));
            }
            let p = params::RmsNormParams {
                dim: dim as u32,
                rows_per_token: rows_per_token as u32,
                eps,
                add_unit: add_unit as u32,
            };
            let grid = Grid { x: Dim::Tokens { mul: rows_per_token as u32, div: 1 }, y: Dim::Fixed(1) };
            spec(KernelId::RmsNorm, bytes(p), vec![Bind::Tensor(x), Bind::Tensor(weight), Bind::Tensor(out)], grid)
        }
        Op::MatMul { x, w: wt, bias, out, last_row } => {
            let (k, n) = (w(x), w(out));
            let matvec = last_row || matmul_rows(max_rows) == MatmulRows::One;
            let mut fl = if bias.is_some() { flags::BIAS } else { 0 };
            if last_row {
                fl |= flags::LAST_ROW;
            }
            let bias_bind = bias.map_or(Bind::Dummy, Bind::Tensor);
            let y = if last_row || rows_of(graph, out) == Rows::One { Dim::Fixed(1) } else { Dim::TOKENS };
            let (kernel, group, wb) = match bound(graph, wt) {
                Some(DeviceTensor::F32 { len, .. }) if *len == n * k => {
                    let kernel = if matvec { KernelId::MatvecF32 } else { KernelId::MatmulF32 };
                    (kernel, 0, vec![Bind::Tensor(wt)])
                }
                Some(DeviceTensor::Int4 { rows, cols, group, .. }) if *rows == n && *cols == k => {
                    // The INT4 matvec takes ROWS (4) rows per workgroup; for batched decode (<= 64 rows,
                    // <= 16 row blocks re-reading the weights mostly from L2) it beats the tiled matmul by far
                    // (H200, SmolLM2 at 32 rows: 82 us per projection tiled, see BENCHMARKS.md).
                    if matvec || max_rows <= INT4_MATVEC_MAX_ROWS {
                        if rows_of(graph, out) == Rows::One && !last_row {
                            return Err(err("a one-row INT4 matvec output needs last_row".into()));
                        }
                        return Ok(matvec::int4_matvec(index, x, wt, bias, out, n, k, *group, last_row, max_rows));
                    }
                    (KernelId::MatmulInt4, *group as u32, vec![Bind::Q(wt), Bind::Sm(wt)])
                }
                _ => return Err(err(format!("weight '{}' is not [{n}, {k}]", graph.desc(wt).label))),
            };
            let grid = if matvec {
                Grid { x: Dim::Fixed(ceil(n, 8)), y }
            } else {
                // Rows per workgroup tile: matmul_f32.wgsl 32, matmul_int4.wgsl 64.
                let div = if kernel == KernelId::MatmulInt4 { 64 } else { 32 };
                Grid { x: Dim::Fixed(ceil(n, 64)), y: Dim::Tokens { mul: 1, div } }
            };
            let p = params::MatmulParams { n: n as u32, k: k as u32, group, flags: fl };
            let mut b = vec![Bind::Tensor(x)];
            b.extend(wb);
            b.push(bias_bind);
            b.push(Bind::Tensor(out));
            spec(kernel, bytes(p), b, grid)
        }
        Op::Rope { q, k, cos_sin, q_out, k_out, attrs: a, rows } => {
            if w(q) != a.n_q_heads * a.head_dim || w(k) != a.n_kv_heads * a.head_dim || a.rotary_dim > a.head_dim {
                return Err(err("q/k widths do not match the heads".into()));
            }
            let p = params::RopeParams {
                n_q_heads: a.n_q_heads as u32,
                n_kv_heads: a.n_kv_heads as u32,
                head_dim: a.head_dim as u32,
                rotary_dim: a.rotary_dim as u32,
                interleaved: a.interleaved as u32,
                max_pos: a.max_pos as u32,
                ..Default::default()
            };
            let grid = Grid { x: Dim::Fixed((a.n_q_heads + a.n_kv_heads) as u32), y: Dim::TOKENS };
            let mut b = [q, k, cos_sin, q_out, k_out].map(Bind::Tensor).to_vec();
            b.extend(rows.map(Bind::Tensor));
            spec(if rows.is_some() { KernelId::RopeRows } else { KernelId::Rope }, bytes(p), b, grid)
        }
        Op::KvAppend { k, v, k_cache, v_cache, attrs: a, rows } => {
            let kv_width = a.n_kv_heads * a.head_dim;
            if !a.head_dim.is_multiple_of(4) {
                return Err(err(format!("head_dim {} is not a multiple of 4 (the cache's word)", a.head_dim)));
            }
            let p = params::KvAppendParams {
                kv_width: kv_width as u32,
                head_dim: a.head_dim as u32,
                max_seq: a.max_seq as u32,
                pad0: 0,
            };
            let mut b = [k, v, k_cache, v_cache].map(Bind::Tensor).to_vec();
            b.extend(rows.map(Bind::Tensor));
            let kernel = if rows.is_some() { KernelId::KvAppendRows } else { KernelId::KvAppend };
            // A thread per cache word of 4 values.
            spec(kernel, bytes(p), b, tokens_grid(kv_width / 4))
        }
        Op::Attention { q, k_cache, v_cache, out, attrs: a, scale, rows } => {
            let parts = attention::Plain { q, k_cache, v_cache, out, attrs: a, scale };
            match rows {
                Some(rows) => attention::plain_rows(parts, rows, index).map_err(err)?,
                None => attention::plain(parts, max_rows, storage_limit, index).map_err(err)?,
            }
        }
        Op::SwiGlu { gate, up, out } | Op::Add { a: gate, b: up, out } => {
            let kernel = if matches!(op, Op::SwiGlu { .. }) { KernelId::SwiGlu } else { KernelId::Add };
            let p = params::EltwiseParams { width: w(out) as u32, ..Default::default() };
            spec(kernel, bytes(p), [gate, up, out].map(Bind::Tensor).to_vec(), tokens_grid(w(out)))
        }
        Op::FusedMatvec(ref f) => matvec::fused(graph, f, index, max_rows).map_err(err)?,
        Op::MlpPartials(ref m) => partials::mlp(graph, m, max_rows, index).map_err(err)?,
        Op::PartialsNorm(ref n) => partials::partials_norm(graph, n, max_rows, index).map_err(err)?,
        Op::AttentionPartials { ref attn, o_proj, partials: part } => {
            partials::attention_o(graph, attn, o_proj, part, index).map_err(err)?
        }
        Op::AttentionQkv { ref qkv, ref attn, o_proj, partials: part } => {
            partials::attention_qkv(graph, qkv, attn, o_proj, part, max_rows, index).map_err(err)?
        }
        Op::DecodeLayer(ref l) => super::dispatch_layer::decode_layer(graph, l, max_rows, index).map_err(err)?,
        Op::AttentionDecode(ref a) => attention::decode(a, None, index).map_err(err)?,
        Op::AttentionRows { attn: ref a, rows } => attention::decode(a, Some(rows), index).map_err(err)?,
        Op::ShortConv(ref c) => {
            let p = conv_params(graph, c.attrs, c.bcx, c.bias.is_some()).map_err(err)?;
            if w(c.out) != c.attrs.dim || c.attrs.kernel > params::conv::MAX_KERNEL {
                return Err(err(format!("output width {} / kernel {} unsupported", w(c.out), c.attrs.kernel)));
            }
            let b = vec![
                Bind::Tensor(c.bcx),
                Bind::Tensor(c.weight),
                c.bias.map_or(Bind::Dummy, Bind::Tensor),
                Bind::Tensor(c.state),
                Bind::Tensor(c.out),
            ];
            if let Some(rows) = c.rows {
                if !c.update_state {
                    return Err(err("a batched step's conv updates its slots' states".into()));
                }
                let mut b = b;
                b.push(Bind::Tensor(rows));
                spec(KernelId::ShortConvRows, bytes(p), b, tokens_grid(c.attrs.dim))
            } else if c.update_state {
                let grid = Grid { x: Dim::Fixed(ceil(c.attrs.dim, 256)), y: Dim::Fixed(1) };
                spec(KernelId::ShortConvUpdate, bytes(p), b, grid)
            } else {
                spec(KernelId::ShortConv, bytes(p), b, tokens_grid(c.attrs.dim))
            }
        }
        Op::ConvStateUpdate { bcx, state, attrs } => {
            let p = conv_params(graph, attrs, bcx, false).map_err(err)?;
            let grid = Grid { x: Dim::Fixed(ceil(attrs.dim, 256)), y: Dim::Fixed(1) };
            spec(KernelId::ConvStateUpdate, bytes(p), vec![Bind::Tensor(bcx), Bind::Tensor(state)], grid)
        }
        Op::AddRmsNorm { a, b, weight, sum, out, eps, add_unit } => {
            let dim = w(out);
            if w(a) != dim || w(b) != dim || w(sum) != dim {
                return Err(err(format!("widths {} + {} -> {} / {dim} differ", w(a), w(b), w(sum))));
            }
            let p = params::AddRmsNormParams { dim: dim as u32, eps, add_unit: add_unit as u32, pad0: 0 };
            let grid = Grid { x: Dim::TOKENS, y: Dim::Fixed(1) };
            let b = [a, b, weight, sum, out].map(Bind::Tensor).to_vec();
            spec(KernelId::AddRmsNorm, bytes(p), b, grid)
        }
        Op::CausalConv(ref c) => return super::hybrid::select_conv(graph, index, c),
        Op::GatedDelta(ref d) => return super::hybrid::select_delta(graph, index, d, max_rows),
        Op::RmsNormGated(ref n) => return super::hybrid::select_norm_gated(graph, index, n),
        Op::SigmoidGate(ref s) => return super::hybrid::select_sigmoid_gate(graph, index, s),
        Op::DualRmsNorm(ref n) => return super::hybrid::select_dual_norm(graph, index, n),
        Op::Argmax { logits, out, last_row } => {
            // Logits with a row per token (or output) and no `last_row`: batched decode, a token per row.
            let per_row = !last_row && rows_of(graph, logits) != Rows::One;
            let fl = if last_row {
                flags::LAST_ROW
            } else if per_row {
                flags::PER_ROW
            } else {
                0
            };
            let p = params::ArgmaxParams { n: w(logits) as u32, flags: fl, ..Default::default() };
            let grid = Grid { x: Dim::Fixed(1), y: if per_row { Dim::TOKENS } else { Dim::Fixed(1) } };
            spec(KernelId::Argmax, bytes(p), vec![Bind::Tensor(logits), Bind::Tensor(out)], grid)
        }
        Op::ArgmaxBlocks { logits, partials, last_row } => {
            let n = w(logits);
            let blocks = n.div_ceil(params::ARGMAX_BLOCK);
            let per_row = !last_row && rows_of(graph, logits) != Rows::One;
            if w(partials) != 2 * blocks || (per_row && rows_of(graph, partials) != rows_of(graph, logits)) {
                return Err(err(format!("partials are not {blocks} (value, index) pairs per row")));
            }
            let fl = if last_row {
                flags::LAST_ROW
            } else if per_row {
                flags::PER_ROW
            } else {
                0
            };
            let p = params::ArgmaxParams { n: n as u32, flags: fl, blocks: blocks as u32, pad1: 0 };
            let grid = Grid { x: Dim::Fixed(blocks as u32), y: if per_row { Dim::TOKENS } else { Dim::Fixed(1) } };
            spec(KernelId::ArgmaxBlocks, bytes(p), vec![Bind::Tensor(logits), Bind::Tensor(partials)], grid)
        }
        Op::ArgmaxReduce { partials, out, n } => {
            let blocks = n.div_ceil(params::ARGMAX_BLOCK);
            if w(partials) != 2 * blocks {
                return Err(err(format!("partials are not {blocks} (value, index) pairs per row")));
            }
            let per_row = rows_of(graph, partials) != Rows::One;
            let fl = if per_row { flags::PER_ROW } else { 0 };
            let p = params::ArgmaxParams { n: n as u32, flags: fl, blocks: blocks as u32, pad1: 0 };
            let grid = Grid { x: Dim::Fixed(1), y: if per_row { Dim::TOKENS } else { Dim::Fixed(1) } };
            let mut b = vec![Bind::Tensor(partials), Bind::Tensor(out)];
            // A one-token plan's sampled token is the next step's input, one position on: the
            // kernel moves the position on itself (`Plan::set_step` then writes nothing).
            if max_rows == 1 && !per_row {
                b.extend([Bind::Step, Bind::TokenLog]);
                spec(KernelId::ArgmaxReduceAdvance, bytes(p), b, grid)
            } else {
                spec(KernelId::ArgmaxReduce, bytes(p), b, grid)
            }
        }
        Op::SplitCols { x, ref outs } => {
            if outs.is_empty() || outs.len() > 4 {
                return Err(err(format!("{} outputs (1-4 supported)", outs.len())));
            }
            let mut ws = [0u32; 4];
            for (i, o) in outs.iter().enumerate() {
                ws[i] = w(*o) as u32;
            }
            let total: u32 = ws.iter().sum();
            if total as usize != w(x) {
                return Err(err(format!("outputs are {total} columns wide, x {}", w(x))));
            }
            let p = params::SplitParams { w0: ws[0], w1: ws[1], w2: ws[2], w3: ws[3] };
            let mut b = vec![Bind::Tensor(x)];
            b.extend((0..4).map(|i| outs.get(i).map_or(Bind::DummyOut, |o| Bind::Tensor(*o))));
            spec(KernelId::SplitCols, bytes(p), b, tokens_grid(total as usize))
        }
    })
}

/// Batched decode (up to this many rows) uses the INT4 matvec kernel; prefill chunks, the tiled matmul.
const INT4_MATVEC_MAX_ROWS: usize = MAX_BATCH_ROWS;

/// Uniforms of the short-conv kernels, after checking `bcx` rows are [B | C | x].
fn conv_params(
    graph: &Graph,
    a: super::ir::ConvAttrs,
    bcx: TensorId,
    bias: bool,
) -> Result<params::ShortConvParams, String> {
    if graph.width(bcx) != 3 * a.dim || a.kernel < 2 {
        return Err(format!("bcx width {} is not 3 x {} or kernel {} < 2", graph.width(bcx), a.dim, a.kernel));
    }
    let flags = if bias { params::conv::BIAS } else { 0 };
    Ok(params::ShortConvParams { dim: a.dim as u32, kernel: a.kernel as u32, flags, pad0: 0 })
}
