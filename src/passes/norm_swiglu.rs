//! RMSNorm feeding a gate/up matvec with a SwiGLU epilogue -> the matvec's
//! norm prologue: the gate/up case of norm_matvec, which leaves matvecs with
//! an epilogue alone, so the feed-forward half of a layer is one dispatch.

use super::{fuse, internal, readers, PassLimits, PassReport};
use crate::graph::ir::{Epilogue, Graph, NormPrologue, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "norm_swiglu", fused: 0, skipped: vec![] };
    let norms: Vec<_> = g
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::RmsNorm { out, rows_per_token: 1, .. } => Some(*out),
            _ => None,
        })
        .collect();
    for xn in norms {
        let Some(ni) = g.ops.iter().position(|op| matches!(op, Op::RmsNorm { out, .. } if *out == xn)) else {
            continue;
        };
        let Op::RmsNorm { x, weight, eps, add_unit, .. } = g.ops[ni] else { continue };
        let [ri] = readers(g, xn)[..] else { continue };
        let Op::FusedMatvec(mut f) = g.ops[ri].clone() else { continue };
        if f.x != xn || f.norm.is_some() || !matches!(f.epilogue, Epilogue::SwiGlu { .. }) || !internal(g, xn, &[ri]) {
            continue;
        }
        f.x = x;
        f.norm = Some(NormPrologue { weight, eps, add_unit });
        match fuse(g, &[ni, ri], Op::FusedMatvec(f), limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
