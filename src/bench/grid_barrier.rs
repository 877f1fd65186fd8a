//! What a barrier over a whole dispatch costs against a dependent dispatch: the measurement behind
//! BENCHMARKS.md's case for a persistent decode kernel. One dispatch of W workgroups runs P phases,
//! each ended by a grid barrier (an arrival count every workgroup spins on), against P dependent
//! dispatches of the same phase; both timed on the GPU (timestamps at the pass's ends). Discrete
//! GPUs only: the spin needs every workgroup resident at once, which neither Vulkan nor WGSL
//! promises (Mesa 22.3's lavapipe finishes it, at 2-128 workgroups, but without synchronising:
//! gpu/grid_probe.rs). The cost only: whether an adapter runs grid barriers correctly is the probe's
//! question.

use super::ablation::gpu_pass_us;
use crate::gpu::Gpu;

/// One phase: the first invocation of each workgroup bumps its own counter (work to publish). With
/// BARRIER, every workgroup then publishes, arrives and waits for the rest before the next phase.
const PHASE_WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> arrivals: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    for (var ph = 0u; ph < PHASES; ph++) {
        if (l == 0u) { y[w.x] = y[w.x] + 1.0; }
        if (BARRIER) {
            storageBarrier();
            if (l == 0u) {
                atomicAdd(&arrivals, 1u);
                let all = (ph + 1u) * GROUPS;
                loop { if (atomicLoad(&arrivals) >= all) { break; } }
            }
            workgroupBarrier();
        }
    }
}";

#[derive(Debug, serde::Serialize)]
pub struct GridBarrier {
    pub workgroups: u32,
    /// GPU us a phase: in-kernel grid barriers, and dependent dispatches.
    pub barrier_us: f64,
    pub dispatch_us: f64,
}

/// Per-phase GPU cost of both ways at each workgroup count (None: not a discrete GPU, or no
/// timestamps).
pub fn run(gpu: &Gpu, workgroups: &[u32], phases: u32) -> Option<Vec<GridBarrier>> {
    if gpu.caps.device_type != "DiscreteGpu" || !gpu.caps.timestamp_query {
        return None;
    }
    let pipeline = |phases: u32, groups: u32, barrier: bool| {
        let src = format!("const PHASES: u32 = {phases}u;\nconst GROUPS: u32 = {groups}u;\nconst BARRIER: bool = {barrier};\n{PHASE_WGSL}");
        gpu.standalone_pipeline("grid barrier", &src, "main")
    };
    let arrivals = gpu.storage("arrivals", 4);
    let y = gpu.storage("y", 4 * 1024);
    let mut out = Vec::new();
    for &w in workgroups {
        let persistent = pipeline(phases, w, true);
        let single = pipeline(1, w, false);
        let (bp, bs) = (
            gpu.bind_buffers("grid barrier", &persistent, &[&arrivals, &y]),
            gpu.bind_buffers("phase", &single, &[&arrivals, &y]),
        );
        let barrier_us = gpu_pass_us(gpu, 20, &|p| {
            // The count starts at zero for every run (a write ahead of the pass).
            gpu.queue.write_buffer(&arrivals, 0, &[0; 4]);
            p.set_pipeline(&persistent);
            p.set_bind_group(0, &bp, &[]);
            p.dispatch_workgroups(w, 1, 1);
        })?;
        let dispatch_us = gpu_pass_us(gpu, 20, &|p| {
            for _ in 0..phases {
                p.set_pipeline(&single);
                p.set_bind_group(0, &bs, &[]);
                p.dispatch_workgroups(w, 1, 1);
            }
        })?;
        out.push(GridBarrier {
            workgroups: w,
            barrier_us: barrier_us / phases as f64,
            dispatch_us: dispatch_us / phases as f64,
        });
    }
    Some(out)
}
