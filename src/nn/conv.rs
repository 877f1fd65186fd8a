//! The 1-D convolution layers (`conv1d.wgsl`, `conv_transpose1d.wgsl`) of models that are a fixed
//! stack of convolutions (HiFi-GAN, WaveNet-style flows, the DAC decoder): weights are uploaded
//! once at load; a call records every layer with its time length into a [`Recorder`].

use super::conv_shape::{Conv1dShape, ConvTranspose1dShape};
use super::recorder::Recorder;
use crate::gpu::params::{conv1d as flag, Conv1dParams, ConvTranspose1dParams};
use crate::gpu::{Gpu, KernelId};

/// What a `conv1d` dispatch does around the convolution (see the shader's header).
#[derive(Debug, Clone, Copy)]
pub struct Conv1dEpilogue {
    /// Leaky ReLU slope applied to the input before the convolution.
    pub pre_slope: Option<f32>,
    /// Add the `res` tensor (same shape as the output).
    pub residual: bool,
    pub tanh: bool,
    pub out_scale: f32,
    /// Add into what the output buffer holds instead of overwriting it.
    pub accumulate: bool,
}

impl Default for Conv1dEpilogue {
    fn default() -> Self {
        Conv1dEpilogue { pre_slope: None, residual: false, tanh: false, out_scale: 1.0, accumulate: false }
    }
}

impl Conv1dEpilogue {
    /// The shaders' flag bits (both conv kernels read the same ones).
    fn flags(&self, bias: bool) -> u32 {
        let bits = [
            (bias, flag::BIAS),
            (self.pre_slope.is_some(), flag::PRE_LRELU),
            (self.residual, flag::RESIDUAL),
            (self.accumulate, flag::ACCUMULATE),
            (self.tanh, flag::POST_TANH),
        ];
        bits.iter().filter(|(on, _)| *on).fold(0, |flags, (_, bit)| flags | bit)
    }
}

/// A layer's weight and optional bias, resident on the GPU.
struct Weights {
    weight: wgpu::Buffer,
    bias: Option<wgpu::Buffer>,
}

impl Weights {
    fn upload(gpu: &Gpu, label: &str, w: &[f32], b: Option<&[f32]>) -> Self {
        Weights { weight: gpu.storage_from(label, w), bias: b.map(|b| gpu.storage_from(label, b)) }
    }

    /// The bias binding; without a bias the kernel reads none, and the weight fills the slot.
    fn bias(&self) -> &wgpu::Buffer {
        self.bias.as_ref().unwrap_or(&self.weight)
    }
}

/// One `Conv1d` layer resident on the GPU.
pub struct GpuConv1d {
    pub shape: Conv1dShape,
    pub epilogue: Conv1dEpilogue,
    weights: Weights,
    params: Conv1dParams,
}

impl GpuConv1d {
    pub fn new(gpu: &Gpu, label: &str, shape: Conv1dShape, w: &[f32], b: Option<&[f32]>, ep: Conv1dEpilogue) -> Self {
        assert_eq!(w.len(), shape.weight_len(), "{label}: weight length");
        let params = Conv1dParams {
            c_in: shape.c_in as u32,
            c_out: shape.c_out as u32,
            kernel: shape.kernel as u32,
            dilation: shape.dilation as u32,
            padding: shape.padding as u32,
            groups: shape.groups as u32,
            flags: ep.flags(b.is_some()),
            slope: ep.pre_slope.unwrap_or(0.0),
            out_scale: ep.out_scale,
            ..Default::default()
        };
        Recorder::precompile(gpu, KernelId::Conv1d);
        GpuConv1d { shape, epilogue: ep, weights: Weights::upload(gpu, label, w, b), params }
    }

    /// Records the layer for an input of `t_in` steps. `res` is required when the epilogue is
    /// residual; `y` must not alias `x` or `res`.
    pub fn record(
        &self,
        rec: &mut Recorder,
        t_in: usize,
        x: &wgpu::Buffer,
        res: Option<&wgpu::Buffer>,
        y: &wgpu::Buffer,
    ) {
        assert_eq!(res.is_some(), self.epilogue.residual, "residual binding");
        let w = &self.weights;
        // Without a residual the kernel reads no `res`: the weight fills the slot.
        let buffers = [x, &w.weight, w.bias(), res.unwrap_or(&w.weight), y];
        let t_out = self.shape.t_out(t_in);
        // 64 invocations x 4 time steps per workgroup (see the shader).
        let grid = (t_out.div_ceil(256) as u32, self.shape.c_out.div_ceil(4) as u32);
        rec.dispatch_in_order(KernelId::Conv1d, &self.params, t_in, &buffers, grid);
    }
}

/// One `ConvTranspose1d` layer resident on the GPU.
pub struct GpuConvTranspose1d {
    pub shape: ConvTranspose1dShape,
    weights: Weights,
    params: ConvTranspose1dParams,
}

impl GpuConvTranspose1d {
    pub fn new(
        gpu: &Gpu,
        label: &str,
        shape: ConvTranspose1dShape,
        w: &[f32],
        b: Option<&[f32]>,
        pre_slope: Option<f32>,
    ) -> Self {
        assert_eq!(w.len(), shape.c_in * shape.c_out * shape.kernel, "{label}: weight length");
        let params = ConvTranspose1dParams {
            c_in: shape.c_in as u32,
            c_out: shape.c_out as u32,
            kernel: shape.kernel as u32,
            stride: shape.stride as u32,
            padding: shape.padding as u32,
            flags: Conv1dEpilogue { pre_slope, ..Default::default() }.flags(b.is_some()),
            slope: pre_slope.unwrap_or(0.0),
            pad0: 0,
        };
        Recorder::precompile(gpu, KernelId::ConvTranspose1d);
        GpuConvTranspose1d { shape, weights: Weights::upload(gpu, label, w, b), params }
    }

    /// Records the layer for an input of `t_in` steps; `y` must not alias `x`.
    pub fn record(&self, rec: &mut Recorder, t_in: usize, x: &wgpu::Buffer, y: &wgpu::Buffer) {
        let w = &self.weights;
        let t_out = self.shape.t_out(t_in);
        let grid = (t_out.div_ceil(64) as u32, self.shape.c_out.div_ceil(4) as u32);
        rec.dispatch_in_order(KernelId::ConvTranspose1d, &self.params, t_in, &[x, &w.weight, w.bias(), y], grid);
    }
}
