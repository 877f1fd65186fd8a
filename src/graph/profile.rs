//! Timing a plan's dispatches with GPU timestamp queries: per kernel (and flags and grid), plus the
//! CPU cost of encoding and submitting a step. Used by text sessions' and batched decoding's
//! profiling calls, `gerbil profile` and the benches.

use std::collections::BTreeMap;
use std::time::Instant;

use super::Plan;
use crate::gpu::{Gpu, KernelId};

#[derive(Debug, serde::Serialize)]
pub struct KernelRow {
    pub kernel: KernelId,
    /// Pipeline flag bits: fused variants of one kernel get rows of their own.
    pub flags: u32,
    /// Workgroups (x, y) of the step: shapes of one kernel get rows of their own.
    pub grid: (u32, u32),
    pub count: usize,
    pub total_us: f64,
    pub bytes: u64,
}

#[derive(Debug, serde::Serialize)]
pub struct Profile {
    pub rows: Vec<KernelRow>,
    pub gpu_step_us: f64,
    pub encode_us: f64,
    pub submit_us: f64,
    pub wall_step_us: f64,
}

/// Profiles `steps` runs of a plan with `n_tokens` rows at `pos` (its inputs already written).
pub fn plan_step(plan: &Plan, n_tokens: usize, pos: usize, steps: usize) -> Option<Profile> {
    let gpu = plan.gpu().clone();
    if !gpu.caps.timestamp_query_inside_passes {
        return None;
    }
    let n = plan.dispatch_count();
    let ts = Timestamps::new(&gpu, n as u32 + 1);
    let mut totals = vec![0f64; n];
    let (mut encode, mut submit) = (0f64, 0f64);
    for _ in 0..steps {
        plan.set_step(n_tokens, pos);
        let t0 = Instant::now();
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            plan.encode_timed(&mut pass, n_tokens, &ts.set);
        }
        ts.resolve(&mut enc);
        let cb = enc.finish();
        let t1 = Instant::now();
        gpu.queue.submit([cb]);
        let t2 = Instant::now();
        encode += (t1 - t0).as_secs_f64();
        submit += (t2 - t1).as_secs_f64();
        for (total, us) in totals.iter_mut().zip(ts.intervals_us(&gpu)?) {
            *total += us;
        }
    }
    // Steady-state wall time per step without timestamps or readback; a plan that moves its
    // position on itself runs on through the positions after `pos`, as decoding does.
    let t0 = Instant::now();
    for i in 0..steps {
        plan.run(n_tokens, if plan.advances_step() { pos + i } else { pos });
    }
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
    let wall = t0.elapsed().as_secs_f64() / steps as f64;
    let bytes = plan.dispatch_bytes();
    let mut by_kernel: BTreeMap<(KernelId, u32, (u32, u32)), KernelRow> = BTreeMap::new();
    for (i, d) in plan.dispatch_specs().enumerate() {
        let grid = plan.grid(d, n_tokens);
        let row = by_kernel.entry((d.kernel, d.flags, grid)).or_insert(KernelRow {
            kernel: d.kernel,
            flags: d.flags,
            grid,
            count: 0,
            total_us: 0.0,
            bytes: 0,
        });
        row.count += 1;
        row.total_us += totals[i] / steps as f64;
        row.bytes += bytes[i];
    }
    let mut rows: Vec<KernelRow> = by_kernel.into_values().collect();
    rows.sort_by(|a, b| b.total_us.total_cmp(&a.total_us));
    Some(Profile {
        gpu_step_us: rows.iter().map(|r| r.total_us).sum(),
        rows,
        encode_us: encode / steps as f64 * 1e6,
        submit_us: submit / steps as f64 * 1e6,
        wall_step_us: wall * 1e6,
    })
}

/// A timestamp query set and its resolve buffer: `count` timestamps, read back as the microseconds
/// between consecutive ones.
pub struct Timestamps {
    pub set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    count: u32,
}

impl Timestamps {
    pub fn new(gpu: &Gpu, count: u32) -> Timestamps {
        let set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps.resolve"),
            size: count as u64 * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Timestamps { set, resolve, count }
    }

    /// Records the resolve of every timestamp (after the pass that writes them).
    pub fn resolve(&self, enc: &mut wgpu::CommandEncoder) {
        enc.resolve_query_set(&self.set, 0..self.count, &self.resolve, 0);
    }

    /// Microseconds from each timestamp to the next (`count - 1` values; blocks on the GPU).
    pub fn intervals_us(&self, gpu: &Gpu) -> Option<Vec<f64>> {
        let raw = gpu.read_bytes(&self.resolve, self.count as u64 * 8).ok()?;
        let ticks: Vec<u64> = raw.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).collect();
        let period = gpu.queue.get_timestamp_period() as f64;
        Some(ticks.windows(2).map(|w| w[1].saturating_sub(w[0]) as f64 * period / 1e3).collect())
    }
}
