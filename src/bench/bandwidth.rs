//! Device copy bandwidth through a WGSL vec4 copy kernel.

use crate::gpu::params::{CopyParams, Step};
use crate::gpu::{Gpu, KernelId, PipelineKey};

/// Bytes moved (read + write) per second copying `bytes` bytes, `reps` copies per submit.
pub fn copy_bandwidth(gpu: &Gpu, bytes: u64, reps: u32) -> f64 {
    let bytes = bytes.min(gpu.caps.max_storage_binding_size) / 16 * 16;
    let src = gpu.storage("bench.src", bytes);
    let dst = gpu.storage("bench.dst", bytes);
    let n_vec4 = (bytes / 16) as u32;
    let params = gpu.uniform_from("copy.params", &CopyParams { n_vec4, ..Default::default() });
    let step = gpu.uniform_from("copy.step", &Step { n_tokens: 1, ..Default::default() });
    let pipeline = gpu.pipeline(PipelineKey::new(KernelId::Copy, 0));
    let bg = gpu.bind_buffers("copy", &pipeline, &[&params, &step, &src, &dst]);
    let groups = n_vec4.div_ceil(256).min(65535);
    let secs = super::time_gpu(gpu, 5, || {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bg, &[]);
            for _ in 0..reps {
                pass.dispatch_workgroups(groups, 1, 1);
            }
        }
        gpu.queue.submit([enc.finish()]);
    });
    (2 * bytes * reps as u64) as f64 / secs
}
