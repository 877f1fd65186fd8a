//! What kernel selection produces: one dispatch spec per op (kernel, uniform params, ordered
//! bindings, grid), and the helpers every selector shares. The selectors (dispatch.rs and its
//! dispatch_*.rs / hybrid.rs parts) build on this file; it names none of them.

use super::ir::{DeviceTensor, Graph, Rows, Storage, TensorId};
use crate::gpu::{KernelId, KvLayout};

/// One grid dimension: fixed, or derived from the step's token count M as ceil(M * mul / div).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Dim {
    Fixed(u32),
    Tokens {
        mul: u32,
        div: u32,
    },
    /// ceil(outputs * mul / div) for the step's output rows (`Rows::Outputs`, `Plan::set_outputs`);
    /// resolves as `Tokens` where no output count is known (an upper bound: outputs <= tokens).
    Outputs {
        mul: u32,
        div: u32,
    },
    /// The flash-decoding splits decode attention needs at the step's context
    /// (attention_decode.wgsl's `split_of`): 1 up to twice 2^log2 positions, then one a run of
    /// 2^log2, at most `most`, and at most SPLIT_MAX_WORKGROUPS workgroups in all. A short context
    /// launches one workgroup a head. `per_row` (batched decode): n_tokens rows of that many each,
    /// sized for the batch's longest context.
    KvSplits {
        log2: u32,
        most: u32,
        max_seq: u32,
        heads: u32,
        per_row: bool,
    },
    /// A decode layer kernel's grid (decode_layer.wgsl): `at_least` workgroups (its q / k / v and MLP
    /// ones) and then one per head and split as `KvSplits` (one row) sizes them, so the attention
    /// workgroups (the grid's last) are apart from the MLP ones and request their MLP weights
    /// before the first barrier. Where both do not fit in `SPLIT_MAX_WORKGROUPS`, the attention
    /// workgroups overlap the others (max of the two). SmolLM2 on the H200: apart, 1361-1462 tok/s;
    /// overlapping, 1104-1273 in two modes run to run.
    LayerGrid {
        at_least: u32,
        log2: u32,
        most: u32,
        max_seq: u32,
        heads: u32,
    },
}

/// The most workgroups a split decode attention dispatch runs (heads x rows x splits). The kernel
/// keeps cache rows and o_proj weights in registers, so an SM holds one of its workgroups; past one
/// per SM a second wave costs (the H200 has 132 SMs: at context 2000, 17 splits of 9 heads, 153
/// workgroups, measured 20 us a layer; capped to 14 splits, 126 workgroups, 14.5 us). wgpu does
/// not report SM counts.
pub const SPLIT_MAX_WORKGROUPS: u32 = 128;

/// A decode layer grid of `others` q / k / v and MLP workgroups and `attn` attention ones: apart
/// where they fit, else overlapping (`Dim::LayerGrid`).
fn layer_grid(others: u32, attn: u32) -> u32 {
    if others + attn <= SPLIT_MAX_WORKGROUPS {
        others + attn
    } else {
        others.max(attn)
    }
}

impl Dim {
    pub const TOKENS: Dim = Dim::Tokens { mul: 1, div: 1 };

    /// The size for a step of `n_tokens` tokens after which the cache holds `kv_len` positions.
    pub fn resolve(self, n_tokens: u32, kv_len: u32) -> u32 {
        match self {
            Dim::Fixed(v) => v,
            Dim::Tokens { mul, div } | Dim::Outputs { mul, div } => (n_tokens * mul).div_ceil(div),
            Dim::KvSplits { log2, most, max_seq, heads, per_row } => {
                let len = kv_len.min(max_seq);
                let rows = if per_row { n_tokens.max(1) } else { 1 };
                let splits = if len <= 2 << log2 {
                    1
                } else {
                    len.div_ceil(1 << log2).min(most).min((SPLIT_MAX_WORKGROUPS / (heads * rows)).max(1))
                };
                rows * splits
            }
            Dim::LayerGrid { at_least, log2, most, max_seq, heads } => {
                let splits = Dim::KvSplits { log2, most, max_seq, heads, per_row: false }.resolve(1, kv_len);
                layer_grid(at_least, heads * splits)
            }
        }
    }

    /// The largest size any step resolves to (for reports and the residency check). A layer grid
    /// is not monotonic in the context (apart, then overlapping), so every split count is tried.
    pub fn most(self, n_tokens: u32) -> u32 {
        match self {
            Dim::LayerGrid { at_least, most, heads, .. } => {
                let cap = most.min((SPLIT_MAX_WORKGROUPS / heads).max(1));
                (1..=cap).map(|splits| layer_grid(at_least, heads * splits)).max().unwrap_or(at_least)
            }
            _ => self.resolve(n_tokens, u32::MAX),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Grid {
    pub x: Dim,
    pub y: Dim,
}

/// What fills one storage binding slot (bindings 2.. in WGSL order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Bind {
    Tensor(TensorId),
    /// The packed nibbles of an INT4 tensor.
    Q(TensorId),
    /// The (scale, offset) pairs of an INT4 tensor.
    Sm(TensorId),
    /// A placeholder for an absent optional input (e.g. no bias).
    Dummy,
    /// The block table of the paged KV cache bound as this tensor.
    KvTable(TensorId),
    /// A placeholder for an unused output (a separate buffer: one buffer may
    /// not be bound read-only and writable in the same dispatch).
    DummyOut,
    /// The plan's scratch for split decode attention, of at least this many bytes (one buffer
    /// for every dispatch of the plan, which run one after another; zeroed when created).
    Scratch(u32),
    /// The plan's Step buffer, writable (`ArgmaxReduceAdvance`); binding 1 of that dispatch then
    /// holds a one-token copy, since one buffer cannot be bound as uniform and storage together.
    Step,
    /// The plan's log of sampled tokens by position (`Plan::token_log`).
    TokenLog,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct DispatchSpec {
    pub kernel: KernelId,
    pub op_index: usize,
    #[serde(skip)]
    pub params: Vec<u8>,
    pub bindings: Vec<Bind>,
    pub grid: Grid,
    /// Flag bits compiled into the pipeline (kernels with `override FLAGS`).
    pub flags: u32,
}

/// The value type and addressing of the KV cache a dispatch binds (every cache a dispatch binds has
/// one layout: a model's caches are allocated together); contiguous f32 for kernels without one.
pub fn cache_layout(graph: &Graph, spec: &DispatchSpec) -> KvLayout {
    if !spec.kernel.source().kv_cache {
        return KvLayout::default();
    }
    spec.bindings
        .iter()
        .find_map(|b| match b {
            Bind::Tensor(t) => bound(graph, *t).and_then(DeviceTensor::kv_layout),
            _ => None,
        })
        .unwrap_or_default()
}

#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    #[error("op {index} ({op}): {msg}")]
    Shape { index: usize, op: &'static str, msg: String },
}

pub(super) fn bytes<T: bytemuck::Pod>(v: T) -> Vec<u8> {
    bytemuck::bytes_of(&v).to_vec()
}

pub(super) fn bound(graph: &Graph, t: TensorId) -> Option<&DeviceTensor> {
    match &graph.desc(t).storage {
        Storage::Bound(d) => Some(d),
        Storage::Activation { .. } => None,
    }
}

/// `grid`'s row dimension for an output of `rows` rows: a dimension that follows the step's tokens
/// follows its output rows instead where the output has a row per output (`Rows::Outputs`).
pub(super) fn rows_grid(grid: Grid, rows: Rows) -> Grid {
    let follow = |d: Dim| match (d, rows) {
        (Dim::Tokens { mul, div }, Rows::Outputs) => Dim::Outputs { mul, div },
        _ => d,
    };
    Grid { x: follow(grid.x), y: follow(grid.y) }
}

pub(super) fn rows_of(graph: &Graph, t: TensorId) -> Rows {
    match &graph.desc(t).storage {
        Storage::Activation { rows, .. } => *rows,
        Storage::Bound(_) => Rows::One,
    }
}

#[cfg(test)]
mod tests {
    use super::Dim;

    /// SmolLM2's decode layer: 48 MLP workgroups, 9 heads, splits of 128 positions past 256, at most
    /// 8. The attention workgroups come after the MLP ones at every context (48 + 9 x splits <= 128).
    #[test]
    fn layer_grid_keeps_attention_apart_where_it_fits() {
        let g = Dim::LayerGrid { at_least: 48, log2: 7, most: 8, max_seq: 8192, heads: 9 };
        assert_eq!(g.resolve(1, 100), 48 + 9);
        assert_eq!(g.resolve(1, 300), 48 + 9 * 3);
        assert_eq!(g.resolve(1, 8192), 48 + 9 * 8);
        assert_eq!(g.most(1), 120);
    }

    /// 96 MLP workgroups and 16 heads: apart at one split (112), overlapping at 3 or more (contexts
    /// past 256 split 3 ways at least), where the grid shrinks back to the larger of the two.
    #[test]
    fn layer_grid_overlaps_where_apart_does_not_fit() {
        let g = Dim::LayerGrid { at_least: 96, log2: 7, most: 8, max_seq: 8192, heads: 16 };
        assert_eq!(g.resolve(1, 100), 112);
        assert_eq!(g.resolve(1, 300), 96);
        assert_eq!(g.resolve(1, 500), 96);
        assert_eq!(g.resolve(1, 8192), 128);
        assert_eq!(g.most(1), 128);
        let g = Dim::LayerGrid { at_least: 120, log2: 7, most: 2, max_seq: 8192, heads: 16 };
        assert_eq!((g.resolve(1, 100), g.resolve(1, 8192), g.most(1)), (120, 120, 120));
    }
}
