//! o_proj folded into decode attention: [attention] [o_proj + residual] [norm + matvec or MLP]
//! -> [attention + this head's per-word partial rows of o_proj] [partials + residual + norm + ...].
//! Head h owns o_proj's K words h * head_dim / 32 ..; the consumer adds the rows in the plain
//! matvec's lane order (bit-identical to the unfused plan under the workgroup-memory group_sum, to
//! rounding under subgroupAdd) and o_proj costs no
//! dispatch of its own. Plain o_proj only (Qwen3.5's gated one keeps its own matvec).

use super::partials::{consumer, feed, partials_tensor, residual_matvec, run_pass, unfeed};
use super::{fuse, internal, readers, PassLimits, PassReport};
use crate::graph::ir::{Graph, Op, PartialsIn};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    run_pass(g, limits, "attention_partials", try_at)
}

fn try_at(g: &mut Graph, ai: usize, limits: &PassLimits) -> Result<(), Option<String>> {
    let Op::AttentionDecode(attn) = &g.ops[ai] else { return Err(None) };
    let attn = attn.clone();
    let [oi] = readers(g, attn.out)[..] else { return Err(None) };
    let Some((o_proj, resid, h)) = residual_matvec(&g.ops[oi], attn.out) else { return Err(None) };
    if !internal(g, attn.out, &[oi]) {
        return Err(None);
    }
    let Some(ci) = consumer(g, oi, h) else { return Err(None) };
    let k = g.width(attn.out);
    if attn.attrs.head_dim % 32 != 0 {
        return Err(Some(format!("head_dim {} is not a multiple of 32", attn.attrs.head_dim)));
    }
    let partials = partials_tensor(g, "o_partials", k / 32, g.width(h));
    let before = feed(g, ci, PartialsIn { partials, words: k / 32, resid }, limits).map_err(Some)?;
    let op = Op::AttentionPartials { attn, o_proj, partials };
    if let Err(e) = fuse(g, &[ai, oi], op, limits) {
        unfeed(g, ci, before);
        return Err(Some(e));
    }
    Ok(())
}
