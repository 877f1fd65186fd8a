//! A matvec over a matrix concatenated at load whose output is only split into
//! parts (`SplitCols`: Qwen3.5's Gated DeltaNet in_proj qkv | a | b | z) -> one
//! dispatch writing each part to its own tensor. x is read once, four separate
//! projections' launches become one, and no concatenated output is written.

use super::{fuse, internal, readers, PassLimits, PassReport};
use crate::graph::ir::{DeviceTensor, Epilogue, FusedMatvec, Graph, MatOut, Op, Storage, TensorId};

fn is_int4(g: &Graph, w: TensorId) -> bool {
    matches!(&g.desc(w).storage, Storage::Bound(d) if matches!(d.as_ref(), DeviceTensor::Int4 { .. }))
}

/// The matvec (plain, or a lone fused one with nothing fused yet) writing `y`: (op index, x, weight).
fn matvec_writing(g: &Graph, y: TensorId) -> Option<(usize, TensorId, TensorId)> {
    g.ops.iter().enumerate().find_map(|(i, op)| match op {
        Op::MatMul { x, w, bias: None, out, last_row: false } if *out == y && is_int4(g, *w) => Some((i, *x, *w)),
        Op::FusedMatvec(f)
            if f.mats.len() == 1
                && f.mats[0].out == y
                && f.mats[0].bias.is_none()
                && f.norm.is_none()
                && f.gate.is_none()
                && f.epilogue == Epilogue::None =>
        {
            Some((i, f.x, f.mats[0].w))
        }
        _ => None,
    })
}

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "quad_matvec", fused: 0, skipped: vec![] };
    let splits: Vec<TensorId> = g
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::SplitCols { x, outs } if outs.len() <= 4 => Some(*x),
            _ => None,
        })
        .collect();
    for proj in splits {
        let Some(si) = g.ops.iter().position(|op| matches!(op, Op::SplitCols { x, .. } if *x == proj)) else {
            continue;
        };
        let Op::SplitCols { outs, .. } = g.ops[si].clone() else { continue };
        let Some((mi, x, w)) = matvec_writing(g, proj) else {
            report.skipped.push(format!("split at op {si}: its input is not a lone INT4 matvec"));
            continue;
        };
        if readers(g, proj) != [si] || !internal(g, proj, &[si]) {
            report.skipped.push(format!("split at op {si}: the projection has other readers"));
            continue;
        }
        let mut routed = [None; 4];
        for (slot, o) in routed.iter_mut().zip(&outs) {
            *slot = Some(*o);
        }
        let op = Op::FusedMatvec(FusedMatvec {
            x,
            norm: None,
            gate: None,
            partials_in: None,
            mats: vec![MatOut { w, bias: None, out: proj }],
            epilogue: Epilogue::Split(routed),
        });
        match fuse(g, &[mi, si], op, limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
