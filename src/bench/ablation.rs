//! Where a decode step's wall time goes, measured without timestamps (which
//! serialize the dispatches and inflate their sums): the step back to back
//! with only one kernel's dispatches, and a floor of the same number of
//! dependent dispatches of an empty kernel with the plan's grid sizes (what
//! launches and barriers alone cost). Back-to-back wall time can be bound by the
//! CPU's encoding when the GPU work is short (the empty floors): the GPU's own time
//! for the pass, from timestamps at its start and end, is reported beside it.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::gpu::KernelId;
use crate::graph::dispatch::DispatchSpec;
use crate::graph::Plan;

#[derive(Debug, serde::Serialize)]
pub struct KernelCost {
    pub kernel: KernelId,
    /// The pipeline's flag bits (fused variants of one kernel are timed apart).
    pub flags: u32,
    pub count: usize,
    /// Wall us per step of a chain of only this kernel's dispatches.
    pub only_us: f64,
}

#[derive(Debug, serde::Serialize)]
pub struct Ablation {
    pub full_us: f64,
    /// The full step with its Step uniform written (queue.write_buffer) before each submission.
    pub step_written_us: f64,
    pub floor_plan_grids_us: f64,
    pub floor_one_workgroup_us: f64,
    /// The plan-grid floor with two different empty kernels alternating (what switching pipelines
    /// between dependent dispatches adds).
    pub floor_alternating_us: f64,
    /// GPU time of one step's pass (timestamps at the pass's start and end, one step at a time):
    /// the full step, and the plan-grid floor with two kernels alternating. None without
    /// timestamp queries.
    pub gpu_full_us: Option<f64>,
    pub gpu_floor_alternating_us: Option<f64>,
    pub dispatches: usize,
    pub kernels: Vec<KernelCost>,
}

const FLOOR_WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    if (w.x == 0u && w.y == 0u && l == 0u) { y[0] = y[0] + 1.0; }
}";

/// GPU us of one pass recorded by `record`, averaged over `steps` submissions (each waited for).
pub(super) fn gpu_pass_us(
    gpu: &crate::gpu::Gpu,
    steps: usize,
    record: &dyn Fn(&mut wgpu::ComputePass<'_>),
) -> Option<f64> {
    if !gpu.caps.timestamp_query {
        return None;
    }
    let ts = super::Timestamps::new(gpu, 2);
    let mut total = 0.0;
    for i in 0..steps + 3 {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("timed step"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &ts.set,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            });
            record(&mut pass);
        }
        ts.resolve(&mut enc);
        gpu.queue.submit([enc.finish()]);
        let us = ts.intervals_us(gpu)?[0];
        if i >= 3 {
            total += us;
        }
    }
    Some(total / steps as f64)
}

/// Runs `steps` steps (after a warm-up) encoding with `record`, returns wall us per step.
fn wall_us(plan: &Plan, steps: usize, record: &dyn Fn(&mut wgpu::ComputePass<'_>)) -> f64 {
    wall_us_prepared(plan, steps, &|| {}, record)
}

/// Like `wall_us`, calling `prepare` before each step's submission (e.g. a queue write).
fn wall_us_prepared(plan: &Plan, steps: usize, prepare: &dyn Fn(), record: &dyn Fn(&mut wgpu::ComputePass<'_>)) -> f64 {
    let gpu = plan.gpu();
    let go = || {
        prepare();
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            record(&mut pass);
        }
        gpu.queue.submit([enc.finish()]);
    };
    for _ in 0..3 {
        go();
    }
    super::sync(gpu);
    let t0 = Instant::now();
    for _ in 0..steps {
        go();
    }
    super::sync(gpu);
    t0.elapsed().as_secs_f64() * 1e6 / steps as f64
}

/// Ablation of a plan whose inputs for a 1-token step at `pos` are written.
pub fn run(plan: &Plan, pos: usize, steps: usize) -> Ablation {
    let gpu = plan.gpu();
    // A decode plan moves its position on by itself (ArgmaxReduceAdvance), as real decoding does;
    // every measurement starts again from `pos`, so the context stays near it.
    let wall_us = |steps: usize, record: &dyn Fn(&mut wgpu::ComputePass<'_>)| {
        plan.set_step(1, pos);
        wall_us(plan, steps, record)
    };
    // The first runs after loading can catch the GPU still clocking up: the full step is timed
    // before and after the rest, and the better of the two kept.
    let full_before = wall_us(steps, &|p| plan.encode(p, 1));
    let mut counts: BTreeMap<(KernelId, u32), usize> = BTreeMap::new();
    for d in plan.dispatch_specs() {
        *counts.entry((d.kernel, d.flags)).or_default() += 1;
    }
    let mut kernels: Vec<KernelCost> = counts
        .into_iter()
        .map(|((kernel, flags), count)| {
            let only_us =
                wall_us(steps, &|p| plan.encode_where(p, 1, |d: &DispatchSpec| d.kernel == kernel && d.flags == flags));
            KernelCost { kernel, flags, count, only_us }
        })
        .collect();
    kernels.sort_by(|a, b| b.only_us.total_cmp(&a.only_us));

    // Two different empty kernels (they add 1 or 2), for the alternating floor.
    let pipelines: Vec<wgpu::ComputePipeline> = ["1.0", "2.0"]
        .into_iter()
        .map(|inc| gpu.standalone_pipeline("floor", &FLOOR_WGSL.replace("1.0", inc), "main"))
        .collect();
    let y = gpu.storage("floor", 16);
    let groups: Vec<wgpu::BindGroup> = pipelines.iter().map(|pl| gpu.bind_buffers("floor", pl, &[&y])).collect();
    let grids: Vec<(u32, u32)> = plan.dispatch_specs().map(|d| plan.grid(d, 1)).collect();
    let record_floor = |p: &mut wgpu::ComputePass<'_>, one: bool, alternate: bool| {
        for (i, &(x, yy)) in grids.iter().enumerate() {
            let which = if alternate { i % 2 } else { 0 };
            p.set_pipeline(&pipelines[which]);
            p.set_bind_group(0, &groups[which], &[]);
            if one {
                p.dispatch_workgroups(1, 1, 1)
            } else {
                p.dispatch_workgroups(x, yy, 1)
            }
        }
    };
    let floor = |one: bool, alternate: bool| wall_us(steps, &|p| record_floor(p, one, alternate));
    let full_us = full_before.min(wall_us(steps, &|p| plan.encode(p, 1)));
    // The same step with its Step uniform written before each submission, as every real decode step is
    // (queue.write_buffer: a staging copy ahead of the step's pass); the position stays `pos`.
    let step_written_us = wall_us_prepared(plan, steps, &|| plan.set_step(1, pos), &|p| plan.encode(p, 1));
    let gpu_full_us = gpu_pass_us(gpu, steps, &|p| {
        plan.set_step(1, pos);
        plan.encode(p, 1)
    });
    let gpu_floor_alternating_us = gpu_pass_us(gpu, steps, &|p| record_floor(p, false, true));
    Ablation {
        full_us,
        step_written_us,
        floor_plan_grids_us: floor(false, false),
        floor_one_workgroup_us: floor(true, false),
        floor_alternating_us: floor(false, true),
        gpu_full_us,
        gpu_floor_alternating_us,
        dispatches: grids.len(),
        kernels,
    }
}
