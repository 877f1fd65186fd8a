//! Fusion passes over a decode graph, in order. Each pass rewrites groups of
//! ops into one fused op, and skips a group when the rewrite would be unsafe:
//! an op in between touching the group's tensors, an output aliasing an input
//! (also through two bound tensors sharing a buffer), or more storage buffers
//! than the device allows per shader stage.

mod add_rmsnorm;
mod attention_decode;
mod attention_partials;
mod attention_qkv;
mod decode_layer;
mod delta_conv;
mod dual_rmsnorm;
mod gated_o_proj;
mod mlp_partials;
mod norm_matvec;
mod norm_swiglu;
mod partials;
mod quad_matvec;
mod residual_epilogue;
mod shared_input_matvec;
mod short_conv_state;
mod swiglu_epilogue;

use std::sync::Arc;

use crate::graph::dispatch;
use crate::graph::ir::{Graph, Op, Storage, TensorId};

/// Which passes run (all by default); a switch per pass.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct FusionConfig {
    pub attention_decode: bool,
    pub shared_input_matvec: bool,
    /// RMSNorm as the prologue of the one matvec reading it. On by default: the norm is
    /// recomputed per workgroup, which would cost on wide projections, but this matvec reads
    /// all of x per workgroup anyway; measured on the
    /// H200 (commit `745253e`): SmolLM2 610 -> 678 tok/s, LFM2 699 -> 785, Qwen2.5
    /// 598 -> 619, Qwen3.5 335 -> 331 (within noise), and a dense layer at 5 dispatches.
    pub norm_matvec: bool,
    pub swiglu_epilogue: bool,
    pub norm_swiglu: bool,
    pub add_rmsnorm: bool,
    pub residual_epilogue: bool,
    pub short_conv_state: bool,
    /// Per-head q_norm + k_norm (Qwen3.5's (1 + w) norms) in one dispatch.
    pub dual_rmsnorm: bool,
    /// A matvec over in_proj (concatenated at load) and the split of its output in one dispatch.
    pub quad_matvec: bool,
    /// The attention output gate sigmoid(gate) * attn as the o_proj matvec's prologue.
    pub gated_o_proj: bool,
    /// The DeltaNet causal conv computed inside the decode gated delta kernel.
    pub delta_conv: bool,
    /// The down projection as per-word partial rows inside the feed-forward kernel, summed by the
    /// next norm + matvec's prologue (one-token plans).
    pub mlp_partials: bool,
    /// o_proj as per-head partial rows inside decode attention, summed likewise.
    pub attention_partials: bool,
    /// The q / k / v matvec (with its norm and partial-row sum) computed per head inside that attention:
    /// a dense layer in two dispatches. Off by default: on the H200 the fused kernel took 21.1 us
    /// against 7.6 + 10.0 us for the two dispatches (SmolLM2 at context 136; commit `3a2c32f`).
    pub attention_qkv: bool,
    /// A dense layer's q / k / v, attention and MLP in one dispatch with grid barriers (after the
    /// partial-row passes), where the adapter may run it: gpu/grid_probe.rs must pass
    /// (`PassLimits::grid_barrier`), and the session checks that the kernel's own largest grid is
    /// resident at once (graph/residency.rs), planning without it otherwise. A grid that stops being
    /// resident mid-run (another process on the GPU) makes a barrier give up its wait and mark the
    /// failure word; the session then plans without it and recomputes (models/llm/session.rs). It reads
    /// what other workgroups publish from @coherent bindings. On by default: on the H200 SmolLM2's generate loop runs a median of
    /// 1425 tok/s with it (10 runs, 1339-1434; 35 dispatches a token) against 1113 without (95),
    /// in one process (BENCHMARKS.md). It fires where the partial-row passes did
    /// (an intermediate width of at most `dispatch_partials::MAX_K`): not on Qwen2.5-0.5B's 4864.
    pub decode_layer: bool,
    /// Assume the adapter runs grid barriers without probing it (plan-level tests, which never run
    /// the plan; see `PassLimits::grid_barrier`).
    pub grid_barrier_anywhere: bool,
    /// Pretend the device allows at most this many storage buffers per stage
    /// (tests the skip path; never raises the real limit).
    pub max_storage_buffers: Option<u32>,
}

impl Default for FusionConfig {
    fn default() -> Self {
        FusionConfig {
            attention_decode: true,
            shared_input_matvec: true,
            norm_matvec: true,
            swiglu_epilogue: true,
            norm_swiglu: true,
            add_rmsnorm: true,
            residual_epilogue: true,
            short_conv_state: true,
            dual_rmsnorm: true,
            quad_matvec: true,
            gated_o_proj: true,
            delta_conv: true,
            mlp_partials: true,
            attention_partials: true,
            attention_qkv: false,
            decode_layer: true,
            grid_barrier_anywhere: false,
            max_storage_buffers: None,
        }
    }
}

impl FusionConfig {
    /// The passes whose fused kernels treat every row alike (norm prologues, shared inputs, residual
    /// and SwiGLU epilogues), for graphs whose rows are consecutive tokens of one sequence (a prefill
    /// chunk): the attention, recurrent-state, partial-row and whole-layer passes are decode-only.
    pub fn rows_alike(&self) -> Self {
        FusionConfig {
            attention_decode: false,
            short_conv_state: false,
            delta_conv: false,
            gated_o_proj: false,
            mlp_partials: false,
            attention_partials: false,
            attention_qkv: false,
            decode_layer: false,
            ..*self
        }
    }

    pub fn none() -> Self {
        FusionConfig {
            attention_decode: false,
            shared_input_matvec: false,
            norm_matvec: false,
            swiglu_epilogue: false,
            norm_swiglu: false,
            add_rmsnorm: false,
            residual_epilogue: false,
            short_conv_state: false,
            dual_rmsnorm: false,
            quad_matvec: false,
            gated_o_proj: false,
            delta_conv: false,
            mlp_partials: false,
            attention_partials: false,
            attention_qkv: false,
            decode_layer: false,
            grid_barrier_anywhere: false,
            max_storage_buffers: None,
        }
    }

    /// Whether the passes may use grid barriers on `gpu` (`PassLimits::grid_barrier`): only for
    /// decode_layer, and where the adapter passed the grid-barrier probe (run on first use), or
    /// `grid_barrier_anywhere` says to assume it.
    pub fn grid_barrier_on(&self, gpu: &crate::gpu::Gpu) -> bool {
        self.decode_layer && (self.grid_barrier_anywhere || gpu.grid_barriers_work())
    }
}

/// Device facts the passes respect.
#[derive(Debug, Clone, Copy)]
pub struct PassLimits {
    pub max_storage_buffers_per_stage: u32,
    /// A single sequence's decode graph (one token per step): the partial-sum passes apply.
    pub one_token: bool,
    /// Bytes of workgroup memory a compute workgroup may use.
    pub max_workgroup_storage: u32,
    /// Kernels may wait for every workgroup of a grid of up to 128 (a grid barrier): they are all
    /// resident at once and the barrier orders memory between them. Vulkan promises neither; see
    /// `FusionConfig::grid_barrier_on` and gpu/grid_probe.rs.
    pub grid_barrier: bool,
}

/// What one pass did, for logs and dumps.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PassReport {
    pub pass: &'static str,
    pub fused: usize,
    pub skipped: Vec<String>,
}

/// Runs the enabled passes in order on a decode graph (one token per step).
pub fn run(graph: &mut Graph, cfg: &FusionConfig, mut limits: PassLimits) -> Vec<PassReport> {
    if let Some(cap) = cfg.max_storage_buffers {
        limits.max_storage_buffers_per_stage = limits.max_storage_buffers_per_stage.min(cap);
    }
    type Pass = fn(&mut Graph, &PassLimits) -> PassReport;
    let passes: [(bool, Pass); 16] = [
        (cfg.attention_decode, attention_decode::run),
        (cfg.dual_rmsnorm, dual_rmsnorm::run),
        // Before shared_input_matvec, which would take the in_proj matmul alone.
        (cfg.quad_matvec, quad_matvec::run),
        (cfg.shared_input_matvec, shared_input_matvec::run),
        (cfg.norm_matvec, norm_matvec::run),
        (cfg.swiglu_epilogue, swiglu_epilogue::run),
        (cfg.norm_swiglu, norm_swiglu::run),
        (cfg.add_rmsnorm, add_rmsnorm::run),
        (cfg.residual_epilogue, residual_epilogue::run),
        (cfg.gated_o_proj, gated_o_proj::run),
        (cfg.short_conv_state, short_conv_state::run),
        (cfg.delta_conv, delta_conv::run),
        // Last: they take the matvecs the passes above have fused (residual epilogues, norm prologues).
        (cfg.mlp_partials, mlp_partials::run),
        (cfg.attention_partials, attention_partials::run),
        // After the partial-sum passes: it takes the qkv matvec with its partial rows.
        (cfg.attention_qkv, attention_qkv::run),
        // Last: it takes a layer's three dispatches as the passes above leave them.
        (cfg.decode_layer, decode_layer::run),
    ];
    passes.into_iter().filter(|(on, _)| *on).map(|(_, pass)| pass(graph, &limits)).collect()
}

/// Indices of the ops that read `t`.
pub(crate) fn readers(g: &Graph, t: TensorId) -> Vec<usize> {
    g.ops.iter().enumerate().filter(|(_, op)| op.reads().contains(&t)).map(|(i, _)| i).collect()
}

/// The op that writes `t`, if exactly one does.
pub(crate) fn writer(g: &Graph, t: TensorId) -> Option<usize> {
    let w: Vec<usize> = g.ops.iter().enumerate().filter(|(_, op)| op.writes().contains(&t)).map(|(i, _)| i).collect();
    (w.len() == 1).then(|| w[0])
}

/// An activation that is consumed only by the ops in `group` (so fusing may drop it).
pub(crate) fn internal(g: &Graph, t: TensorId, group: &[usize]) -> bool {
    !g.outputs.contains(&t)
        && matches!(g.desc(t).storage, Storage::Activation { .. })
        && readers(g, t).iter().all(|r| group.contains(r))
}

fn same_buffer(g: &Graph, a: TensorId, b: TensorId) -> bool {
    if a == b {
        return true;
    }
    match (&g.desc(a).storage, &g.desc(b).storage) {
        (Storage::Bound(x), Storage::Bound(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}

/// Replaces the ops at `group` with `op`, placed where the last of them was.
/// Refuses (returns the reason) when an op between them touches the group's
/// tensors, when an output of `op` aliases one of its inputs, or when its
/// dispatch needs more storage buffers than the device has.
pub(crate) fn fuse(g: &mut Graph, group: &[usize], op: Op, limits: &PassLimits) -> Result<(), String> {
    let (lo, hi) = (*group.iter().min().unwrap(), *group.iter().max().unwrap());
    let touched: Vec<TensorId> =
        group.iter().flat_map(|&i| g.ops[i].reads().into_iter().chain(g.ops[i].writes())).collect();
    let written: Vec<TensorId> = group.iter().flat_map(|&i| g.ops[i].writes()).collect();
    for i in lo + 1..hi {
        if group.contains(&i) {
            continue;
        }
        let other = &g.ops[i];
        if other.reads().iter().any(|t| written.contains(t)) || other.writes().iter().any(|t| touched.contains(t)) {
            return Err(format!("op {i} ({}) sits between the fused ops and touches their tensors", other.name()));
        }
    }
    // A tensor both read and written by id is in-place state bound once
    // read_write (the KV cache); any other overlap is a hazard.
    for w in op.writes() {
        for r in op.reads() {
            if r != w && same_buffer(g, w, r) {
                return Err(format!("output '{}' aliases input '{}'", g.desc(w).label, g.desc(r).label));
            }
        }
    }
    let spec = dispatch::select_one(g, 0, &op, 1, limits.max_storage_buffers_per_stage).map_err(|e| e.to_string())?;
    let storage = spec.bindings.len() as u32;
    if storage > limits.max_storage_buffers_per_stage {
        return Err(format!(
            "{} needs {storage} storage buffers, the device allows {}",
            op.name(),
            limits.max_storage_buffers_per_stage
        ));
    }
    let mut ids: Vec<usize> = group.iter().flat_map(|&i| g.node_ids[i].clone()).collect();
    ids.sort();
    let mut sorted = group.to_vec();
    sorted.sort();
    for &i in sorted.iter().rev() {
        g.ops.remove(i);
        g.node_ids.remove(i);
    }
    let at = hi + 1 - sorted.len();
    g.ops.insert(at, op);
    g.node_ids.insert(at, ids);
    Ok(())
}
