//! A residual add whose sum feeds an RMSNorm -> one `AddRmsNorm` writing both
//! the sum (the residual stream, still read later) and the normed row. Runs
//! after norm_matvec (when that is on, the norm is already a matvec prologue
//! and nothing is left here) and before residual_epilogue (which would
//! otherwise take the add and leave the norm as its own dispatch).

use super::{fuse, readers, PassLimits, PassReport};
use crate::graph::ir::{Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "add_rmsnorm", fused: 0, skipped: vec![] };
    let sums: Vec<_> = g
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::Add { out, .. } => Some(*out),
            _ => None,
        })
        .collect();
    for sum in sums {
        let Some(ai) = g.ops.iter().position(|op| matches!(op, Op::Add { out, .. } if *out == sum)) else { continue };
        let Op::Add { a, b, .. } = g.ops[ai] else { continue };
        // The first reader of the sum must be a one-row-per-token norm over its full width.
        let Some(&ni) = readers(g, sum).first() else { continue };
        let Op::RmsNorm { x, weight, out, dim, rows_per_token: 1, eps, add_unit } = g.ops[ni] else { continue };
        if x != sum || dim != g.width(sum) {
            continue;
        }
        let op = Op::AddRmsNorm { a, b, weight, sum, out, eps, add_unit };
        match fuse(g, &[ai, ni], op, limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
