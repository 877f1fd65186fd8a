//! Direct dispatch of the 1-D convolution kernels (`conv1d.wgsl`, `conv_transpose1d.wgsl`)
//! for models whose structure is a fixed stack of convolutions (HiFi-GAN, WaveNet-style
//! flows): weights and per-layer uniforms are uploaded once; a call binds activations,
//! writes the time lengths into `Step` uniforms and records every layer in one pass.

use std::sync::Arc;

use super::params::{conv1d as conv, Conv1dParams, ConvTranspose1dParams, SnakeParams, Step};
use super::{Gpu, KernelId, PipelineKey};
use crate::reference::conv::{Conv1dShape, ConvTranspose1dShape};

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

/// One `Conv1d` layer resident on the GPU.
pub struct GpuConv1d {
    pub shape: Conv1dShape,
    pub epilogue: Conv1dEpilogue,
    weight: wgpu::Buffer,
    bias: Option<wgpu::Buffer>,
    params: wgpu::Buffer,
    pipeline: Arc<wgpu::ComputePipeline>,
}

impl GpuConv1d {
    pub fn new(gpu: &Gpu, label: &str, shape: Conv1dShape, w: &[f32], b: Option<&[f32]>, ep: Conv1dEpilogue) -> Self {
        assert_eq!(w.len(), shape.weight_len(), "{label}: weight length");
        let mut flags = 0;
        if b.is_some() {
            flags |= conv::BIAS;
        }
        if ep.pre_slope.is_some() {
            flags |= conv::PRE_LRELU;
        }
        if ep.residual {
            flags |= conv::RESIDUAL;
        }
        if ep.accumulate {
            flags |= conv::ACCUMULATE;
        }
        if ep.tanh {
            flags |= conv::POST_TANH;
        }
        let p = Conv1dParams {
            c_in: shape.c_in as u32,
            c_out: shape.c_out as u32,
            kernel: shape.kernel as u32,
            dilation: shape.dilation as u32,
            padding: shape.padding as u32,
            groups: shape.groups as u32,
            flags,
            slope: ep.pre_slope.unwrap_or(0.0),
            out_scale: ep.out_scale,
            ..Default::default()
        };
        GpuConv1d {
            shape,
            epilogue: ep,
            weight: gpu.storage_from(label, w),
            bias: b.map(|b| gpu.storage_from(label, b)),
            params: gpu.uniform_from(label, &p),
            pipeline: gpu.pipeline(PipelineKey::new(KernelId::Conv1d, 0)),
        }
    }

    /// Records the layer for an input of `t_in` steps (`step` holds `n_tokens = t_in`).
    /// `res` is required when the epilogue is residual; `y` must not alias `x` or `res`.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        gpu: &Gpu,
        rec: &mut Recorder,
        step: &wgpu::Buffer,
        t_in: usize,
        x: &wgpu::Buffer,
        res: Option<&wgpu::Buffer>,
        y: &wgpu::Buffer,
    ) {
        assert_eq!(res.is_some(), self.epilogue.residual, "residual binding");
        let dummy = &rec.dummy.clone();
        let entries = [
            self.params.as_entire_binding(),
            step.as_entire_binding(),
            x.as_entire_binding(),
            self.weight.as_entire_binding(),
            self.bias.as_ref().unwrap_or(dummy).as_entire_binding(),
            res.unwrap_or(dummy).as_entire_binding(),
            y.as_entire_binding(),
        ];
        let t_out = self.shape.t_out(t_in);
        // 64 invocations x 4 time steps per workgroup (see the shader).
        rec.push(gpu, &self.pipeline, &entries, (t_out.div_ceil(256) as u32, self.shape.c_out.div_ceil(4) as u32));
    }
}

/// One `ConvTranspose1d` layer resident on the GPU.
pub struct GpuConvTranspose1d {
    pub shape: ConvTranspose1dShape,
    weight: wgpu::Buffer,
    bias: Option<wgpu::Buffer>,
    params: wgpu::Buffer,
    pipeline: Arc<wgpu::ComputePipeline>,
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
        let mut flags = 0;
        if b.is_some() {
            flags |= conv::BIAS;
        }
        if pre_slope.is_some() {
            flags |= conv::PRE_LRELU;
        }
        let p = ConvTranspose1dParams {
            c_in: shape.c_in as u32,
            c_out: shape.c_out as u32,
            kernel: shape.kernel as u32,
            stride: shape.stride as u32,
            padding: shape.padding as u32,
            flags,
            slope: pre_slope.unwrap_or(0.0),
            pad0: 0,
        };
        GpuConvTranspose1d {
            shape,
            weight: gpu.storage_from(label, w),
            bias: b.map(|b| gpu.storage_from(label, b)),
            params: gpu.uniform_from(label, &p),
            pipeline: gpu.pipeline(PipelineKey::new(KernelId::ConvTranspose1d, 0)),
        }
    }

    pub fn record(
        &self,
        gpu: &Gpu,
        rec: &mut Recorder,
        step: &wgpu::Buffer,
        t_in: usize,
        x: &wgpu::Buffer,
        y: &wgpu::Buffer,
    ) {
        let dummy = rec.dummy.clone();
        let entries = [
            self.params.as_entire_binding(),
            step.as_entire_binding(),
            x.as_entire_binding(),
            self.weight.as_entire_binding(),
            self.bias.as_ref().unwrap_or(&dummy).as_entire_binding(),
            y.as_entire_binding(),
        ];
        let t_out = self.shape.t_out(t_in);
        rec.push(gpu, &self.pipeline, &entries, (t_out.div_ceil(64) as u32, self.shape.c_out.div_ceil(4) as u32));
    }
}

/// A per-channel elementwise kernel over `[channels, t]` tensors (`snake.wgsl`,
/// `wavenet_gate.wgsl`): its `channels` uniform and pipeline; bindings after the
/// uniforms are the kernel's buffers in order; grid (ceil(t / 256), channels).
struct PerChannel {
    channels: usize,
    params: wgpu::Buffer,
    pipeline: Arc<wgpu::ComputePipeline>,
}

impl PerChannel {
    fn new(gpu: &Gpu, label: &str, kernel: KernelId, channels: usize) -> Self {
        let p = SnakeParams { channels: channels as u32, ..Default::default() };
        let pipeline = gpu.pipeline(PipelineKey::new(kernel, 0));
        PerChannel { channels, params: gpu.uniform_from(label, &p), pipeline }
    }

    fn record(&self, gpu: &Gpu, rec: &mut Recorder, step: &wgpu::Buffer, t: usize, bufs: &[&wgpu::Buffer]) {
        let all: Vec<&wgpu::Buffer> = [&self.params, step].into_iter().chain(bufs.iter().copied()).collect();
        rec.push_buffers(gpu, &self.pipeline, &all, (t.div_ceil(256) as u32, self.channels as u32));
    }
}

/// A Snake activation (`snake.wgsl`) with its per-channel alphas resident on the GPU.
pub struct GpuSnake {
    pub channels: usize,
    alpha: wgpu::Buffer,
    kernel: PerChannel,
}

impl GpuSnake {
    pub fn new(gpu: &Gpu, label: &str, alpha: &[f32]) -> Self {
        GpuSnake {
            channels: alpha.len(),
            alpha: gpu.storage_from(label, alpha),
            kernel: PerChannel::new(gpu, label, KernelId::Snake, alpha.len()),
        }
    }

    /// Records `y = snake(x)` over `[channels, t]` (`step` holds `n_tokens = t`); `y` must not alias `x`.
    pub fn record(
        &self,
        gpu: &Gpu,
        rec: &mut Recorder,
        step: &wgpu::Buffer,
        t: usize,
        x: &wgpu::Buffer,
        y: &wgpu::Buffer,
    ) {
        self.kernel.record(gpu, rec, step, t, &[x, &self.alpha, y]);
    }
}

/// WaveNet's gated activation `tanh(a[..c]) * sigmoid(a[c..])` (`wavenet_gate.wgsl`).
pub struct GpuGate {
    kernel: PerChannel,
}

impl GpuGate {
    pub fn new(gpu: &Gpu, channels: usize) -> Self {
        GpuGate { kernel: PerChannel::new(gpu, "wavenet gate", KernelId::WavenetGate, channels) }
    }

    /// Records `y [channels, t] = gate(a [2 * channels, t])`; `y` must not alias `a`.
    pub fn record(
        &self,
        gpu: &Gpu,
        rec: &mut Recorder,
        step: &wgpu::Buffer,
        t: usize,
        a: &wgpu::Buffer,
        y: &wgpu::Buffer,
    ) {
        self.kernel.record(gpu, rec, step, t, &[a, y]);
    }
}

/// The dispatches of one call, recorded in order and submitted in one compute pass.
pub struct Recorder {
    dummy: wgpu::Buffer,
    dispatches: Vec<(Arc<wgpu::ComputePipeline>, wgpu::BindGroup, (u32, u32))>,
}

impl Recorder {
    pub fn new(gpu: &Gpu) -> Self {
        Recorder { dummy: gpu.storage("conv dummy", 16), dispatches: Vec::new() }
    }

    /// A `Step` uniform whose `n_tokens` is a time length.
    pub fn step(gpu: &Gpu, t: usize) -> wgpu::Buffer {
        gpu.uniform_from("conv step", &Step { n_tokens: t as u32, ..Default::default() })
    }

    /// Queues one dispatch of `pipeline` with `resources` bound in order at 0, 1, ...
    pub fn push(
        &mut self,
        gpu: &Gpu,
        pipeline: &Arc<wgpu::ComputePipeline>,
        resources: &[wgpu::BindingResource],
        grid: (u32, u32),
    ) {
        let bg = gpu.bind_in_order(None, pipeline, resources);
        self.dispatches.push((pipeline.clone(), bg, grid));
    }

    /// `push` with every binding a whole buffer (uniforms first, as the kernel declares them).
    pub fn push_buffers(
        &mut self,
        gpu: &Gpu,
        pipeline: &Arc<wgpu::ComputePipeline>,
        buffers: &[&wgpu::Buffer],
        grid: (u32, u32),
    ) {
        let entries: Vec<_> = buffers.iter().map(|b| b.as_entire_binding()).collect();
        self.push(gpu, pipeline, &entries, grid);
    }

    pub fn len(&self) -> usize {
        self.dispatches.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dispatches.is_empty()
    }

    /// Records every dispatch in one compute pass and submits it.
    pub fn submit(self, gpu: &Gpu) {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for (pipeline, bg, (x, y)) in &self.dispatches {
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, bg, &[]);
                pass.dispatch_workgroups(*x, *y, 1);
            }
        }
        gpu.queue.submit([enc.finish()]);
    }
}
