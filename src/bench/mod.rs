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

/// The timestamp queries live with the plan profiler (`graph::profile`); the benches use them too.
pub(crate) use crate::graph::profile::Timestamps;

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
