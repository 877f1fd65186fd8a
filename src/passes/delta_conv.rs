//! The causal conv feeding a decode gated delta rule -> part of the delta kernel
//! (Qwen3.5's DeltaNet front): each delta workgroup convolves the q/k/v channels it
//! reads, its window from the conv state ring, so the conv output is never written
//! and one launch per DeltaNet layer goes.

use super::{fuse, internal, writer, PassLimits, PassReport};
use crate::graph::hybrid::DeltaConv;
use crate::graph::ir::{Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "delta_conv", fused: 0, skipped: vec![] };
    let deltas: Vec<_> = g
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::GatedDelta(d) if d.conv.is_none() => Some(d.out),
            _ => None,
        })
        .collect();
    for out in deltas {
        let Some(di) = g.ops.iter().position(|op| matches!(op, Op::GatedDelta(d) if d.out == out)) else { continue };
        let Op::GatedDelta(mut d) = g.ops[di].clone() else { continue };
        let Some(ci) = writer(g, d.qkv) else { continue };
        let Op::CausalConv(c) = g.ops[ci] else { continue };
        if !internal(g, c.out, &[di]) {
            report.skipped.push(format!("conv output at op {ci} has other readers"));
            continue;
        }
        d.qkv = c.x;
        d.conv = Some(DeltaConv { weight: c.weight, state: c.state, kernel: c.kernel });
        match fuse(g, &[ci, di], Op::GatedDelta(d), limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
