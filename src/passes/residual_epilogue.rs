//! A one-matrix fused matvec whose output only feeds a residual add -> the
//! add becomes the matvec's epilogue (o_proj and down_proj in a decoder).

use super::{fuse, internal, readers, PassLimits, PassReport};
use crate::graph::ir::{Epilogue, Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "residual_epilogue", fused: 0, skipped: vec![] };
    let adds: Vec<_> = g
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::Add { out, .. } => Some(*out),
            _ => None,
        })
        .collect();
    for out in adds {
        let Some(ai) = g.ops.iter().position(|op| matches!(op, Op::Add { out: o, .. } if *o == out)) else { continue };
        let Op::Add { a, b, .. } = g.ops[ai] else { continue };
        // Which operand comes from a single-matrix fused matvec?
        let found = [(b, a), (a, b)].into_iter().find_map(|(y, resid)| {
            let fi = g.ops.iter().position(|op| {
                matches!(op, Op::FusedMatvec(f) if f.mats.len() == 1 && f.mats[0].out == y && f.epilogue == Epilogue::None)
            })?;
            (readers(g, y) == [ai] && internal(g, y, &[ai]) && y != resid).then_some((fi, resid))
        });
        let Some((fi, resid)) = found else { continue };
        let Op::FusedMatvec(mut f) = g.ops[fi].clone() else { continue };
        f.epilogue = Epilogue::Residual(resid);
        f.mats[0].out = out;
        match fuse(g, &[fi, ai], Op::FusedMatvec(f), limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
