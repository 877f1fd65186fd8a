//! The down projection folded into the feed-forward kernel: [norm + gate/up + SwiGLU]
//! [down + residual] [next norm + matvec] -> [norm + gate/up + SwiGLU + the down projection's
//! per-word partial rows] [partials + residual + norm + matvec]. The consumer adds the partial
//! rows in the plain matvec's lane order (bit-identical to the unfused plan under the workgroup-memory
//! group_sum, to rounding under subgroupAdd: see partials_tree in matvec_int4_core.wgsl), and
//! a layer's down projection costs no dispatch. The last layer's feeds the final norm instead:
//! [.. + down] [add_rmsnorm] -> [.. + the down projection's partial rows] [partials_norm].

use super::partials::{consumer, feed, norm_after_matvec, partials_tensor, residual_matvec, run_pass, unfeed};
use super::{fuse, internal, readers, PassLimits, PassReport};
use crate::graph::dispatch_partials::MAX_K;
use crate::graph::ir::{Epilogue, Graph, MlpPartials, Op, PartialsIn};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    run_pass(g, limits, "mlp_partials", try_at)
}

/// Err(None): not this pattern; Err(Some(reason)): the pattern, refused.
fn try_at(g: &mut Graph, ai: usize, limits: &PassLimits) -> Result<(), Option<String>> {
    let Op::FusedMatvec(f) = &g.ops[ai] else { return Err(None) };
    let Epilogue::SwiGlu { out: s } = f.epilogue else { return Err(None) };
    if f.gate.is_some() || f.mats.len() != 2 || f.mats.iter().any(|m| m.bias.is_some()) {
        return Err(None);
    }
    let f = f.clone();
    let [bi] = readers(g, s)[..] else { return Err(None) };
    if !internal(g, s, &[bi]) {
        return Err(None);
    }
    // The consumer: the next layer's norm + matvec (or MLP) reading h = resid + down, or the final
    // norm adding down to resid.
    let (down, resid, ci) = if let Some((down, resid, h)) = residual_matvec(&g.ops[bi], s) {
        let Some(ci) = consumer(g, bi, h) else { return Err(None) };
        (down, resid, ci)
    } else if let Some(found) = norm_after_matvec(g, bi, s) {
        found
    } else {
        return Err(None);
    };
    let inter = g.width(s);
    let out = g.width(resid);
    if !inter.is_multiple_of(32) || inter > MAX_K {
        return Err(Some(format!("intermediate width {inter} (a multiple of 32, at most {MAX_K})")));
    }
    let partials = partials_tensor(g, "down_partials", inter / 32, out);
    let op = Op::MlpPartials(MlpPartials {
        x: f.x,
        partials_in: f.partials_in,
        norm: f.norm.clone(),
        gate: f.mats[0].w,
        up: f.mats[1].w,
        down,
        partials,
    });
    // The consumer first (it may refuse), then the producer.
    let before = feed(g, ci, PartialsIn { partials, words: inter / 32, resid }, limits).map_err(Some)?;
    if let Err(e) = fuse(g, &[ai, bi], op, limits) {
        unfeed(g, ci, before);
        return Err(Some(e));
    }
    Ok(())
}
