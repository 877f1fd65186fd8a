//! `gerbil bench`: kernel and whole-model measurements with random weights of
//! real configurations (no download), reported against the copy bandwidth
//! measured in the same run.

pub mod ablation;
pub mod bandwidth;
pub mod batched;
pub mod decode;
pub mod grammar;
pub mod grid_barrier;
pub mod matvec;
pub mod memory;
pub mod profile;

use std::time::Instant;

use crate::gpu::Gpu;

/// Waits for all submitted GPU work.
pub fn sync(gpu: &Gpu) {
    let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
}

/// Median seconds of `f` over `runs` runs, each followed by a GPU sync.
pub fn time_gpu(gpu: &Gpu, runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    sync(gpu);
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let t0 = Instant::now();
            f();
            sync(gpu);
            t0.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// A timestamp query set and its resolve buffer: `count` timestamps, read back as the microseconds
/// between consecutive ones.
pub(crate) struct Timestamps {
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
