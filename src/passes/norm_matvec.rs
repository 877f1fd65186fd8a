//! RMSNorm feeding one fused matvec -> the matvec's prologue. The kernel
//! already reads all of x per workgroup, so the sum of squares costs no
//! extra memory traffic and the normed vector is never written.

use super::{fuse, internal, readers, PassLimits, PassReport};
use crate::graph::ir::{Graph, NormPrologue, Op};

/// Widest matvec that takes the norm as its prologue. Every workgroup recomputes the norm
/// (a K-long sum and a barrier tree) for its 32 columns; over a vocabulary (SmolLM2's lm_head:
/// 1536 workgroups, several waves) that repeated prologue cost more than the dispatch it saves.
const MAX_COLUMNS: usize = 16384;

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "norm_matvec", fused: 0, skipped: vec![] };
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
        let r = readers(g, xn);
        let [ri] = r[..] else {
            report.skipped.push(format!("norm at op {ni} has {} readers", r.len()));
            continue;
        };
        let Op::FusedMatvec(mut f) = g.ops[ri].clone() else { continue };
        if f.x != xn || f.norm.is_some() || !internal(g, xn, &[ri]) {
            continue;
        }
        let columns: usize = f.mats.iter().map(|m| g.width(m.out)).sum();
        if columns > MAX_COLUMNS {
            report.skipped.push(format!("norm at op {ni} feeds {columns} columns (> {MAX_COLUMNS})"));
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
