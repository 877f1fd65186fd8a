//! Two per-head RMSNorms with the same dim, eps and weight convention that
//! follow each other (q_norm then k_norm before rope) -> one `DualRmsNorm`.
//! Runs after attention_decode, which absorbs plain (Qwen3) q/k norms itself;
//! what is left are Qwen3.5's (1 + w) norms.

use super::{fuse, PassLimits, PassReport};
use crate::graph::hybrid::DualRmsNorm;
use crate::graph::ir::{Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "dual_rmsnorm", fused: 0, skipped: vec![] };
    let mut i = 0;
    while i < g.ops.len() {
        let Op::RmsNorm { x: q, weight: qw, out: qo, dim, rows_per_token: qr, eps, add_unit } = g.ops[i].clone() else {
            i += 1;
            continue;
        };
        // The next op, if it is a per-head norm of the same kind over another tensor.
        let pair = match g.ops.get(i + 1) {
            Some(&Op::RmsNorm { x: k, weight: kw, out: ko, dim: d2, rows_per_token: kr, eps: e2, add_unit: u2 })
                if qr > 1 && kr > 1 && d2 == dim && e2 == eps && u2 == add_unit && k != qo =>
            {
                Some((k, kw, ko, kr))
            }
            _ => None,
        };
        let Some((k, kw, ko, kr)) = pair else {
            i += 1;
            continue;
        };
        let op = Op::DualRmsNorm(DualRmsNorm {
            q,
            q_weight: qw,
            q_out: qo,
            q_rows: qr,
            k,
            k_weight: kw,
            k_out: ko,
            k_rows: kr,
            dim,
            eps,
            add_unit,
        });
        match fuse(g, &[i, i + 1], op, limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
        i += 1;
    }
    report
}
