//! Per-channel elementwise kernels over `[channels, t]` tensors: the Snake activation
//! (`snake.wgsl`, the DAC decoder) and WaveNet's gated activation (`wavenet_gate.wgsl`, Piper's
//! flow). Both take one `channels` uniform and a grid of (ceil(t / 256), channels).

use super::recorder::Recorder;
use crate::gpu::params::SnakeParams;
use crate::gpu::{Gpu, KernelId};

fn record_per_channel(rec: &mut Recorder, kernel: KernelId, channels: usize, t: usize, buffers: &[&wgpu::Buffer]) {
    let p = SnakeParams { channels: channels as u32, ..Default::default() };
    rec.dispatch_in_order(kernel, &p, t, buffers, (t.div_ceil(256) as u32, channels as u32));
}

/// A Snake activation with its per-channel alphas resident on the GPU.
pub struct GpuSnake {
    pub channels: usize,
    alpha: wgpu::Buffer,
}

impl GpuSnake {
    pub fn new(gpu: &Gpu, label: &str, alpha: &[f32]) -> Self {
        Recorder::precompile(gpu, KernelId::Snake);
        GpuSnake { channels: alpha.len(), alpha: gpu.storage_from(label, alpha) }
    }

    /// Records `y = snake(x)` over `[channels, t]`; `y` must not alias `x`.
    pub fn record(&self, rec: &mut Recorder, t: usize, x: &wgpu::Buffer, y: &wgpu::Buffer) {
        record_per_channel(rec, KernelId::Snake, self.channels, t, &[x, &self.alpha, y]);
    }
}

/// WaveNet's gated activation `tanh(a[..c]) * sigmoid(a[c..])`.
pub struct GpuGate {
    channels: usize,
}

impl GpuGate {
    pub fn new(gpu: &Gpu, channels: usize) -> Self {
        Recorder::precompile(gpu, KernelId::WavenetGate);
        GpuGate { channels }
    }

    /// Records `y [channels, t] = gate(a [2 * channels, t])`; `y` must not alias `a`.
    pub fn record(&self, rec: &mut Recorder, t: usize, a: &wgpu::Buffer, y: &wgpu::Buffer) {
        record_per_channel(rec, KernelId::WavenetGate, self.channels, t, &[a, y]);
    }
}
