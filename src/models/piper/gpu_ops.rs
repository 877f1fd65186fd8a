//! The VITS-specific kernels of the Piper text encoder and duration predictor, each
//! with its uniforms uploaded once: channel LayerNorm (+ GELU, + accumulate),
//! relative-position windowed attention, the inverse rational-quadratic spline, and
//! the prior's expansion to frames. Convolutions are `gpu::conv::GpuConv1d`.

use std::sync::Arc;

use super::layers::LayerNorm;
use crate::gpu::conv::Recorder;
use crate::gpu::params::{
    layernorm_channels as ln_flags, ExpandPriorParams, LayerNormChannelsParams, RelAttentionParams, SplineParams,
};
use crate::gpu::{Gpu, KernelId, PipelineKey};

fn pipeline(gpu: &Gpu, kernel: KernelId) -> Arc<wgpu::ComputePipeline> {
    gpu.pipeline(PipelineKey::new(kernel, 0))
}

/// `layernorm_channels.wgsl`: LayerNorm over the channels of `[channels, t]`.
pub struct GpuChannelNorm {
    gamma: wgpu::Buffer,
    beta: wgpu::Buffer,
    params: wgpu::Buffer,
    pipeline: Arc<wgpu::ComputePipeline>,
}

impl GpuChannelNorm {
    /// `gelu`: GELU after the norm; `accumulate`: add into the output instead of overwriting it.
    pub fn new(gpu: &Gpu, ln: &LayerNorm, gelu: bool, accumulate: bool) -> Self {
        let flags = if gelu { ln_flags::GELU } else { 0 } | if accumulate { ln_flags::ACCUMULATE } else { 0 };
        let p = LayerNormChannelsParams { channels: ln.gamma.len() as u32, flags, eps: 1e-5, pad0: 0 };
        GpuChannelNorm {
            gamma: gpu.storage_from("vits.ln.gamma", &ln.gamma),
            beta: gpu.storage_from("vits.ln.beta", &ln.beta),
            params: gpu.uniform_from("vits.ln", &p),
            pipeline: pipeline(gpu, KernelId::LayerNormChannels),
        }
    }

    /// `y = norm(x)` (or `y += ..`) for `t` time steps; `y` must not alias `x`.
    pub fn record(
        &self,
        gpu: &Gpu,
        rec: &mut Recorder,
        step: &wgpu::Buffer,
        t: usize,
        x: &wgpu::Buffer,
        y: &wgpu::Buffer,
    ) {
        let bufs = [&self.params, step, x, &self.gamma, &self.beta, y];
        rec.push_buffers(gpu, &self.pipeline, &bufs, (t.div_ceil(64) as u32, 1));
    }
}

/// `rel_attention.wgsl` with a layer's relative key / value embeddings.
pub struct GpuRelAttention {
    rel_k: wgpu::Buffer,
    rel_v: wgpu::Buffer,
    params: wgpu::Buffer,
    pipeline: Arc<wgpu::ComputePipeline>,
    pub heads: usize,
}

/// The largest head size `rel_attention.wgsl` holds in workgroup memory.
pub const MAX_HEAD_DIM: usize = 256;

impl GpuRelAttention {
    pub fn new(gpu: &Gpu, channels: usize, head_dim: usize, window: usize, rel_k: &[f32], rel_v: &[f32]) -> Self {
        assert!(head_dim <= MAX_HEAD_DIM && channels.is_multiple_of(head_dim), "head_dim {head_dim}");
        let p =
            RelAttentionParams { channels: channels as u32, head_dim: head_dim as u32, window: window as u32, pad0: 0 };
        GpuRelAttention {
            rel_k: gpu.storage_from("vits.rel_k", rel_k),
            rel_v: gpu.storage_from("vits.rel_v", rel_v),
            params: gpu.uniform_from("vits.attn", &p),
            pipeline: pipeline(gpu, KernelId::RelAttention),
            heads: channels / head_dim,
        }
    }

    /// `out [channels, t]` from `qkv [3 * channels, t]`; `scores` holds `heads * t * t` floats.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        gpu: &Gpu,
        rec: &mut Recorder,
        step: &wgpu::Buffer,
        t: usize,
        qkv: &wgpu::Buffer,
        scores: &wgpu::Buffer,
        out: &wgpu::Buffer,
    ) {
        let bufs = [&self.params, step, qkv, &self.rel_k, &self.rel_v, scores, out];
        rec.push_buffers(gpu, &self.pipeline, &bufs, (t as u32, self.heads as u32));
    }
}

/// `spline_inverse.wgsl` for one ConvFlow's bin count and filter width.
pub struct GpuSpline {
    params: wgpu::Buffer,
    pipeline: Arc<wgpu::ComputePipeline>,
}

/// The largest bin count `spline_inverse.wgsl` holds in registers.
pub const MAX_BINS: usize = 32;

impl GpuSpline {
    pub fn new(gpu: &Gpu, bins: usize, filter: usize) -> Self {
        assert!((1..=MAX_BINS).contains(&bins), "{bins} spline bins");
        let p = SplineParams { bins: bins as u32, pad0: 0, inv_sqrt_filter: 1.0 / (filter as f32).sqrt(), pad1: 0 };
        GpuSpline { params: gpu.uniform_from("vits.spline", &p), pipeline: pipeline(gpu, KernelId::SplineInverse) }
    }

    /// `z [t] = spline^-1(z)` with the per-step parameters `h [3 * bins - 1, t]`.
    pub fn record(
        &self,
        gpu: &Gpu,
        rec: &mut Recorder,
        step: &wgpu::Buffer,
        t: usize,
        h: &wgpu::Buffer,
        z: &wgpu::Buffer,
    ) {
        rec.push_buffers(gpu, &self.pipeline, &[&self.params, step, h, z], (t.div_ceil(64) as u32, 1));
    }
}

/// Records `expand_prior.wgsl` into `out` for channels `[ch0, ch0 + channels)` of a prior
/// with `total` channels (`stats: [2 * total, t_text]`), over the frames `step` holds.
#[allow(clippy::too_many_arguments)]
pub fn record_expand_prior(
    gpu: &Gpu,
    rec: &mut Recorder,
    step: &wgpu::Buffer,
    frames: usize,
    (ch0, channels, total, t_text): (usize, usize, usize, usize),
    stats: &wgpu::Buffer,
    idx: &wgpu::Buffer,
    noise: &wgpu::Buffer,
    out: &wgpu::Buffer,
) {
    let p = ExpandPriorParams {
        channels: channels as u32,
        ch0: ch0 as u32,
        t_text: t_text as u32,
        logs_row0: total as u32,
    };
    let params = gpu.uniform_from("vits.expand", &p);
    let bufs = [&params, step, stats, idx, noise, out];
    rec.push_buffers(gpu, &pipeline(gpu, KernelId::ExpandPrior), &bufs, (frames.div_ceil(256) as u32, channels as u32));
}
