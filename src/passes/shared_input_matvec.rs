//! Decode matmuls over INT4 weights become `FusedMatvec`s; up to four that
//! read the same input (q/k/v, gate/up, Qwen3.5's q/gate/k/v) share one dispatch,
//! so x is read once and one launch replaces four.

use super::{fuse, PassLimits, PassReport};
use crate::graph::ir::{DeviceTensor, Epilogue, FusedMatvec, Graph, MatOut, Op, Storage, TensorId};

fn int4_shape(g: &Graph, w: TensorId) -> Option<(usize, usize)> {
    match &g.desc(w).storage {
        Storage::Bound(d) => match d.as_ref() {
            DeviceTensor::Int4 { cols, group, .. } => Some((*cols, *group)),
            _ => None,
        },
        _ => None,
    }
}

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "shared_input_matvec", fused: 0, skipped: vec![] };
    let mut done: Vec<TensorId> = Vec::new();
    // A matvec of the step's last row alone (a prefill's lm_head) stays a matmul where a step has
    // several rows: `FusedMatvec` computes every row. In a one-token graph the last row is the row.
    let convertible = |op: &Op| match op {
        Op::MatMul { last_row, .. } => limits.one_token || !*last_row,
        _ => false,
    };
    // The first unconverted INT4 matmul, and its siblings on the same input.
    while let Some(first) = g.ops.iter().position(|op| {
        convertible(op) && matches!(op, Op::MatMul { w, out, .. } if int4_shape(g, *w).is_some() && !done.contains(out))
    }) {
        let Op::MatMul { x, w, .. } = g.ops[first] else { unreachable!() };
        let shape = int4_shape(g, w);
        let group: Vec<usize> = g
            .ops
            .iter()
            .enumerate()
            // Skip siblings already tried: with five or more siblings and a failed
            // fuse, re-taking the same four would loop forever.
            .filter(|(_, op)| {
                convertible(op)
                    && matches!(op, Op::MatMul { x: x2, w: w2, out: o2, .. }
                    if *x2 == x && int4_shape(g, *w2) == shape && !done.contains(o2))
            })
            .map(|(i, _)| i)
            .take(4)
            .collect();
        let mats: Vec<MatOut> = group
            .iter()
            .map(|&i| match g.ops[i] {
                Op::MatMul { w, bias, out, .. } => MatOut { w, bias, out },
                _ => unreachable!(),
            })
            .collect();
        done.extend(mats.iter().map(|m| m.out));
        let op = Op::FusedMatvec(FusedMatvec {
            x,
            norm: None,
            gate: None,
            partials_in: None,
            mats: mats.clone(),
            epilogue: Epilogue::None,
        });
        let result = fuse(g, &group, op.clone(), limits).or_else(|e| {
            // Siblings could not share a dispatch: still lower each alone.
            report.skipped.push(e);
            for m in mats.iter().rev() {
                let i = g.ops.iter().position(|o| matches!(o, Op::MatMul { out, .. } if *out == m.out)).unwrap();
                let single = Op::FusedMatvec(FusedMatvec {
                    x,
                    norm: None,
                    gate: None,
                    partials_in: None,
                    mats: vec![*m],
                    epilogue: Epilogue::None,
                });
                fuse(g, &[i], single, limits)?;
            }
            Ok::<(), String>(())
        });
        match result {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
