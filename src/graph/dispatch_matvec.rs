//! INT4 matvec selection: the layouts of the decode matvec kernels (`matvec_int4.wgsl`'s plain
//! and streaming entry points, `matvec_fused_int4.wgsl`, `matvec_fused_split_int4.wgsl`) and the
//! fused matvec's prologue / epilogue bindings.

use super::dispatch_partials as partials;
use super::dispatch_spec::{bound, bytes, rows_of, Bind, Dim, DispatchSpec, Grid};
use super::ir::{DeviceTensor, Epilogue, FusedMatvec, Graph, TensorId};
use crate::gpu::params;
use crate::gpu::KernelId;

/// A fused matvec (norm / gate prologue, up to four matrices, residual / SwiGLU / split epilogues,
/// partial rows in).
pub(super) fn fused(graph: &Graph, f: &FusedMatvec, index: usize, max_rows: usize) -> Result<DispatchSpec, String> {
    let k = graph.width(f.x);
    if let Some(spec) = plain_stream(graph, f, index, k, max_rows) {
        return Ok(spec);
    }
    let mut p = params::FusedMatvecParams { k: k as u32, ..Default::default() };
    let mut b = vec![Bind::Tensor(f.x)];
    match (&f.norm, f.gate) {
        (Some(n), None) => {
            p.flags |= params::fused::NORM | if n.add_unit { params::fused::ADD_UNIT } else { 0 };
            p.eps = n.eps;
            b.push(Bind::Tensor(n.weight));
        }
        (None, Some(gate)) => {
            if graph.width(gate) != k || rows_of(graph, gate) != rows_of(graph, f.x) {
                return Err("the gate is not shaped like x".into());
            }
            p.flags |= params::fused::GATE;
            b.push(Bind::Tensor(gate));
        }
        (None, None) => b.push(Bind::Dummy),
        (Some(_), Some(_)) => return Err("a norm and a gate prologue together".into()),
    }
    if let Epilogue::Split(outs) = f.epilogue {
        if f.partials_in.is_some() {
            return Err("a split matvec takes no partial rows".into());
        }
        return split_matvec(graph, index, f, outs, p, b);
    }
    match f.epilogue {
        Epilogue::Residual(r) => {
            p.flags |= params::fused::RESID;
            b.push(Bind::Tensor(r));
        }
        Epilogue::SwiGlu { .. } => {
            p.flags |= params::fused::SWIGLU;
            b.push(Bind::Dummy);
        }
        Epilogue::None => b.push(Bind::Dummy),
        Epilogue::Split(_) => unreachable!("lowered above"),
    }
    if f.mats.is_empty() || f.mats.len() > 4 {
        return Err(format!("{} matrices (1-4 supported)", f.mats.len()));
    }
    if f.mats.get(3).is_some_and(|m| m.bias.is_some()) {
        return Err("the fourth matrix of a fused matvec takes no bias".into());
    }
    let mut ns = [0u32; 4];
    for (i, m) in f.mats.iter().enumerate() {
        match bound(graph, m.w) {
            Some(DeviceTensor::Int4 { rows, cols, group, .. }) if *cols == k && group % 32 == 0 => {
                if i > 0 && *group as u32 != p.group {
                    return Err("fused matrices differ in group size".into());
                }
                p.group = *group as u32;
                ns[i] = *rows as u32;
            }
            _ => return Err(format!("weight '{}' is not an INT4 [_, {k}] matrix", graph.desc(m.w).label)),
        }
        if i < 3 {
            b.extend([Bind::Q(m.w), Bind::Sm(m.w)]);
        }
    }
    for _ in f.mats.len().min(3)..3 {
        b.extend([Bind::Dummy, Bind::Dummy]);
    }
    for i in 0..3 {
        match f.mats.get(i).and_then(|m| m.bias) {
            Some(bt) => {
                p.flags |= params::fused::BIAS0 << i;
                b.push(Bind::Tensor(bt));
            }
            None => b.push(Bind::Dummy),
        }
    }
    match f.epilogue {
        Epilogue::SwiGlu { out } => {
            if f.mats.len() != 2 || ns[0] != ns[1] {
                return Err("SwiGLU epilogue needs two matrices of equal height".into());
            }
            b.extend([Bind::Tensor(out), Bind::DummyOut, Bind::DummyOut]);
        }
        _ => {
            for i in 0..3 {
                b.push(f.mats.get(i).map_or(Bind::DummyOut, |m| Bind::Tensor(m.out)));
            }
        }
    }
    // The fourth matrix's bindings come last (bindings 17-19), so the three-matrix layout keeps its numbers.
    match f.mats.get(3) {
        Some(m) => b.extend([Bind::Q(m.w), Bind::Sm(m.w), Bind::Tensor(m.out)]),
        None => b.extend([Bind::Dummy, Bind::Dummy, Bind::DummyOut]),
    }
    (p.n0, p.n1, p.n2, p.n3) = (ns[0], ns[1], ns[2], ns[3]);
    let cols = if matches!(f.epilogue, Epilogue::SwiGlu { .. }) { ns[0] } else { ns.iter().sum() };
    let (split, cols_per_wg) = k_split_layout(k);
    p.flags |= split;
    let swiglu = matches!(f.epilogue, Epilogue::SwiGlu { .. });
    let mut per_wg = if swiglu { cols_per_wg / 2 } else { cols_per_wg };
    if !swiglu && f.partials_in.is_none() {
        let (wide, slots) = wide_layout(cols as usize, k, max_rows);
        p.flags |= wide;
        per_wg *= slots;
    }
    let grid = Grid { x: Dim::Fixed(cols.div_ceil(per_wg)), y: FUSED_ROW_BLOCKS };
    p.flags |= (f.mats.len() as u32) << 8;
    let flags = p.flags;
    let fused =
        DispatchSpec { kernel: KernelId::MatvecFusedInt4, op_index: index, params: bytes(p), bindings: b, grid, flags };
    match &f.partials_in {
        Some(pi) => {
            let resid = matches!(f.epilogue, Epilogue::Residual(_));
            partials::matvec_partials_in(graph, pi, f.x, f.mats.len(), resid, max_rows, fused)
        }
        None => Ok(fused),
    }
}

/// Columns one workgroup of `matvec_fused_int4.wgsl` computes (GROUPS * CPG there) when
/// each lane group covers all of K.
const FUSED_COLS: u32 = 32;

/// The K split of an INT4 matvec over K, as (flag bits, columns per workgroup): for K > 2048,
/// 2-8 lane groups (a power of two) share each column's K, so no lane group walks more than
/// 64 vec4 words (two steps of its 32 lanes) and a deep matvec runs as more, shorter
/// workgroups (H200: Qwen2.5's K 4864 down projection, generate loop 812 -> 876-899 tok/s).
/// Flag bits 14-15 hold log2 of the split.
fn k_split_layout(k: usize) -> (u32, u32) {
    let vecs = k.div_ceil(32);
    let s = if vecs <= 64 { 1 } else { (vecs.div_ceil(64).next_power_of_two() as u32).min(8) };
    (s.trailing_zeros() << params::fused::KSPLIT_SHIFT, FUSED_COLS / s)
}

/// The WIDE layout's (flag, column-slot multiplier) for a matvec of `cols` outputs over K:
/// two column slots per lane group, half the workgroups, in one-token plans where K is one step
/// of the lanes (K <= 1024) and the halved grid still fills the GPU. On the H200 (commit
/// `eaf445f`), 896 and 1024 x 151936 went from 1443-1717 to 1685-1957 GB/s in fresh processes
/// (A/B on the same machine); four slots measured slower, and at K 2048 and 4096, where each lane group
/// already takes two steps with the next one's loads in flight, two slots measured no gain.
fn wide_layout(cols: usize, k: usize, max_rows: usize) -> (u32, u32) {
    if max_rows == 1 && cols >= WIDE_MIN_COLS && k <= 1024 {
        return (params::fused::WIDE, 2);
    }
    (0, 1)
}

/// The streaming layout's grid for a matvec of `cols` outputs (`matvec_int4.wgsl`'s
/// matvec_stream: each workgroup walks STREAM_BLOCKS column blocks, the next one's weights in
/// flight while one computes), for one-token plans over many columns (the lm_head).
/// On the H200 (BENCHMARKS.md; commit `ba2983e`, four fresh processes per shape) at 151936
/// columns it beat the WIDE (K <= 1024) and K-split (K > 2048) layouts: K 896 1811-1868 ->
/// 1873-2052, 1024 1833-1860 -> 2104-2163, 2048 1749-1907 -> 2004-2175, 4096 1676-1889 ->
/// 2068-2231 GB/s.
fn stream_grid(cols: usize, max_rows: usize) -> Option<u32> {
    let blocks = (cols as u32).div_ceil(FUSED_COLS);
    (max_rows == 1 && cols >= STREAM_MIN_COLS).then(|| blocks.div_ceil(STREAM_BLOCKS))
}

/// Fewest columns for the streaming layout: 49152 columns are 256 workgroups of six blocks. At
/// 16384 (86 workgroups) it left the H200 part idle and measured slower than the WIDE layout
/// (K 1024: 1003 against 1109 GB/s; at 49152: 1951 against 1585).
const STREAM_MIN_COLS: usize = 49152;

/// Column blocks per streaming workgroup. Of 4, 6 and 8 on the H200, 6 measured best: 151936
/// columns are then 792 workgroups, three full waves of two per SM on its 132 SMs, where 4 and 8
/// leave the last wave half empty. A GPU with another SM count may prefer another value.
const STREAM_BLOCKS: u32 = 6;

/// A fused matvec with nothing fused (one matrix, no prologue, no epilogue but its bias) over
/// enough columns for the streaming layout, as the plain matvec in that layout: the lm_head once
/// the final norm has been fused into the add before it.
fn plain_stream(graph: &Graph, f: &FusedMatvec, index: usize, k: usize, max_rows: usize) -> Option<DispatchSpec> {
    let [m] = f.mats[..] else { return None };
    let plain = f.norm.is_none() && f.gate.is_none() && f.partials_in.is_none();
    if !plain || !matches!(f.epilogue, Epilogue::None) {
        return None;
    }
    match bound(graph, m.w) {
        Some(DeviceTensor::Int4 { rows, cols, group, .. }) if *cols == k && group % 32 == 0 => {
            stream_grid(*rows, max_rows)?;
            Some(int4_matvec(index, f.x, m.w, m.bias, m.out, *rows, k, *group, false, max_rows))
        }
        _ => None,
    }
}

/// Fewest columns for the WIDE layout: 16384 columns are 256 two-slot workgroups.
const WIDE_MIN_COLS: usize = 16384;

/// Row blocks of that kernel: ROWS input rows per workgroup.
const FUSED_ROW_BLOCKS: Dim = Dim::Tokens { mul: 1, div: 4 };

/// A plain INT4 matvec (`out = x . w^T (+ bias)`, optionally of the last row only): five
/// storage bindings, and the fused kernel's body, so fused and unfused decode share one arithmetic.
#[allow(clippy::too_many_arguments)]
pub(super) fn int4_matvec(
    index: usize,
    x: TensorId,
    wt: TensorId,
    bias: Option<TensorId>,
    out: TensorId,
    n: usize,
    k: usize,
    group: usize,
    last_row: bool,
    max_rows: usize,
) -> DispatchSpec {
    let mut flags = 1 << 8;
    if bias.is_some() {
        flags |= params::fused::BIAS0;
    }
    if last_row {
        flags |= params::fused::LAST_ROW;
    }
    // The streaming entry point walks its blocks itself, one row, each column's K in one lane group;
    // the plain one takes the K split and WIDE layouts.
    let (kernel, grid) = match stream_grid(n, max_rows) {
        Some(x) => (KernelId::MatvecInt4Stream, Grid { x: Dim::Fixed(x), y: Dim::Fixed(1) }),
        None => {
            let (split, cols_per_wg) = k_split_layout(k);
            let (wide, slots) = wide_layout(n, k, max_rows);
            flags |= split | wide;
            let y = if last_row { Dim::Fixed(1) } else { FUSED_ROW_BLOCKS };
            (KernelId::MatvecInt4, Grid { x: Dim::Fixed((n as u32).div_ceil(cols_per_wg * slots)), y })
        }
    };
    let p = params::FusedMatvecParams { n0: n as u32, k: k as u32, group: group as u32, flags, ..Default::default() };
    let b = vec![Bind::Tensor(x), Bind::Q(wt), Bind::Sm(wt), bias.map_or(Bind::Dummy, Bind::Tensor), Bind::Tensor(out)];
    DispatchSpec { kernel, op_index: index, params: bytes(p), bindings: b, grid, flags }
}

/// A one-matrix fused matvec whose output columns go to up to four tensors
/// (`matvec_fused_split_int4.wgsl`); `p` and `b` hold the prologue already.
fn split_matvec(
    graph: &Graph,
    index: usize,
    f: &FusedMatvec,
    outs: [Option<TensorId>; 4],
    mut p: params::FusedMatvecParams,
    mut b: Vec<Bind>,
) -> Result<DispatchSpec, String> {
    let [m] = f.mats[..] else { return Err(format!("a split output needs one matrix, not {}", f.mats.len())) };
    if m.bias.is_some() || p.flags & params::fused::GATE != 0 {
        return Err("a split matvec takes no bias or gate".into());
    }
    let k = graph.width(f.x);
    let (rows, group) = match bound(graph, m.w) {
        Some(DeviceTensor::Int4 { rows, cols, group, .. }) if *cols == k && group % 32 == 0 => (*rows, *group),
        _ => return Err(format!("weight '{}' is not an INT4 [_, {k}] matrix", graph.desc(m.w).label)),
    };
    let widths: Vec<usize> = outs.iter().flatten().map(|o| graph.width(*o)).collect();
    if widths.is_empty() || widths.iter().sum::<usize>() != rows || outs[widths.len()..].iter().any(|o| o.is_some()) {
        return Err(format!("outputs {widths:?} do not split the matrix's {rows} rows"));
    }
    let mut ns = [0u32; 4];
    for (i, wd) in widths.iter().enumerate() {
        ns[i] = *wd as u32;
    }
    (p.n0, p.n1, p.n2, p.n3) = (ns[0], ns[1], ns[2], ns[3]);
    p.group = group as u32;
    let (split, cols_per_wg) = k_split_layout(k);
    p.flags |= (widths.len() as u32) << 8 | split;
    b.extend([Bind::Q(m.w), Bind::Sm(m.w)]);
    b.extend((0..4).map(|i| outs[i].map_or(Bind::DummyOut, Bind::Tensor)));
    let grid = Grid { x: Dim::Fixed((rows as u32).div_ceil(cols_per_wg)), y: FUSED_ROW_BLOCKS };
    Ok(DispatchSpec {
        kernel: KernelId::MatvecSplitInt4,
        op_index: index,
        params: bytes(p),
        bindings: b,
        grid,
        flags: p.flags,
    })
}
