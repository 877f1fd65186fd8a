//! Kernel choice for the per-word partial sums (part of `dispatch::select_one`): a decode layer's
//! o_proj and down projection computed inside the kernels that produce their inputs (attention,
//! the MLP), one 32-wide word of K per partial row, and summed with the residual by the next
//! fused matvec's prologue in the plain matvec's lane order (`PARTIALS_IN`), so the bits are the
//! unfused plan's and the two projections cost no dispatch of their own.

use super::dispatch::{bytes, Bind, Dim, DispatchSpec, Grid};
use super::dispatch_attention as attention;
use super::ir::{AttentionDecode, DeviceTensor, Graph, MlpPartials, PartialsIn, Storage, TensorId};
use crate::gpu::params::{self, fused};
use crate::gpu::KernelId;

/// The deepest K whose sum the prologue holds in workgroup memory (`xsum` in matvec_int4_core.wgsl),
/// which is also where the plain matvec stops splitting K (so its lane order is words l, l + 32, ...).
pub const MAX_K: usize = 2048;

/// An INT4 [rows, cols] matrix's (rows, cols, group).
fn int4(graph: &Graph, t: TensorId) -> Result<(usize, usize, usize), String> {
    match &graph.desc(t).storage {
        Storage::Bound(d) => match d.as_ref() {
            DeviceTensor::Int4 { rows, cols, group, .. } if group % 32 == 0 => Ok((*rows, *cols, *group)),
            _ => Err(format!("'{}' is not an INT4 matrix", graph.desc(t).label)),
        },
        _ => Err(format!("'{}' is not a weight", graph.desc(t).label)),
    }
}

/// Whether partial rows of a matvec over K words can meet in a consumer of width `k`.
fn check_words(graph: &Graph, pi: &PartialsIn, k: usize, max_tokens: usize) -> Result<(), String> {
    if max_tokens != 1 {
        return Err("partial rows are summed in one-token plans only".into());
    }
    if k > MAX_K || k % 4 != 0 || pi.words == 0 || pi.words > 64 {
        return Err(format!("{} partial rows of width {k} (at most 64 of at most {MAX_K})", pi.words));
    }
    if graph.width(pi.partials) != pi.words * k || graph.width(pi.resid) != k {
        return Err(format!("partials are not {} rows of {k}, or the residual is not {k} wide", pi.words));
    }
    Ok(())
}

/// A fused matvec with a `PARTIALS_IN` prologue: the plain spec with x's binding given to the
/// partial rows, the residual in the residual slot and the sum in the fourth output slot.
pub fn matvec_partials_in(
    graph: &Graph,
    pi: &PartialsIn,
    x: TensorId,
    n_mats: usize,
    residual_epilogue: bool,
    max_tokens: usize,
    mut spec: DispatchSpec,
) -> Result<DispatchSpec, String> {
    check_words(graph, pi, graph.width(x), max_tokens)?;
    if n_mats > 3 || residual_epilogue || spec.kernel != KernelId::MatvecFusedInt4 {
        return Err("a PARTIALS_IN matvec has at most three matrices and no residual epilogue".into());
    }
    spec.bindings[0] = Bind::Tensor(pi.partials);
    spec.bindings[2] = Bind::Tensor(pi.resid);
    *spec.bindings.last_mut().unwrap() = Bind::Tensor(x);
    spec.flags |= fused::PARTIALS_IN | (pi.words as u32) << fused::PARTIALS_SHIFT;
    let mut p: params::FusedMatvecParams = bytemuck::pod_read_unaligned(&spec.params);
    p.flags = spec.flags;
    spec.params = bytes(p);
    Ok(spec)
}

/// `Op::MlpPartials`: `matvec_mlp_int4.wgsl`.
pub fn mlp(graph: &Graph, m: &MlpPartials, max_tokens: usize, index: usize) -> Result<DispatchSpec, String> {
    let k = graph.width(m.x);
    let (n_gate, kg, group) = int4(graph, m.gate)?;
    let (n_up, ku, gu) = int4(graph, m.up)?;
    let (n_out, kd, gd) = int4(graph, m.down)?;
    if kg != k || ku != k || n_up != n_gate || kd != n_gate || gu != group || gd != group {
        return Err(format!(
            "gate [{n_gate}, {kg}], up [{n_up}, {ku}], down [{n_out}, {kd}] do not chain from x ({k})"
        ));
    }
    if max_tokens != 1 || k > MAX_K || n_gate % 32 != 0 || n_gate > MAX_K || n_out % 4 != 0 {
        return Err(format!("intermediate {n_gate} / input {k} / output {n_out} unsupported (one token)"));
    }
    if graph.width(m.partials) != (n_gate / 32) * n_out {
        return Err(format!("partials are not {} rows of {n_out}", n_gate / 32));
    }
    let mut p = params::FusedMatvecParams {
        n0: n_gate as u32,
        n1: n_up as u32,
        n2: n_out as u32,
        k: k as u32,
        group: group as u32,
        ..Default::default()
    };
    let mut b = vec![Bind::Tensor(m.x)];
    match &m.norm {
        Some(n) => {
            p.flags |= fused::NORM | if n.add_unit { fused::ADD_UNIT } else { 0 };
            p.eps = n.eps;
            b.push(Bind::Tensor(n.weight));
        }
        None => b.push(Bind::Dummy),
    }
    b.push(Bind::Dummy);
    for w in [m.gate, m.up, m.down] {
        b.extend([Bind::Q(w), Bind::Sm(w)]);
    }
    b.extend([Bind::Tensor(m.partials), Bind::DummyOut]);
    if let Some(pi) = &m.partials_in {
        check_words(graph, pi, k, max_tokens)?;
        p.flags |= fused::PARTIALS_IN | (pi.words as u32) << fused::PARTIALS_SHIFT;
        b[0] = Bind::Tensor(pi.partials);
        b[2] = Bind::Tensor(pi.resid);
        b[10] = Bind::Tensor(m.x);
    }
    let grid = Grid { x: Dim::Fixed((n_gate / 32) as u32), y: Dim::Fixed(1) };
    Ok(DispatchSpec {
        kernel: KernelId::MatvecMlpInt4,
        op_index: index,
        params: bytes(p),
        bindings: b,
        grid,
        flags: p.flags,
    })
}

/// `Op::AttentionPartials`: `attention_decode.wgsl`'s `attention_decode_o`.
pub fn attention_o(
    graph: &Graph,
    a: &AttentionDecode,
    o_proj: TensorId,
    partials: TensorId,
    index: usize,
) -> Result<DispatchSpec, String> {
    let s = a.attrs;
    let (n_out, k, group) = int4(graph, o_proj)?;
    if k != s.n_heads * s.head_dim || s.head_dim % 32 != 0 || k > MAX_K || n_out % 4 != 0 || n_out / 4 >= 1 << 13 {
        return Err(format!("o_proj [{n_out}, {k}] with head_dim {} unsupported", s.head_dim));
    }
    if !matches!(group, 32 | 64 | 128) || graph.width(partials) != (k / 32) * n_out {
        return Err(format!("group {group} or partials width unsupported"));
    }
    let mut spec = attention::decode(a, None, index)?;
    spec.kernel = KernelId::AttentionDecodeO;
    spec.flags |= (group / 32).trailing_zeros() << params::attn_decode::O_GROUP_SHIFT
        | ((n_out / 4) as u32) << params::attn_decode::O_QUADS_SHIFT;
    let mut p: params::AttentionDecodeParams = bytemuck::pod_read_unaligned(&spec.params);
    p.flags = spec.flags;
    spec.params = bytes(p);
    spec.bindings.extend([Bind::Q(o_proj), Bind::Sm(o_proj), Bind::Tensor(partials)]);
    Ok(spec)
}
