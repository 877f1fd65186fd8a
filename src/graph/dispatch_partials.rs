//! Kernel choice for the per-word partial sums (part of `dispatch::select_one`): a decode layer's
//! o_proj and down projection computed inside the kernels that produce their inputs (attention,
//! the MLP), one 32-wide word of K per partial row, and summed with the residual by the next
//! fused matvec's prologue in the plain matvec's lane order (`PARTIALS_IN`), so the bits are the
//! unfused plan's and the two projections cost no dispatch of their own.

use super::dispatch_attention as attention;
use super::dispatch_spec::{bytes, Bind, Dim, DispatchSpec, Grid};
use super::ir::{
    AttentionDecode, DeviceTensor, Epilogue, FusedMatvec, Graph, MlpPartials, NormPrologue, PartialsIn, PartialsNorm,
    Storage, TensorId,
};
use crate::gpu::params::{self, fused};
use crate::gpu::KernelId;

/// The deepest K whose sum the prologue holds in workgroup memory (`xsum` in matvec_int4_core.wgsl),
/// which is also where the plain matvec stops splitting K (so its lane order is words l, l + 32, ...).
pub const MAX_K: usize = 2048;

/// An INT4 [rows, cols] matrix's (rows, cols, group).
pub(super) fn int4(graph: &Graph, t: TensorId) -> Result<(usize, usize, usize), String> {
    match &graph.desc(t).storage {
        Storage::Bound(d) => match d.as_ref() {
            DeviceTensor::Int4 { rows, cols, group, .. } if group % 32 == 0 => Ok((*rows, *cols, *group)),
            _ => Err(format!("'{}' is not an INT4 matrix", graph.desc(t).label)),
        },
        _ => Err(format!("'{}' is not a weight", graph.desc(t).label)),
    }
}

/// Whether partial rows of a matvec over K words can meet in a consumer of width `k`.
pub(super) fn check_words(graph: &Graph, pi: &PartialsIn, k: usize, max_rows: usize) -> Result<(), String> {
    if max_rows != 1 {
        return Err("partial rows are summed in one-token plans only".into());
    }
    if k > MAX_K || !k.is_multiple_of(4) || pi.words == 0 || pi.words > 64 {
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
    max_rows: usize,
    mut spec: DispatchSpec,
) -> Result<DispatchSpec, String> {
    check_words(graph, pi, graph.width(x), max_rows)?;
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
pub fn mlp(graph: &Graph, m: &MlpPartials, max_rows: usize, index: usize) -> Result<DispatchSpec, String> {
    let k = graph.width(m.x);
    let (n_gate, kg, group) = int4(graph, m.gate)?;
    let (n_up, ku, gu) = int4(graph, m.up)?;
    let (n_out, kd, gd) = int4(graph, m.down)?;
    if kg != k || ku != k || n_up != n_gate || kd != n_gate || gu != group || gd != group {
        return Err(format!(
            "gate [{n_gate}, {kg}], up [{n_up}, {ku}], down [{n_out}, {kd}] do not chain from x ({k})"
        ));
    }
    if max_rows != 1 || k > MAX_K || n_gate % 32 != 0 || n_gate > MAX_K || n_out % 4 != 0 {
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
        check_words(graph, pi, k, max_rows)?;
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

/// `Op::PartialsNorm`: `partials_norm.wgsl`, one workgroup.
pub fn partials_norm(graph: &Graph, n: &PartialsNorm, max_rows: usize, index: usize) -> Result<DispatchSpec, String> {
    let (pi, k) = (&n.partials_in, graph.width(n.sum));
    check_words(graph, pi, k, max_rows)?;
    if graph.width(n.out) != k || graph.width(n.weight) != k {
        return Err(format!("sum, out and weight are not all {k} wide"));
    }
    let mut flags = fused::NORM | fused::PARTIALS_IN | (pi.words as u32) << fused::PARTIALS_SHIFT;
    if n.add_unit {
        flags |= fused::ADD_UNIT;
    }
    let p = params::FusedMatvecParams { k: k as u32, group: 32, flags, eps: n.eps, ..Default::default() };
    let bindings = [pi.partials, n.weight, pi.resid, n.sum, n.out].map(Bind::Tensor).to_vec();
    let grid = Grid { x: Dim::Fixed(1), y: Dim::Fixed(1) };
    Ok(DispatchSpec { kernel: KernelId::PartialsNorm, op_index: index, params: bytes(p), bindings, grid, flags })
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
    if k != s.n_heads * s.head_dim
        || !s.head_dim.is_multiple_of(32)
        || k > MAX_K
        || n_out % 4 != 0
        || n_out / 4 >= 1 << 13
    {
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

/// The deepest K `attention_qkv_o.wgsl` takes: x and the norm weights in 256 vec4s of workgroup
/// memory each, which keeps the kernel (the matvec core's and the attention's arrays together)
/// within 32 KB, the workgroup memory software Vulkan grants.
pub const QKV_MAX_K: usize = 1024;

/// Workgroup memory `attention_qkv_o.wgsl` may need (bytes, with the workgroup-memory reductions).
pub const QKV_WORKGROUP_BYTES: u32 = 32768;

/// What `attention_qkv_o.wgsl` and `decode_layer.wgsl` share: the q / k / v matvec `f` ahead of
/// one-token attention `a` inside one kernel, its checks and its flags.
pub(super) struct QkvAttention<'a> {
    pub norm: &'a NormPrologue,
    /// The matvec's norm form and biases, the attention's flags at `QKV_ATTN_SHIFT`.
    pub flags: u32,
    pub q_norm: Bind,
    pub k_norm: Bind,
    pub qk_eps: f32,
}

/// `f`'s outputs are `a`'s q, k, v; it has a norm prologue and no gate or epilogue; x is `k` wide
/// (a multiple of 32, at most QKV_MAX_K, one token); heads of a multiple of 32 lanes.
pub(super) fn qkv_attention<'a>(
    f: &'a FusedMatvec,
    a: &AttentionDecode,
    k: usize,
    max_rows: usize,
) -> Result<QkvAttention<'a>, String> {
    let s = a.attrs;
    let outs: Vec<TensorId> = f.mats.iter().map(|m| m.out).collect();
    if outs != [a.q, a.k, a.v] {
        return Err("the matvec's outputs are not the attention's q, k, v".into());
    }
    let Some(norm) = &f.norm else { return Err("the q / k / v matvec has no norm prologue".into()) };
    if f.gate.is_some() || f.epilogue != Epilogue::None {
        return Err("the q / k / v matvec has a gate prologue or an epilogue".into());
    }
    if max_rows != 1 || k > QKV_MAX_K || !k.is_multiple_of(32) {
        return Err(format!("input width {k} (a multiple of 32, at most {QKV_MAX_K}, one token)"));
    }
    if !s.head_dim.is_multiple_of(32)
        || s.head_dim > 256
        || !s.n_heads.is_multiple_of(s.n_kv_heads)
        || a.rope.rotary_dim > s.head_dim
    {
        return Err(format!("heads {} q / {} kv of {} unsupported", s.n_heads, s.n_kv_heads, s.head_dim));
    }
    let mut flags = if norm.add_unit { fused::ADD_UNIT } else { 0 };
    for (i, m) in f.mats.iter().enumerate() {
        if m.bias.is_some() {
            flags |= fused::BIAS0 << i;
        }
    }
    let mut attn = if a.rope.interleaved { params::attn_decode::INTERLEAVED } else { 0 };
    let (q_norm, k_norm, qk_eps) = match a.qk_norm {
        Some((qn, kn, e)) => {
            attn |= params::attn_decode::QK_NORM;
            (Bind::Tensor(qn), Bind::Tensor(kn), e)
        }
        None => (Bind::Dummy, Bind::Dummy, 0.0),
    };
    flags |= attn << params::attn_decode::QKV_ATTN_SHIFT;
    Ok(QkvAttention { norm, flags, q_norm, k_norm, qk_eps })
}

/// `Op::AttentionQkv`: `attention_qkv_o.wgsl`, one workgroup per q head.
pub fn attention_qkv(
    graph: &Graph,
    f: &FusedMatvec,
    a: &AttentionDecode,
    o_proj: TensorId,
    partials: TensorId,
    max_rows: usize,
    index: usize,
) -> Result<DispatchSpec, String> {
    let s = a.attrs;
    let k = graph.width(f.x);
    let qa = qkv_attention(f, a, k, max_rows)?;
    let [mq, mk, mv] = f.mats[..] else { unreachable!("three outputs") };
    let (nq, kq, group) = int4(graph, mq.w)?;
    let (nk, kk, gk) = int4(graph, mk.w)?;
    let (nv, kv, gv) = int4(graph, mv.w)?;
    let (n_out, ko, go) = int4(graph, o_proj)?;
    let (qw, kvw) = (s.n_heads * s.head_dim, s.n_kv_heads * s.head_dim);
    if (nq, nk, nv, kq, kk, kv, n_out, ko) != (qw, kvw, kvw, k, k, k, k, qw) || (gk, gv, go) != (group, group, group) {
        return Err(format!(
            "q [{nq}, {kq}], k [{nk}, {kk}], v [{nv}, {kv}], o_proj [{n_out}, {ko}] do not fit the heads"
        ));
    }
    if graph.width(partials) != (qw / 32) * n_out {
        return Err(format!("partials are not {} rows of {n_out}", qw / 32));
    }
    let mut flags = fused::NORM | fused::ONE_TOKEN | 3 << 8 | qa.flags;
    let (norm, qn, kn, qk_eps) = (qa.norm, qa.q_norm, qa.k_norm, qa.qk_eps);
    let mut b = vec![Bind::Tensor(f.x), Bind::Tensor(norm.weight), Bind::Dummy];
    let mut x_out = Bind::DummyOut;
    if let Some(pi) = &f.partials_in {
        check_words(graph, pi, k, max_rows)?;
        flags |= fused::PARTIALS_IN | (pi.words as u32) << fused::PARTIALS_SHIFT;
        b[0] = Bind::Tensor(pi.partials);
        b[2] = Bind::Tensor(pi.resid);
        x_out = Bind::Tensor(f.x);
    }
    for m in &f.mats {
        b.extend([Bind::Q(m.w), Bind::Sm(m.w)]);
    }
    b.extend(f.mats.iter().map(|m| m.bias.map_or(Bind::Dummy, Bind::Tensor)));
    b.extend([x_out, Bind::Tensor(a.cos_sin), qn, kn]);
    b.extend([a.k_cache, a.v_cache, a.out].map(Bind::Tensor));
    b.extend([Bind::Q(o_proj), Bind::Sm(o_proj), Bind::Tensor(partials)]);
    let p = params::AttentionQkvParams {
        n0: nq as u32,
        n1: nk as u32,
        n2: nv as u32,
        k: k as u32,
        group: group as u32,
        flags,
        eps: norm.eps,
        n3: n_out as u32,
        n_heads: s.n_heads as u32,
        n_kv_heads: s.n_kv_heads as u32,
        head_dim: s.head_dim as u32,
        max_seq: s.max_seq as u32,
        scale: a.scale,
        rotary_dim: a.rope.rotary_dim as u32,
        split_cap: 1,
        qk_eps,
    };
    let grid = Grid { x: Dim::Fixed(s.n_heads as u32), y: Dim::Fixed(1) };
    Ok(DispatchSpec { kernel: KernelId::AttentionQkvO, op_index: index, params: bytes(p), bindings: b, grid, flags })
}
