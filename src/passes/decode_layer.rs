//! A dense decoder layer's decode step in one dispatch: [norm + q/k/v matvec (+ partial rows)]
//! [attention + o_proj partial rows] [MLP + down partial rows] -> decode_layer.wgsl, whose three
//! phases meet at grid barriers instead of dispatch boundaries (the matvec core's and the attention
//! core's arithmetic, so fused and unfused plans agree to the bit under the workgroup-memory
//! group_sum). Needs the partial-row passes before it, 32 KB of workgroup memory, and an adapter
//! that runs grid barriers (`PassLimits::grid_barrier`: gpu/grid_probe.rs measures it).

use super::partials::run_pass;
use super::{fuse, internal, readers, writer, PassLimits, PassReport};
use crate::graph::dispatch_partials::QKV_WORKGROUP_BYTES;
use crate::graph::ir::{DecodeLayer, Epilogue, Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    run_pass(g, limits, "decode_layer", try_at)
}

fn try_at(g: &mut Graph, ai: usize, limits: &PassLimits) -> Result<(), Option<String>> {
    let Op::AttentionPartials { attn, o_proj, partials } = &g.ops[ai] else { return Err(None) };
    let (attn, o_proj, o_partials) = (attn.clone(), *o_proj, *partials);
    let Some(mi) = writer(g, attn.q) else { return Err(None) };
    let Op::FusedMatvec(f) = &g.ops[mi] else { return Err(None) };
    let f = f.clone();
    let outs: Vec<_> = f.mats.iter().map(|m| m.out).collect();
    if outs != [attn.q, attn.k, attn.v] || f.norm.is_none() || f.gate.is_some() || f.epilogue != Epilogue::None {
        return Err(None);
    }
    let [ci] = readers(g, o_partials)[..] else { return Err(None) };
    let Op::MlpPartials(m) = &g.ops[ci] else { return Err(None) };
    let m = m.clone();
    if m.partials_in.map(|pi| pi.partials) != Some(o_partials) {
        return Err(None);
    }
    let inside = [attn.q, attn.k, attn.v, attn.out, o_partials];
    if !inside.iter().all(|t| internal(g, *t, &[ai, ci])) {
        return Err(None);
    }
    if !limits.grid_barrier {
        return Err(Some("the adapter failed the grid-barrier probe (gpu/grid_probe.rs)".into()));
    }
    if limits.max_workgroup_storage < QKV_WORKGROUP_BYTES {
        return Err(Some(format!(
            "the device grants {} bytes of workgroup memory, the kernel needs {QKV_WORKGROUP_BYTES}",
            limits.max_workgroup_storage
        )));
    }
    let op = Op::DecodeLayer(Box::new(DecodeLayer { qkv: f, attn, o_proj, o_partials, mlp: m }));
    fuse(g, &[mi, ai, ci], op, limits).map_err(Some)
}
