//! Ops of the hybrid recurrent families (Qwen3.5's Gated DeltaNet and gated
//! attention): their kernel selection, kept apart from the dense ops so families
//! can be added without editing one long match. Their typed attributes live in
//! ir.rs with every other op's (`Op` names them) and are re-exported here.

use super::dispatch_spec::{Bind, Dim, DispatchSpec, Grid, SelectError};
use super::ir::{DeviceTensor, Graph, Storage, TensorId};
use crate::gpu::params;
use crate::gpu::KernelId;

pub use super::ir::{CausalConv, DeltaConv, DeltaShape, DualRmsNorm, GatedDelta, RmsNormGated, SigmoidGate};

fn bytes<T: bytemuck::Pod>(v: T) -> Vec<u8> {
    bytemuck::bytes_of(&v).to_vec()
}

fn f32_len(graph: &Graph, t: TensorId) -> Option<usize> {
    match &graph.desc(t).storage {
        Storage::Bound(d) => match d.as_ref() {
            DeviceTensor::F32 { len, .. } => Some(*len),
            _ => None,
        },
        Storage::Activation { .. } => None,
    }
}

fn spec(kernel: KernelId, index: usize, params: Vec<u8>, bindings: Vec<Bind>, grid: Grid) -> DispatchSpec {
    DispatchSpec { kernel, op_index: index, params, bindings, grid, flags: 0 }
}

pub fn select_conv(graph: &Graph, index: usize, c: &CausalConv) -> Result<DispatchSpec, SelectError> {
    let err = |msg: String| SelectError::Shape { index, op: "causal_conv", msg };
    if c.kernel < 1 || c.kernel > 8 {
        return Err(err(format!("conv kernel {} (1-8 supported)", c.kernel)));
    }
    if graph.width(c.x) != c.channels || graph.width(c.out) != c.channels {
        return Err(err(format!("x/out widths are not {} channels", c.channels)));
    }
    if f32_len(graph, c.weight) != Some(c.channels * c.kernel) {
        return Err(err(format!("conv weight is not an f32 [{}, {}]", c.channels, c.kernel)));
    }
    if f32_len(graph, c.state) != Some(c.channels * c.kernel) {
        return Err(err(format!("conv state is not an f32 [{}, {}]", c.channels, c.kernel)));
    }
    let p = params::ConvParams { channels: c.channels as u32, kernel: c.kernel as u32, ..Default::default() };
    let b = [c.x, c.weight, c.state, c.out].map(Bind::Tensor).to_vec();
    let grid = Grid { x: Dim::Fixed(c.channels.div_ceil(64) as u32), y: Dim::Fixed(1) };
    Ok(spec(KernelId::CausalConv, index, bytes(p), b, grid))
}

/// Decode plans (one token) run the recurrent kernel; prefill plans the chunked one.
pub fn select_delta(graph: &Graph, index: usize, d: &GatedDelta, max_rows: usize) -> Result<DispatchSpec, SelectError> {
    let err = |msg: String| SelectError::Shape { index, op: "gated_delta", msg };
    let s = d.attrs;
    if s.k_heads == 0 || !s.v_heads.is_multiple_of(s.k_heads) || s.dk > 256 || s.dk == 0 || s.dv == 0 {
        return Err(err(format!("unsupported heads: {} k / {} v, dk {}", s.k_heads, s.v_heads, s.dk)));
    }
    if graph.width(d.qkv) != 2 * s.k_heads * s.dk + s.v_heads * s.dv || graph.width(d.out) != s.v_heads * s.dv {
        return Err(err("qkv/out widths do not match the heads".into()));
    }
    if graph.width(d.a) != s.v_heads || graph.width(d.b) != s.v_heads {
        return Err(err("a/b widths are not v_heads".into()));
    }
    // A batched step's states hold one region per slot.
    let regions = |len: Option<usize>, one: usize| len.is_some_and(|n| n == one || (d.rows.is_some() && n % one == 0));
    if !regions(f32_len(graph, d.state), s.v_heads * s.dk * s.dv) {
        return Err(err("delta state is not an f32 [v_heads, dk, dv] (per slot)".into()));
    }
    let p =
        params::DeltaParams { k_heads: s.k_heads as u32, v_heads: s.v_heads as u32, dk: s.dk as u32, dv: s.dv as u32 };
    let b = [d.qkv, d.a, d.b, d.a_log, d.dt_bias, d.state, d.out].map(Bind::Tensor).to_vec();
    if max_rows > 1 && d.rows.is_none() {
        if d.conv.is_some() {
            // gated_delta_conv.wgsl reads the window from the ring alone: one token per step.
            return Err(err("a fused conv needs a one-token (decode) plan".into()));
        }
        // gated_delta_chunked.wgsl: DVB = 32 value columns per workgroup.
        let grid = Grid { x: Dim::Fixed(s.v_heads as u32), y: Dim::Fixed(s.dv.div_ceil(32) as u32) };
        return Ok(spec(KernelId::GatedDeltaChunked, index, bytes(p), b, grid));
    }
    // gated_delta.wgsl: 32 value columns per workgroup.
    let grid = Grid { x: Dim::Fixed(s.v_heads as u32), y: Dim::Fixed(s.dv.div_ceil(32) as u32) };
    let conv = match (d.conv, d.rows) {
        (None, None) => return Ok(spec(KernelId::GatedDelta, index, bytes(p), b, grid)),
        (None, Some(_)) => return Err(err("a batched step's delta rule folds its conv in".into())),
        (Some(c), _) => c,
    };
    let channels = 2 * s.k_heads * s.dk + s.v_heads * s.dv;
    if conv.kernel < 1 || conv.kernel > 15 {
        return Err(err(format!("conv kernel {} (1-15 supported)", conv.kernel)));
    }
    let ring = channels * conv.kernel;
    if f32_len(graph, conv.weight) != Some(ring) || !regions(f32_len(graph, conv.state), ring) {
        return Err(err(format!("conv weight/state are not f32 [{channels}, {}]", conv.kernel)));
    }
    let mut b = b;
    b.extend([Bind::Tensor(conv.weight), Bind::Tensor(conv.state)]);
    let (kernel, grid) = match d.rows {
        Some(rows) => {
            b.push(Bind::Tensor(rows));
            // gated_delta_conv_rows: the column blocks of every row along y.
            let y = Dim::Tokens { mul: s.dv.div_ceil(32) as u32, div: 1 };
            (KernelId::GatedDeltaConvRows, Grid { x: Dim::Fixed(s.v_heads as u32), y })
        }
        None => (KernelId::GatedDeltaConv, grid),
    };
    // The conv width is the pipeline constant FLAGS of gated_delta_conv.wgsl.
    Ok(DispatchSpec { flags: conv.kernel as u32, ..spec(kernel, index, bytes(p), b, grid) })
}

pub fn select_norm_gated(graph: &Graph, index: usize, n: &RmsNormGated) -> Result<DispatchSpec, SelectError> {
    let w = graph.width(n.x);
    if w != n.dim * n.rows_per_token || graph.width(n.z) != w || graph.width(n.out) != w {
        return Err(SelectError::Shape {
            index,
            op: "rmsnorm_gated",
            msg: format!("width {w} is not {} rows of {}", n.rows_per_token, n.dim),
        });
    }
    let p =
        params::RmsNormParams { dim: n.dim as u32, rows_per_token: n.rows_per_token as u32, eps: n.eps, add_unit: 0 };
    let grid = Grid { x: Dim::Tokens { mul: n.rows_per_token as u32, div: 1 }, y: Dim::Fixed(1) };
    Ok(spec(KernelId::RmsNormGated, index, bytes(p), [n.x, n.z, n.weight, n.out].map(Bind::Tensor).to_vec(), grid))
}

pub fn select_sigmoid_gate(graph: &Graph, index: usize, s: &SigmoidGate) -> Result<DispatchSpec, SelectError> {
    let w = graph.width(s.out);
    if graph.width(s.x) != w || graph.width(s.gate) != w {
        return Err(SelectError::Shape { index, op: "sigmoid_gate", msg: "x/gate/out widths differ".into() });
    }
    let p = params::EltwiseParams { width: w as u32, ..Default::default() };
    let grid = Grid { x: Dim::Fixed(w.div_ceil(256) as u32), y: Dim::TOKENS };
    Ok(spec(KernelId::SigmoidGate, index, bytes(p), [s.x, s.gate, s.out].map(Bind::Tensor).to_vec(), grid))
}

pub fn select_dual_norm(graph: &Graph, index: usize, n: &DualRmsNorm) -> Result<DispatchSpec, SelectError> {
    let (wq, wk) = (graph.width(n.q), graph.width(n.k));
    if wq != n.dim * n.q_rows || wk != n.dim * n.k_rows || graph.width(n.q_out) != wq || graph.width(n.k_out) != wk {
        return Err(SelectError::Shape { index, op: "dual_rmsnorm", msg: "q/k widths do not match their rows".into() });
    }
    let p = params::DualNormParams {
        dim: n.dim as u32,
        q_rows: n.q_rows as u32,
        k_rows: n.k_rows as u32,
        add_unit: n.add_unit as u32,
        eps: n.eps,
        ..Default::default()
    };
    let grid = Grid { x: Dim::Tokens { mul: (n.q_rows + n.k_rows) as u32, div: 1 }, y: Dim::Fixed(1) };
    let b = [n.q, n.q_weight, n.k, n.k_weight, n.q_out, n.k_out].map(Bind::Tensor).to_vec();
    Ok(spec(KernelId::DualRmsNorm, index, bytes(p), b, grid))
}
