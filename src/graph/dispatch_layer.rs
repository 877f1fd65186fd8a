//! Kernel choice for `Op::DecodeLayer` (part of `dispatch::select_one`): `decode_layer.wgsl`, a dense
//! decoder layer's decode step in one dispatch, its three phases (q / k / v, attention + o_proj
//! partial rows, the MLP) separated by grid barriers.

use super::dispatch_attention::{split_most, SPLIT_MIN_LOG2};
use super::dispatch_partials::{check_words, int4, qkv_attention, MAX_K};
use super::dispatch_spec::{bytes, Bind, Dim, DispatchSpec, Grid};
use super::ir::{DecodeLayer, Graph};
use crate::gpu::params::{self, attn_decode, fused};
use crate::gpu::KernelId;

/// The most workgroups the kernel's grid may hold: every one must be resident at once (the grid
/// barrier waits for all), so the grid stays within what a split attention dispatch runs.
pub const MAX_WORKGROUPS: u32 = super::dispatch_spec::SPLIT_MAX_WORKGROUPS;

/// `Op::DecodeLayer`. The shapes: K (the hidden width) at most 1024 and a multiple of 32, q / k / v
/// widths and the intermediate width multiples of 32, one scale group for every matrix, both norms
/// with one eps and one weight form, heads of a multiple of 32 lanes.
pub fn decode_layer(graph: &Graph, l: &DecodeLayer, max_rows: usize, index: usize) -> Result<DispatchSpec, String> {
    let (f, a, m) = (&l.qkv, &l.attn, &l.mlp);
    let s = a.attrs;
    let k = graph.width(f.x);
    let qa = qkv_attention(f, a, k, max_rows)?;
    let [mq, mk, mv] = f.mats[..] else { unreachable!("three outputs") };
    let (n1, Some(n2)) = (qa.norm, &m.norm) else { return Err("the MLP has no norm prologue".into()) };
    if n1.eps != n2.eps || n1.add_unit != n2.add_unit {
        return Err("the two norms differ in eps or weight form".into());
    }
    let (qw, kvw) = (s.n_heads * s.head_dim, s.n_kv_heads * s.head_dim);
    let (_, _, group) = int4(graph, mq.w)?;
    let expect = [(mq.w, qw, k), (mk.w, kvw, k), (mv.w, kvw, k), (l.o_proj, k, qw)];
    for (w, rows, cols) in expect {
        let (r, c, g) = int4(graph, w)?;
        if (r, c, g) != (rows, cols, group) {
            return Err(format!(
                "'{}' is [{r}, {c}] in groups of {g}, not [{rows}, {cols}] in {group}",
                graph.desc(w).label
            ));
        }
    }
    let (inter, _, _) = int4(graph, m.gate)?;
    for (w, rows, cols) in [(m.gate, inter, k), (m.up, inter, k), (m.down, k, inter)] {
        let (r, c, g) = int4(graph, w)?;
        if (r, c, g) != (rows, cols, group) {
            return Err(format!(
                "'{}' is [{r}, {c}] in groups of {g}, not [{rows}, {cols}] in {group}",
                graph.desc(w).label
            ));
        }
    }
    if !inter.is_multiple_of(32) || inter > MAX_K || qw > MAX_K {
        return Err(format!("intermediate {inter} or q width {qw} (multiples of 32, at most {MAX_K})"));
    }
    let Some(mpi) = &m.partials_in else { return Err("the MLP does not sum the o_proj rows".into()) };
    if (mpi.partials, mpi.words, mpi.resid) != (l.o_partials, qw / 32, f.x) {
        return Err("the MLP's partial rows are not this attention's o_proj rows over the layer's input".into());
    }
    check_words(graph, mpi, k, max_rows)?;
    if graph.width(m.partials) != (inter / 32) * k || graph.width(m.x) != k {
        return Err(format!("the MLP's partials are not {} rows of {k}", inter / 32));
    }
    let (qkv_wgs, mlp_wgs) = (((qw + 2 * kvw) / 32) as u32, (inter / 32) as u32);
    let heads = s.n_heads as u32;
    let most = split_most(s);
    let split_cap = if most <= 1 { 1 } else { most.min((MAX_WORKGROUPS / heads).max(1)) };
    // The attention workgroups come after these where the grid allows (Dim::LayerGrid).
    let at_least = qkv_wgs.max(mlp_wgs);
    if at_least.max(heads * split_cap) > MAX_WORKGROUPS {
        return Err(format!("a grid of {} workgroups (at most {MAX_WORKGROUPS})", at_least.max(heads * split_cap)));
    }

    let mut flags = fused::PARTIALS_IN | qa.flags;
    let (qn, kn, qk_eps) = (qa.q_norm, qa.k_norm, qa.qk_eps);
    if most > 1 {
        flags |= SPLIT_MIN_LOG2 << attn_decode::LAYER_SPLIT_SHIFT;
    }
    let (x, resid1, in_words) = match &f.partials_in {
        Some(pi) => {
            check_words(graph, pi, k, max_rows)?;
            (Bind::Tensor(pi.partials), Bind::Tensor(pi.resid), pi.words)
        }
        None => (Bind::Dummy, Bind::Dummy, 0),
    };
    flags |= (in_words as u32) << fused::PARTIALS_SHIFT;
    // The stash past the split records: q | k | v, then the o_proj rows.
    let stash_vec4s = (qw + 2 * kvw) / 4 + (qw / 32) * k / 4;
    let tickets = attn_decode::MAX_TICKETS as u32 * 4;
    let scratch = Bind::Scratch(tickets + (attn_decode::LAYER_STASH_VEC4S + stash_vec4s as u32) * 16);
    let mut b = vec![x, Bind::Tensor(n1.weight), resid1];
    for mat in &f.mats {
        b.extend([Bind::Q(mat.w), Bind::Sm(mat.w)]);
    }
    b.extend(f.mats.iter().map(|mat| mat.bias.map_or(Bind::Dummy, Bind::Tensor)));
    b.extend([Bind::Tensor(f.x), Bind::Tensor(a.cos_sin), qn, kn, Bind::Tensor(a.k_cache), Bind::Tensor(a.v_cache)]);
    b.extend([scratch, Bind::Q(l.o_proj), Bind::Sm(l.o_proj), Bind::Tensor(n2.weight)]);
    for w in [m.gate, m.up, m.down] {
        b.extend([Bind::Q(w), Bind::Sm(w)]);
    }
    b.extend([Bind::Tensor(m.partials), Bind::Tensor(m.x)]);
    let p = params::AttentionQkvParams {
        n0: qw as u32,
        n1: kvw as u32,
        n2: kvw as u32,
        k: k as u32,
        group: group as u32,
        flags,
        eps: n1.eps,
        n3: inter as u32,
        n_heads: heads,
        n_kv_heads: s.n_kv_heads as u32,
        head_dim: s.head_dim as u32,
        max_seq: s.max_seq as u32,
        scale: a.scale,
        rotary_dim: a.rope.rotary_dim as u32,
        split_cap,
        qk_eps,
    };
    let x_dim = if most <= 1 {
        Dim::Fixed(at_least)
    } else {
        Dim::LayerGrid { at_least, log2: SPLIT_MIN_LOG2, most: split_cap, max_seq: s.max_seq as u32, heads }
    };
    let grid = Grid { x: x_dim, y: Dim::Fixed(1) };
    Ok(DispatchSpec { kernel: KernelId::DecodeLayer, op_index: index, params: bytes(p), bindings: b, grid, flags })
}
