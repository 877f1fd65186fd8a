//! A two-matrix fused matvec (gate, up) whose outputs only feed a SwiGLU ->
//! SwiGLU epilogue: the intermediate gate/up vectors are never written.

use super::{fuse, internal, PassLimits, PassReport};
use crate::graph::ir::{Epilogue, Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "swiglu_epilogue", fused: 0, skipped: vec![] };
    let outs: Vec<_> = g
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::SwiGlu { out, .. } => Some(*out),
            _ => None,
        })
        .collect();
    for out in outs {
        let Some(si) = g.ops.iter().position(|op| matches!(op, Op::SwiGlu { out: o, .. } if *o == out)) else {
            continue;
        };
        let Op::SwiGlu { gate, up, .. } = g.ops[si] else { continue };
        let is_pair = |op: &Op| {
            matches!(op, Op::FusedMatvec(f) if f.mats.len() == 2 && f.epilogue == Epilogue::None
                && f.mats.iter().any(|m| m.out == gate) && f.mats.iter().any(|m| m.out == up))
        };
        let Some(fi) = g.ops.iter().position(is_pair) else { continue };
        let Op::FusedMatvec(mut f) = g.ops[fi].clone() else { continue };
        if f.mats[0].out != gate {
            f.mats.swap(0, 1);
        }
        if !internal(g, gate, &[si]) || !internal(g, up, &[si]) {
            report.skipped.push(format!("gate/up of op {fi} read elsewhere"));
            continue;
        }
        f.epilogue = Epilogue::SwiGlu { out };
        match fuse(g, &[fi, si], Op::FusedMatvec(f), limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
