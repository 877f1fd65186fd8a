//! What the two partial-sum passes share: finding the fused matvec (or MLP) that consumes a
//! residual sum next, and handing it the partial rows to add in its prologue.

use super::{PassLimits, PassReport};
use crate::graph::dispatch;
use crate::graph::ir::{
    DeviceTensor, Epilogue, FusedMatvec, Graph, Op, PartialsIn, PartialsNorm, Rows, Storage, TensorId,
};

/// A single-matrix fused matvec of `x` with no prologue or bias (its epilogue is the caller's to check).
fn single_matvec(op: &Op, x: TensorId) -> Option<&FusedMatvec> {
    match op {
        Op::FusedMatvec(f)
            if f.x == x
                && f.mats.len() == 1
                && f.mats[0].bias.is_none()
                && f.norm.is_none()
                && f.gate.is_none()
                && f.partials_in.is_none() =>
        {
            Some(f)
        }
        _ => None,
    }
}

/// A single-matrix fused matvec `h = resid + W x` with no prologue or bias: (W, resid, h).
pub(crate) fn residual_matvec(op: &Op, x: TensorId) -> Option<(TensorId, TensorId, TensorId)> {
    let f = single_matvec(op, x)?;
    match f.epilogue {
        Epilogue::Residual(r) if r != x => Some((f.mats[0].w, r, f.mats[0].out)),
        _ => None,
    }
}

/// A single-matrix fused matvec `d = W x` with no prologue, bias or epilogue whose only reader is
/// an `AddRmsNorm` adding it to another tensor (a decoder's last down projection and final norm):
/// (W, the other addend, the norm's index).
pub(crate) fn norm_after_matvec(g: &Graph, bi: usize, x: TensorId) -> Option<(TensorId, TensorId, usize)> {
    let f = single_matvec(&g.ops[bi], x)?;
    if f.epilogue != Epilogue::None {
        return None;
    }
    let d = f.mats[0].out;
    let [ni] = super::readers(g, d)[..] else { return None };
    let Op::AddRmsNorm { a, b, .. } = g.ops[ni] else { return None };
    let resid = match (a == d, b == d) {
        (true, false) => b,
        (false, true) => a,
        _ => return None,
    };
    // Nothing between the matvec and the norm may write the residual.
    if (bi + 1..ni).any(|i| g.ops[i].writes().contains(&resid)) || !super::internal(g, d, &[ni]) {
        return None;
    }
    Some((f.mats[0].w, resid, ni))
}

/// Most workgroups a consumer may have. Every workgroup of the consumer sums all the partial rows
/// (K x words floats from L2, like the norm prologue it precedes): on the H200, SmolLM2's 30- and
/// 48-workgroup consumers gained (decode 858 -> 925 tok/s with both passes), while the ~300-workgroup
/// gate/up matvecs of Qwen2.5 and LFM2 (28 and 32 rows of 896 and 1024 each) lost 1-4%.
const MAX_CONSUMER_WORKGROUPS: usize = 64;

/// Workgroups of a fused matvec (32 columns each, 16 gate/up pairs with SwiGLU) or an MLP kernel
/// (None: not INT4 weights, so no such kernel).
fn workgroups(g: &Graph, op: &Op) -> Option<usize> {
    let rows = |w: TensorId| match &g.desc(w).storage {
        Storage::Bound(d) => match d.as_ref() {
            DeviceTensor::Int4 { rows, .. } => Some(*rows),
            _ => None,
        },
        _ => None,
    };
    match op {
        Op::FusedMatvec(f) if matches!(f.epilogue, Epilogue::SwiGlu { .. }) => Some(rows(f.mats[0].w)?.div_ceil(16)),
        Op::FusedMatvec(f) => Some(f.mats.iter().map(|m| rows(m.w)).sum::<Option<usize>>()?.div_ceil(32)),
        Op::MlpPartials(m) => Some(rows(m.gate)? / 32),
        _ => None,
    }
}

/// The first op after `after` that reads `h`, if it is a norm-prologue matvec or an MLP that can
/// take `h` as partial rows plus a residual instead (and no op in between writes `h`), with at most
/// MAX_CONSUMER_WORKGROUPS workgroups.
pub(crate) fn consumer(g: &Graph, after: usize, h: TensorId) -> Option<usize> {
    if g.outputs.contains(&h) {
        return None;
    }
    let ci = (after + 1..g.ops.len()).find(|&i| g.ops[i].reads().contains(&h) || g.ops[i].writes().contains(&h))?;
    let ok = match &g.ops[ci] {
        Op::FusedMatvec(f) => {
            f.x == h
                && f.norm.is_some()
                && f.gate.is_none()
                && f.partials_in.is_none()
                && f.mats.len() <= 3
                && !matches!(f.epilogue, Epilogue::Residual(_) | Epilogue::Split(_))
        }
        Op::MlpPartials(m) => m.x == h && m.partials_in.is_none(),
        _ => false,
    };
    (ok && workgroups(g, &g.ops[ci]).is_some_and(|n| n <= MAX_CONSUMER_WORKGROUPS)).then_some(ci)
}

/// The partial rows tensor for a matvec of `words` K-words and `width` outputs.
pub(crate) fn partials_tensor(g: &mut Graph, label: &str, words: usize, width: usize) -> TensorId {
    g.activation(label, words * width, Rows::One)
}

/// Gives the consumer at `ci` the partial rows (an `AddRmsNorm` becomes a `PartialsNorm` of
/// `pi.resid` and the rows); refuses (leaving it unchanged) where its dispatch would not be valid
/// or would exceed the storage limit. Returns the op it replaced, for `unfeed`.
pub(crate) fn feed(g: &mut Graph, ci: usize, pi: PartialsIn, limits: &PassLimits) -> Result<Op, String> {
    let op = match &g.ops[ci] {
        Op::FusedMatvec(f) => Op::FusedMatvec(FusedMatvec { partials_in: Some(pi), ..f.clone() }),
        Op::MlpPartials(m) => {
            let mut m = m.clone();
            m.partials_in = Some(pi);
            Op::MlpPartials(m)
        }
        &Op::AddRmsNorm { weight, sum, out, eps, add_unit, .. } => {
            Op::PartialsNorm(PartialsNorm { partials_in: pi, weight, sum, out, eps, add_unit })
        }
        other => return Err(format!("{} cannot take partial rows", other.name())),
    };
    let spec = dispatch::select_one(g, ci, &op, 1, limits.max_storage_buffers_per_stage).map_err(|e| e.to_string())?;
    if spec.bindings.len() as u32 > limits.max_storage_buffers_per_stage {
        return Err(format!("{} needs {} storage buffers", op.name(), spec.bindings.len()));
    }
    Ok(std::mem::replace(&mut g.ops[ci], op))
}

/// Puts back the op `feed` replaced at `ci` (its producer could not be fused after all).
pub(crate) fn unfeed(g: &mut Graph, ci: usize, before: Op) {
    g.ops[ci] = before;
}

/// What a partial-sum pass tries at one op: Ok (fused), Err(None) (not its pattern), Err(Some(why)) (refused).
pub(crate) type TryAt = fn(&mut Graph, usize, &PassLimits) -> Result<(), Option<String>>;

/// Runs a partial-sum pass over a one-token graph (they leave batched graphs alone).
pub(crate) fn run_pass(g: &mut Graph, limits: &PassLimits, pass: &'static str, try_at: TryAt) -> PassReport {
    let mut report = PassReport { pass, fused: 0, skipped: vec![] };
    if !limits.one_token {
        return report;
    }
    // A fusion removes one op before the next candidate, so walking on by index visits every op.
    let mut i = 0;
    while i < g.ops.len() {
        match try_at(g, i, limits) {
            Ok(()) => report.fused += 1,
            Err(Some(e)) => report.skipped.push(e),
            Err(None) => {}
        }
        i += 1;
    }
    report
}
