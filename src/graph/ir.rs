//! Graph IR: tensors and typed ops. Activations are f32 [rows, width] where
//! rows is the step's token count (or one row); everything else (weights, KV
//! caches, token ids, rope tables) is a device tensor bound from outside.

use std::sync::Arc;

pub use super::tensor::DeviceTensor;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct TensorId(pub u32);

/// How many rows an activation has at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Rows {
    /// One row per token of the step (prefill chunk length, or 1 when decoding).
    Tokens,
    /// Exactly one row (e.g. the last token's logits).
    One,
    /// One row per sequence a packed prefill produces logits for: rows 0..outputs of the step (the
    /// plan's `set_outputs`), each sequence's last token. At most `OUTPUT_ROWS`.
    Outputs,
}

/// Most `Rows::Outputs` rows (a batched decoder's most slots, `dispatch::MAX_BATCH_ROWS`); such
/// activations are allocated this many rows (or the plan's max_rows, if fewer), which also holds the
/// rows a kernel's last row tile writes past the outputs (the tiled matmuls' tiles are at most 64 rows).
pub const OUTPUT_ROWS: usize = 64;

#[derive(Debug, Clone)]
pub enum Storage {
    Activation { width: usize, rows: Rows },
    Bound(Arc<DeviceTensor>),
}

#[derive(Debug, Clone)]
pub struct TensorDesc {
    pub label: String,
    pub storage: Storage,
}

/// Every op the engine knows. Fields name tensors by id; attributes are typed.
#[derive(Debug, Clone, serde::Serialize)]
pub enum Op {
    /// `out[r] = table[tokens[r]]` (table f32 or INT4).
    Embed { tokens: TensorId, table: TensorId, out: TensorId },
    /// Row-wise RMSNorm; a token holds `rows_per_token` rows of `dim`.
    RmsNorm {
        x: TensorId,
        weight: TensorId,
        out: TensorId,
        dim: usize,
        rows_per_token: usize,
        eps: f32,
        add_unit: bool,
    },
    /// `out = x . w^T (+ bias)`; with `last_row`, only the step's last row of x.
    MatMul { x: TensorId, w: TensorId, bias: Option<TensorId>, out: TensorId, last_row: bool },
    /// Rotary embedding of q and k at positions pos0 + row, or with `rows` (a packed prefill, see
    /// `AttentionRows` for the layout) at position `rows[2r + 1]`.
    Rope {
        q: TensorId,
        k: TensorId,
        cos_sin: TensorId,
        q_out: TensorId,
        k_out: TensorId,
        attrs: RopeAttrs,
        rows: Option<TensorId>,
    },
    /// Writes k and v rows into the layer's cache at positions pos0 + row, or with `rows` into slot
    /// `rows[2r]`'s region at position `rows[2r + 1]`.
    KvAppend {
        k: TensorId,
        v: TensorId,
        k_cache: TensorId,
        v_cache: TensorId,
        attrs: AttnShape,
        rows: Option<TensorId>,
    },
    /// Causal attention of q over the cache (GQA); with `rows`, row r over slot `rows[2r]`'s positions
    /// 0..=rows[2r + 1] (already appended by a `KvAppend` before it, so several rows of one sequence
    /// can share a step).
    Attention {
        q: TensorId,
        k_cache: TensorId,
        v_cache: TensorId,
        out: TensorId,
        attrs: AttnShape,
        scale: f32,
        rows: Option<TensorId>,
    },
    /// `out = silu(gate) * up`.
    SwiGlu { gate: TensorId, up: TensorId, out: TensorId },
    /// `out = a + b`.
    Add { a: TensorId, b: TensorId, out: TensorId },
    /// Greedy token from one row of logits into `out[0]`; with `last_row`, the step's last row. Logits with
    /// one row per token and `last_row == false` (batched decode) give one token per row: `out[r]`.
    Argmax { logits: TensorId, out: TensorId, last_row: bool },
    /// Decode matvec over 1-4 INT4 matrices sharing `x`, with an optional
    /// RMSNorm prologue and a residual or SwiGLU epilogue (fusion passes).
    FusedMatvec(FusedMatvec),
    /// Decode attention fused with q/k norms, rope and the KV append.
    AttentionDecode(AttentionDecode),
    /// Causal depthwise conv1d + SiLU with a rolling state (Gated DeltaNet).
    CausalConv(CausalConv),
    /// Gated delta rule over the step's tokens, per-head state kept on the GPU.
    GatedDelta(GatedDelta),
    /// `rmsnorm(x) * w * silu(z)`.
    RmsNormGated(RmsNormGated),
    /// `x * sigmoid(gate)`.
    SigmoidGate(SigmoidGate),
    /// Per-head q and k RMSNorms in one dispatch (fusion pass).
    DualRmsNorm(DualRmsNorm),
    /// Batched decode attention: `AttentionDecode` for every activation row, row r being the new token of
    /// the sequence in KV slot `rows[2r]` at position `rows[2r + 1]`; the caches hold one
    /// [n_kv_heads, max_seq, head_dim] region per slot.
    AttentionRows { attn: AttentionDecode, rows: TensorId },
    /// LFM2 short convolution: `out = C * conv(B * x)` over `bcx` rows [B | C | x],
    /// the window's first L-1 rows coming from the rolling `state`.
    ShortConv(ShortConv),
    /// Shifts this step's B*x rows into the rolling conv `state` [L-1, dim].
    ConvStateUpdate { bcx: TensorId, state: TensorId, attrs: ConvAttrs },
    /// `sum = a + b; out = RMSNorm(sum)` (one row of `dim` per token): the
    /// residual add fused with the next norm, writing both.
    AddRmsNorm { a: TensorId, b: TensorId, weight: TensorId, sum: TensorId, out: TensorId, eps: f32, add_unit: bool },
    /// Decode: `AddRmsNorm` whose addend is a matvec's per-word partial rows (`sum = resid + the
    /// rows' sum`, in the plain matvec's order): the norm a decoder's last MLP feeds (`mlp_partials`).
    PartialsNorm(PartialsNorm),
    /// Two-stage argmax, stage 1: per block of `params::ARGMAX_BLOCK` logits, the best (value bits, index)
    /// pair into `partials` (rows as `Argmax` picks them). `Graph::argmax` emits both stages.
    ArgmaxBlocks { logits: TensorId, partials: TensorId, last_row: bool },
    /// Stage 2: the best of each partials row's blocks -> `out[row]` (`n`: the vocabulary).
    ArgmaxReduce { partials: TensorId, out: TensorId, n: usize },
    /// Splits each row of `x` into up to four outputs of consecutive columns (a projection
    /// concatenated at load, computed as one matmul; the `quad_matvec` pass fuses the two).
    SplitCols { x: TensorId, outs: Vec<TensorId> },
    /// Decode: norm + gate/up + SwiGLU + the down projection's per-word partials (`mlp_partials` pass).
    MlpPartials(MlpPartials),
    /// Decode attention + the head's per-word partials of o_proj (`attention_partials` pass).
    AttentionPartials { attn: AttentionDecode, o_proj: TensorId, partials: TensorId },
    /// Decode: the q / k / v matvec (`qkv`, whose three outputs are `attn`'s q, k, v and are not
    /// written) computed per head inside `AttentionPartials` (`attention_qkv` pass).
    AttentionQkv { qkv: FusedMatvec, attn: AttentionDecode, o_proj: TensorId, partials: TensorId },
    /// Decode: a dense layer in one dispatch (`decode_layer` pass).
    DecodeLayer(Box<DecodeLayer>),
}

/// `Op::DecodeLayer`: the q / k / v matvec (`qkv`, whose outputs are `attn`'s q, k, v), the attention
/// with o_proj's per-word partial rows (`o_partials`), and the MLP that sums them (`mlp`, whose
/// partial-row input is `o_partials` over the residual `qkv.x`). q, k, v, the attention's output and
/// `o_partials` stay inside the dispatch and are not written.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DecodeLayer {
    pub qkv: FusedMatvec,
    pub attn: AttentionDecode,
    pub o_proj: TensorId,
    pub o_partials: TensorId,
    pub mlp: MlpPartials,
}

/// Per-word partial rows of a matvec (`partials` [words, K]: row w is word w's 32-wide slice of the
/// matvec's K times the matching weights), summed with `resid` into a fused matvec's x in the plain
/// matvec's order, which also writes the sum to x.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct PartialsIn {
    pub partials: TensorId,
    pub words: usize,
    pub resid: TensorId,
}

/// `Op::PartialsNorm`: `sum = partials_in's resid + its rows' sum; out = RMSNorm(sum)`.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct PartialsNorm {
    pub partials_in: PartialsIn,
    pub weight: TensorId,
    pub sum: TensorId,
    pub out: TensorId,
    pub eps: f32,
    pub add_unit: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct MlpPartials {
    /// Input x, written (the sum) when `partials_in` is set.
    pub x: TensorId,
    pub partials_in: Option<PartialsIn>,
    pub norm: Option<NormPrologue>,
    pub gate: TensorId,
    pub up: TensorId,
    pub down: TensorId,
    /// [intermediate / 32, down outputs]: word w of the down projection's K per row.
    pub partials: TensorId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ConvAttrs {
    /// Channels (hidden size); `bcx` rows are 3 * dim wide.
    pub dim: usize,
    /// Kernel length L (the state keeps L - 1 rows).
    pub kernel: usize,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ShortConv {
    pub bcx: TensorId,
    /// Depthwise weights [dim, L].
    pub weight: TensorId,
    pub bias: Option<TensorId>,
    pub state: TensorId,
    pub out: TensorId,
    pub attrs: ConvAttrs,
    /// Also writes the shifted state (the `short_conv_state` fusion).
    pub update_state: bool,
    /// A batched decode step (with `update_state`): row r is one token of the sequence in slot
    /// `rows[2r]`, whose state is that slot's region of `state` ([slots][L-1][dim]).
    pub rows: Option<TensorId>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct NormPrologue {
    pub weight: TensorId,
    pub eps: f32,
    pub add_unit: bool,
}

#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct MatOut {
    pub w: TensorId,
    pub bias: Option<TensorId>,
    pub out: TensorId,
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum Epilogue {
    None,
    /// out of the single matrix = resid + W x.
    Residual(TensorId),
    /// `out` = silu(W0 x) * (W1 x); the two matrices' own outputs are not written.
    SwiGlu {
        out: TensorId,
    },
    /// The single matrix's output columns routed to up to four tensors, in order (the
    /// matrix's own `out` is not written): `SplitCols` folded into the matvec.
    Split([Option<TensorId>; 4]),
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct FusedMatvec {
    pub x: TensorId,
    pub norm: Option<NormPrologue>,
    /// Prologue x' = x * sigmoid(gate) (rows as wide as x); not with `norm`.
    pub gate: Option<TensorId>,
    /// x is computed from partial rows (and written) instead of read.
    pub partials_in: Option<PartialsIn>,
    pub mats: Vec<MatOut>,
    pub epilogue: Epilogue,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct AttentionDecode {
    pub q: TensorId,
    pub k: TensorId,
    pub v: TensorId,
    pub cos_sin: TensorId,
    /// Per-head q/k RMSNorm weights (Qwen3) and their eps.
    pub qk_norm: Option<(TensorId, TensorId, f32)>,
    pub k_cache: TensorId,
    pub v_cache: TensorId,
    pub out: TensorId,
    pub attrs: AttnShape,
    pub rope: RopeAttrs,
    pub scale: f32,
}

#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct RopeAttrs {
    pub n_q_heads: usize,
    pub n_kv_heads: usize,
    pub head_dim: usize,
    pub rotary_dim: usize,
    pub interleaved: bool,
    pub max_pos: usize,
}

#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct AttnShape {
    pub n_heads: usize,
    pub n_kv_heads: usize,
    pub head_dim: usize,
    pub max_seq: usize,
}

// Ops of the hybrid recurrent families (Qwen3.5's Gated DeltaNet and gated attention); their kernel
// selection is in hybrid.rs.

/// Causal depthwise conv1d over time + SiLU; `state` is a ring of each channel's last
/// `kernel` inputs (slot `pos % kernel` holds position `pos`), updated in place.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct CausalConv {
    pub x: TensorId,
    /// [channels, kernel] f32.
    pub weight: TensorId,
    /// [channels, kernel] f32 ring, read and written.
    pub state: TensorId,
    pub out: TensorId,
    pub channels: usize,
    pub kernel: usize,
}

/// A `CausalConv` folded into the decode `GatedDelta` that reads it (the `delta_conv` pass):
/// the delta kernel convolves the channels it reads from the raw `qkv`.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct DeltaConv {
    pub weight: TensorId,
    pub state: TensorId,
    pub kernel: usize,
}

#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct DeltaShape {
    pub k_heads: usize,
    pub v_heads: usize,
    pub dk: usize,
    pub dv: usize,
}

/// The gated delta rule over the step's tokens (recurrent form), l2-normed q/k,
/// beta = sigmoid(b), decay = exp(-exp(A_log) softplus(a + dt_bias)).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct GatedDelta {
    /// Conv output rows [q | k | v] (with `conv`: its input rows).
    pub qkv: TensorId,
    pub a: TensorId,
    pub b: TensorId,
    pub a_log: TensorId,
    pub dt_bias: TensorId,
    /// [v_heads, dk, dv], read and written.
    pub state: TensorId,
    pub out: TensorId,
    pub attrs: DeltaShape,
    pub conv: Option<DeltaConv>,
    /// A batched decode step (with `conv`): row r is one token of the sequence in slot `rows[2r]` at
    /// position `rows[2r + 1]`; both states hold one region per slot.
    pub rows: Option<TensorId>,
}

/// `out = rmsnorm(x) * w * silu(z)` over rows of `dim`.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct RmsNormGated {
    pub x: TensorId,
    pub z: TensorId,
    pub weight: TensorId,
    pub out: TensorId,
    pub dim: usize,
    pub rows_per_token: usize,
    pub eps: f32,
}

/// `out = x * sigmoid(gate)` (attention output gate).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct SigmoidGate {
    pub x: TensorId,
    pub gate: TensorId,
    pub out: TensorId,
}

impl CausalConv {
    pub fn reads(&self) -> Vec<TensorId> {
        vec![self.x, self.weight, self.state]
    }
    pub fn writes(&self) -> Vec<TensorId> {
        vec![self.state, self.out]
    }
}

impl GatedDelta {
    pub fn reads(&self) -> Vec<TensorId> {
        let mut r = vec![self.qkv, self.a, self.b, self.a_log, self.dt_bias, self.state];
        r.extend(self.conv.iter().flat_map(|c| [c.weight, c.state]));
        r.extend(self.rows);
        r
    }
    pub fn writes(&self) -> Vec<TensorId> {
        let mut w = vec![self.state, self.out];
        w.extend(self.conv.map(|c| c.state));
        w
    }
}

/// Two per-head RMSNorms (q and k) of one token in one dispatch.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct DualRmsNorm {
    pub q: TensorId,
    pub q_weight: TensorId,
    pub q_out: TensorId,
    pub q_rows: usize,
    pub k: TensorId,
    pub k_weight: TensorId,
    pub k_out: TensorId,
    pub k_rows: usize,
    pub dim: usize,
    pub eps: f32,
    pub add_unit: bool,
}

impl Op {
    pub fn reads(&self) -> Vec<TensorId> {
        match self {
            Op::Embed { tokens, table, .. } => vec![*tokens, *table],
            Op::RmsNorm { x, weight, .. } => vec![*x, *weight],
            Op::MatMul { x, w, bias, .. } => [Some(*x), Some(*w), *bias].into_iter().flatten().collect(),
            Op::Rope { q, k, cos_sin, rows, .. } => {
                [Some(*q), Some(*k), Some(*cos_sin), *rows].into_iter().flatten().collect()
            }
            Op::KvAppend { k, v, rows, .. } => [Some(*k), Some(*v), *rows].into_iter().flatten().collect(),
            Op::Attention { q, k_cache, v_cache, rows, .. } => {
                [Some(*q), Some(*k_cache), Some(*v_cache), *rows].into_iter().flatten().collect()
            }
            Op::SwiGlu { gate, up, .. } => vec![*gate, *up],
            Op::Add { a, b, .. } => vec![*a, *b],
            Op::Argmax { logits, .. } => vec![*logits],
            Op::FusedMatvec(f) => {
                let mut r = match f.partials_in {
                    Some(pi) => vec![pi.partials, pi.resid],
                    None => vec![f.x],
                };
                r.extend(f.norm.as_ref().map(|n| n.weight));
                r.extend(f.gate);
                if let Epilogue::Residual(t) = f.epilogue {
                    r.push(t);
                }
                for m in &f.mats {
                    r.push(m.w);
                    r.extend(m.bias);
                }
                r
            }
            Op::AttentionDecode(a) | Op::AttentionRows { attn: a, .. } => {
                let mut r = vec![a.q, a.k, a.v, a.cos_sin, a.k_cache, a.v_cache];
                if let Some((qn, kn, _)) = a.qk_norm {
                    r.extend([qn, kn]);
                }
                if let Op::AttentionRows { rows, .. } = self {
                    r.push(*rows);
                }
                r
            }
            Op::ShortConv(c) => {
                [Some(c.bcx), Some(c.weight), c.bias, Some(c.state), c.rows].into_iter().flatten().collect()
            }
            Op::ConvStateUpdate { bcx, state, .. } => vec![*bcx, *state],
            Op::AddRmsNorm { a, b, weight, .. } => vec![*a, *b, *weight],
            Op::PartialsNorm(n) => vec![n.partials_in.partials, n.partials_in.resid, n.weight],
            Op::CausalConv(c) => c.reads(),
            Op::GatedDelta(d) => d.reads(),
            Op::RmsNormGated(n) => vec![n.x, n.z, n.weight],
            Op::SigmoidGate(s) => vec![s.x, s.gate],
            Op::DualRmsNorm(n) => vec![n.q, n.q_weight, n.k, n.k_weight],
            Op::ArgmaxBlocks { logits, .. } => vec![*logits],
            Op::ArgmaxReduce { partials, .. } => vec![*partials],
            Op::SplitCols { x, .. } => vec![*x],
            Op::MlpPartials(m) => {
                let mut r = match m.partials_in {
                    Some(pi) => vec![pi.partials, pi.resid],
                    None => vec![m.x],
                };
                r.extend(m.norm.as_ref().map(|n| n.weight));
                r.extend([m.gate, m.up, m.down]);
                r
            }
            Op::AttentionPartials { attn, o_proj, .. } => {
                let mut r = Op::AttentionDecode(attn.clone()).reads();
                r.push(*o_proj);
                r
            }
            Op::AttentionQkv { qkv, attn, o_proj, .. } => {
                let mut r = Op::FusedMatvec(qkv.clone()).reads();
                let computed = [attn.q, attn.k, attn.v];
                r.extend(Op::AttentionDecode(attn.clone()).reads().into_iter().filter(|t| !computed.contains(t)));
                r.push(*o_proj);
                r
            }
            Op::DecodeLayer(l) => {
                let mut r = Op::AttentionQkv {
                    qkv: l.qkv.clone(),
                    attn: l.attn.clone(),
                    o_proj: l.o_proj,
                    partials: l.o_partials,
                }
                .reads();
                r.extend(Op::MlpPartials(l.mlp.clone()).reads().into_iter().filter(|t| *t != l.o_partials));
                r
            }
        }
    }

    pub fn writes(&self) -> Vec<TensorId> {
        match self {
            Op::Embed { out, .. }
            | Op::RmsNorm { out, .. }
            | Op::MatMul { out, .. }
            | Op::Attention { out, .. }
            | Op::SwiGlu { out, .. }
            | Op::Add { out, .. }
            | Op::Argmax { out, .. } => vec![*out],
            Op::Rope { q_out, k_out, .. } => vec![*q_out, *k_out],
            Op::KvAppend { k_cache, v_cache, .. } => vec![*k_cache, *v_cache],
            Op::FusedMatvec(f) => {
                let mut w: Vec<TensorId> = match f.epilogue {
                    Epilogue::SwiGlu { out } => vec![out],
                    Epilogue::Split(outs) => outs.into_iter().flatten().collect(),
                    _ => f.mats.iter().map(|m| m.out).collect(),
                };
                w.extend(f.partials_in.map(|_| f.x));
                w
            }
            Op::AttentionDecode(a) | Op::AttentionRows { attn: a, .. } => vec![a.k_cache, a.v_cache, a.out],
            Op::ShortConv(c) if c.update_state => vec![c.out, c.state],
            Op::ShortConv(c) => vec![c.out],
            Op::ConvStateUpdate { state, .. } => vec![*state],
            Op::AddRmsNorm { sum, out, .. } => vec![*sum, *out],
            Op::PartialsNorm(n) => vec![n.sum, n.out],
            Op::CausalConv(c) => c.writes(),
            Op::GatedDelta(d) => d.writes(),
            Op::RmsNormGated(n) => vec![n.out],
            Op::SigmoidGate(s) => vec![s.out],
            Op::DualRmsNorm(n) => vec![n.q_out, n.k_out],
            Op::ArgmaxBlocks { partials, .. } => vec![*partials],
            Op::ArgmaxReduce { out, .. } => vec![*out],
            Op::SplitCols { outs, .. } => outs.clone(),
            Op::MlpPartials(m) => {
                let mut w = vec![m.partials];
                w.extend(m.partials_in.map(|_| m.x));
                w
            }
            Op::AttentionPartials { attn, partials, .. } => vec![attn.k_cache, attn.v_cache, attn.out, *partials],
            Op::AttentionQkv { qkv, attn, partials, .. } => {
                let mut w = vec![attn.k_cache, attn.v_cache, attn.out, *partials];
                w.extend(qkv.partials_in.map(|_| qkv.x));
                w
            }
            Op::DecodeLayer(l) => {
                let mut w = vec![l.attn.k_cache, l.attn.v_cache];
                w.extend(l.qkv.partials_in.map(|_| l.qkv.x));
                w.extend(Op::MlpPartials(l.mlp.clone()).writes());
                w
            }
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Op::Embed { .. } => "embed",
            Op::RmsNorm { .. } => "rmsnorm",
            Op::MatMul { .. } => "matmul",
            Op::Rope { .. } => "rope",
            Op::KvAppend { .. } => "kv_append",
            Op::Attention { .. } => "attention",
            Op::SwiGlu { .. } => "swiglu",
            Op::Add { .. } => "add",
            Op::Argmax { .. } => "argmax",
            Op::FusedMatvec(_) => "fused_matvec",
            Op::AttentionDecode(_) => "attention_decode",
            Op::ShortConv(_) => "short_conv",
            Op::ConvStateUpdate { .. } => "conv_state_update",
            Op::AddRmsNorm { .. } => "add_rmsnorm",
            Op::PartialsNorm(_) => "partials_norm",
            Op::AttentionRows { .. } => "attention_rows",
            Op::CausalConv(_) => "causal_conv",
            Op::GatedDelta(_) => "gated_delta",
            Op::RmsNormGated(_) => "rmsnorm_gated",
            Op::SigmoidGate(_) => "sigmoid_gate",
            Op::DualRmsNorm(_) => "dual_rmsnorm",
            Op::ArgmaxBlocks { .. } => "argmax_blocks",
            Op::ArgmaxReduce { .. } => "argmax_reduce",
            Op::SplitCols { .. } => "split_cols",
            Op::MlpPartials(_) => "mlp_partials",
            Op::AttentionPartials { .. } => "attention_partials",
            Op::AttentionQkv { .. } => "attention_qkv",
            Op::DecodeLayer(_) => "decode_layer",
        }
    }
}

/// A model's computation for one step shape, in execution order.
#[derive(Debug, Default, Clone)]
pub struct Graph {
    pub tensors: Vec<TensorDesc>,
    pub ops: Vec<Op>,
    /// Activations read after the step (logits): never recycled.
    pub outputs: Vec<TensorId>,
    /// For each op, the ids of the builder's nodes it computes (several after fusion).
    pub node_ids: Vec<Vec<usize>>,
}

impl Graph {
    pub fn activation(&mut self, label: impl Into<String>, width: usize, rows: Rows) -> TensorId {
        self.add(label, Storage::Activation { width, rows })
    }

    pub fn bound(&mut self, label: impl Into<String>, t: Arc<DeviceTensor>) -> TensorId {
        self.add(label, Storage::Bound(t))
    }

    fn add(&mut self, label: impl Into<String>, storage: Storage) -> TensorId {
        self.tensors.push(TensorDesc { label: label.into(), storage });
        TensorId(self.tensors.len() as u32 - 1)
    }

    pub fn push(&mut self, op: Op) {
        self.node_ids.push(vec![self.ops.len()]);
        self.ops.push(op);
    }

    /// Greedy token(s) from `logits` into `out`, as `Op::Argmax` defines them, in two stages: blocks of
    /// the vocabulary on many workgroups, then one small reduction (a single workgroup scanning a 248k
    /// vocabulary was 6% of a Qwen3.5 decode step).
    pub fn argmax(&mut self, logits: TensorId, out: TensorId, last_row: bool) {
        let n = self.width(logits);
        let blocks = n.div_ceil(crate::gpu::params::ARGMAX_BLOCK);
        // Batched decode (a row per token, no last_row) keeps a partials row per token; a packed
        // prefill, one per output row.
        let rows = match &self.desc(logits).storage {
            Storage::Activation { rows: r @ (Rows::Tokens | Rows::Outputs), .. } if !last_row => *r,
            _ => Rows::One,
        };
        let partials = self.activation("argmax_partials", 2 * blocks, rows);
        self.push(Op::ArgmaxBlocks { logits, partials, last_row });
        self.push(Op::ArgmaxReduce { partials, out, n });
    }

    pub fn desc(&self, t: TensorId) -> &TensorDesc {
        &self.tensors[t.0 as usize]
    }

    /// Row width of an activation or a bound f32 tensor (panics otherwise: a builder bug).
    pub fn width(&self, t: TensorId) -> usize {
        match &self.desc(t).storage {
            Storage::Activation { width, .. } => *width,
            Storage::Bound(d) => match d.as_ref() {
                DeviceTensor::F32 { cols, .. } | DeviceTensor::Kv { cols, .. } => *cols,
                _ => panic!("tensor {} has no row width", self.desc(t).label),
            },
        }
    }
}
