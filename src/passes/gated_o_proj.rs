//! `out = x * sigmoid(gate)` feeding one fused matvec -> the matvec's prologue
//! (Qwen3.5's attention output gate before o_proj): the kernel gates each x
//! value as it loads it, so the gated vector is never written and one launch goes.

use super::{fuse, internal, readers, PassLimits, PassReport};
use crate::graph::ir::{Epilogue, Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "gated_o_proj", fused: 0, skipped: vec![] };
    let gated: Vec<_> = g
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::SigmoidGate(s) => Some(s.out),
            _ => None,
        })
        .collect();
    for y in gated {
        let Some(si) = g.ops.iter().position(|op| matches!(op, Op::SigmoidGate(s) if s.out == y)) else { continue };
        let Op::SigmoidGate(s) = g.ops[si] else { continue };
        let r = readers(g, y);
        let [ri] = r[..] else {
            report.skipped.push(format!("sigmoid gate at op {si} has {} readers", r.len()));
            continue;
        };
        let Op::FusedMatvec(mut f) = g.ops[ri].clone() else {
            report.skipped.push(format!("sigmoid gate at op {si} does not feed a fused matvec"));
            continue;
        };
        if f.x != y || f.norm.is_some() || f.gate.is_some() || matches!(f.epilogue, Epilogue::Split(_)) {
            report.skipped.push(format!("the matvec at op {ri} already has a prologue"));
            continue;
        }
        if !internal(g, y, &[ri]) {
            continue;
        }
        f.x = s.x;
        f.gate = Some(s.gate);
        match fuse(g, &[si, ri], Op::FusedMatvec(f), limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
