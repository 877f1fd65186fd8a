//! The q / k / v matvec folded into decode attention: [norm + qkv matvec (+ partial rows)]
//! [attention + o_proj partials] -> one dispatch, each head's workgroup computing its q head's and
//! its kv head's columns (the matvec core's lane layout and sums, so no bit changes) before its
//! attention. A decode layer is then two dispatches: this and the MLP. Needs the o_proj partials
//! (`attention_partials`) and 32 KB of workgroup memory; the kernel's own shape checks (K at most
//! 1024, ...) refuse the rest through `fuse`.
//! Opt-in: slower than the two dispatches on the H200 (see attention_qkv_o.wgsl). Its attention
//! runs one workgroup per head at every context, where the dispatches it replaces split contexts
//! past 256 positions (attention_decode.wgsl): equal to those to the bit up to 256, to rounding past.

use super::partials::run_pass;
use super::{fuse, internal, readers, PassLimits, PassReport};
use crate::graph::dispatch_partials::QKV_WORKGROUP_BYTES;
use crate::graph::ir::{Epilogue, Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    run_pass(g, limits, "attention_qkv", try_at)
}

fn try_at(g: &mut Graph, mi: usize, limits: &PassLimits) -> Result<(), Option<String>> {
    let Op::FusedMatvec(f) = &g.ops[mi] else { return Err(None) };
    let f = f.clone();
    let [q, k, v] = [0, 1, 2].map(|i| f.mats.get(i).map(|m| m.out));
    let (Some(q), Some(k), Some(v)) = (q, k, v) else { return Err(None) };
    if f.mats.len() != 3 || f.norm.is_none() || f.gate.is_some() || f.epilogue != Epilogue::None {
        return Err(None);
    }
    let [ai] = readers(g, q)[..] else { return Err(None) };
    let Op::AttentionPartials { attn, o_proj, partials } = &g.ops[ai] else { return Err(None) };
    if (attn.q, attn.k, attn.v) != (q, k, v) || [q, k, v].iter().any(|t| !internal(g, *t, &[ai])) {
        return Err(None);
    }
    if limits.max_workgroup_storage < QKV_WORKGROUP_BYTES {
        return Err(Some(format!(
            "the device grants {} bytes of workgroup memory, the kernel needs {QKV_WORKGROUP_BYTES}",
            limits.max_workgroup_storage
        )));
    }
    let op = Op::AttentionQkv { qkv: f, attn: attn.clone(), o_proj: *o_proj, partials: *partials };
    fuse(g, &[mi, ai], op, limits).map_err(Some)
}
