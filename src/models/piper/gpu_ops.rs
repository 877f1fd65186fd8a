//! The VITS-specific kernels of the Piper text encoder and duration predictor: channel
//! LayerNorm (+ GELU, + accumulate), relative-position windowed attention, the inverse
//! rational-quadratic spline, and the prior's expansion to frames. Convolutions are
//! `nn::GpuConv1d`.

use super::layers::LayerNorm;
use crate::gpu::params::{
    layernorm_channels as ln_flags, ExpandPriorParams, LayerNormChannelsParams, RelAttentionParams, SplineParams,
};
use crate::gpu::{Gpu, KernelId};
use crate::nn::Recorder;

/// `layernorm_channels.wgsl`: LayerNorm over the channels of `[channels, t]`.
pub struct GpuChannelNorm {
    gamma: wgpu::Buffer,
    beta: wgpu::Buffer,
    params: LayerNormChannelsParams,
}

impl GpuChannelNorm {
    /// `gelu`: GELU after the norm; `accumulate`: add into the output instead of overwriting it.
    pub fn new(gpu: &Gpu, ln: &LayerNorm, gelu: bool, accumulate: bool) -> Self {
        let flags = if gelu { ln_flags::GELU } else { 0 } | if accumulate { ln_flags::ACCUMULATE } else { 0 };
        Recorder::precompile(gpu, KernelId::LayerNormChannels);
        GpuChannelNorm {
            gamma: gpu.storage_from("vits.ln.gamma", &ln.gamma),
            beta: gpu.storage_from("vits.ln.beta", &ln.beta),
            params: LayerNormChannelsParams { channels: ln.gamma.len() as u32, flags, eps: 1e-5, pad0: 0 },
        }
    }

    /// `y = norm(x)` (or `y += ..`) for `t` time steps; `y` must not alias `x`.
    pub fn record(&self, rec: &mut Recorder, t: usize, x: &wgpu::Buffer, y: &wgpu::Buffer) {
        let buffers = [x, &self.gamma, &self.beta, y];
        rec.dispatch_in_order(KernelId::LayerNormChannels, &self.params, t, &buffers, (t.div_ceil(64) as u32, 1));
    }
}

/// `rel_attention.wgsl` with a layer's relative key / value embeddings.
pub struct GpuRelAttention {
    rel_k: wgpu::Buffer,
    rel_v: wgpu::Buffer,
    params: RelAttentionParams,
    pub heads: usize,
}

/// The largest head size `rel_attention.wgsl` holds in workgroup memory.
pub const MAX_HEAD_DIM: usize = 256;

impl GpuRelAttention {
    pub fn new(gpu: &Gpu, channels: usize, head_dim: usize, window: usize, rel_k: &[f32], rel_v: &[f32]) -> Self {
        assert!(head_dim <= MAX_HEAD_DIM && channels.is_multiple_of(head_dim), "head_dim {head_dim}");
        Recorder::precompile(gpu, KernelId::RelAttention);
        GpuRelAttention {
            rel_k: gpu.storage_from("vits.rel_k", rel_k),
            rel_v: gpu.storage_from("vits.rel_v", rel_v),
            params: RelAttentionParams {
                channels: channels as u32,
                head_dim: head_dim as u32,
                window: window as u32,
                pad0: 0,
            },
            heads: channels / head_dim,
        }
    }

    /// `out [channels, t]` from `qkv [3 * channels, t]`; `scores` holds `heads * t * t` floats.
    pub fn record(&self, rec: &mut Recorder, t: usize, qkv: &wgpu::Buffer, scores: &wgpu::Buffer, out: &wgpu::Buffer) {
        let buffers = [qkv, &self.rel_k, &self.rel_v, scores, out];
        rec.dispatch_in_order(KernelId::RelAttention, &self.params, t, &buffers, (t as u32, self.heads as u32));
    }
}

/// `spline_inverse.wgsl` for one ConvFlow's bin count and filter width.
pub struct GpuSpline {
    params: SplineParams,
}

/// The largest bin count `spline_inverse.wgsl` holds in registers.
pub const MAX_BINS: usize = 32;

impl GpuSpline {
    pub fn new(gpu: &Gpu, bins: usize, filter: usize) -> Self {
        assert!((1..=MAX_BINS).contains(&bins), "{bins} spline bins");
        Recorder::precompile(gpu, KernelId::SplineInverse);
        GpuSpline {
            params: SplineParams { bins: bins as u32, pad0: 0, inv_sqrt_filter: 1.0 / (filter as f32).sqrt(), pad1: 0 },
        }
    }

    /// `z [t] = spline^-1(z)` with the per-step parameters `h [3 * bins - 1, t]`.
    pub fn record(&self, rec: &mut Recorder, t: usize, h: &wgpu::Buffer, z: &wgpu::Buffer) {
        rec.dispatch_in_order(KernelId::SplineInverse, &self.params, t, &[h, z], (t.div_ceil(64) as u32, 1));
    }
}

/// Records `expand_prior.wgsl` into `out` for channels `[ch0, ch0 + channels)` of a prior
/// with `total` channels (`stats: [2 * total, t_text]`), over `frames` frames.
pub fn record_expand_prior(
    rec: &mut Recorder,
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
    let grid = (frames.div_ceil(256) as u32, channels as u32);
    rec.dispatch_in_order(KernelId::ExpandPrior, &p, frames, &[stats, idx, noise, out], grid);
}
