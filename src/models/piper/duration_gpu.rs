//! The VITS stochastic duration predictor (reverse direction) on the GPU. The two
//! noise channels live in two `[t]` buffers, so a Flip only swaps which buffer is
//! which (one channel per half: nothing to reverse). DDSConv: the depthwise dilated
//! conv, LayerNorm + GELU, the 1x1 conv, LayerNorm + GELU accumulating into the
//! running input. A ConvFlow's pre conv adds the conditioning (the predictor's own
//! DDSConv output) as its residual; `spline_inverse.wgsl` updates the second channel
//! in place. The closing ElementwiseAffine is two scalars, applied by the caller to
//! the `t` values it reads back anyway (the frame counts size the next submission).

use super::duration::{DdsConv, DurationPredictor};
use super::gpu_ops::{GpuChannelNorm, GpuSpline, MAX_BINS};
use super::layers::upload;
use crate::gpu::Gpu;
use crate::nn::{Conv1dEpilogue, GpuConv1d, Recorder};

struct GpuDdsLayer {
    sep: GpuConv1d,
    norm1: GpuChannelNorm,
    one: GpuConv1d,
    norm2: GpuChannelNorm,
}

struct GpuDds {
    layers: Vec<GpuDdsLayer>,
}

impl GpuDds {
    fn new(gpu: &Gpu, d: &DdsConv) -> Self {
        let plain = Conv1dEpilogue::default();
        let layers = (0..d.sep.len())
            .map(|i| GpuDdsLayer {
                sep: upload(gpu, "dp.sep", &d.sep[i], plain),
                norm1: GpuChannelNorm::new(gpu, &d.norm1[i], true, false),
                one: upload(gpu, "dp.1x1", &d.one[i], plain),
                norm2: GpuChannelNorm::new(gpu, &d.norm2[i], true, true),
            })
            .collect();
        GpuDds { layers }
    }

    /// `x += ...` per layer, with `t1`, `t2` as scratch of x's size.
    fn record(&self, rec: &mut Recorder, t: usize, x: &wgpu::Buffer, t1: &wgpu::Buffer, t2: &wgpu::Buffer) {
        for l in &self.layers {
            l.sep.record(rec, t, x, None, t1);
            l.norm1.record(rec, t, t1, t2);
            l.one.record(rec, t, t2, None, t1);
            l.norm2.record(rec, t, t1, x);
        }
    }
}

struct GpuConvFlow {
    pre: GpuConv1d,
    convs: GpuDds,
    proj: GpuConv1d,
    spline: GpuSpline,
    params_channels: usize,
}

pub struct GpuDurationPredictor {
    filter: usize,
    pre: GpuConv1d,
    convs: GpuDds,
    proj: GpuConv1d,
    flows: Vec<GpuConvFlow>,
}

impl GpuDurationPredictor {
    /// None when a flow's shape is outside what the kernels take (the CPU predictor runs then).
    pub fn new(gpu: &Gpu, dp: &DurationPredictor) -> Option<GpuDurationPredictor> {
        let filter = dp.pre.shape.c_out;
        let ok = dp.conv_flows.iter().all(|f| {
            f.bins <= MAX_BINS && f.filter == filter && f.pre.shape.c_in == 1 && f.proj.shape.c_out == 3 * f.bins - 1
        });
        if !ok || dp.proj.shape.c_out != filter {
            return None;
        }
        let plain = Conv1dEpilogue::default();
        let residual = Conv1dEpilogue { residual: true, ..Default::default() };
        let flows = dp
            .conv_flows
            .iter()
            .map(|f| GpuConvFlow {
                pre: upload(gpu, "dp.flow.pre", &f.pre, residual),
                convs: GpuDds::new(gpu, &f.convs),
                proj: upload(gpu, "dp.flow.proj", &f.proj, plain),
                spline: GpuSpline::new(gpu, f.bins, f.filter),
                params_channels: f.proj.shape.c_out,
            })
            .collect();
        Some(GpuDurationPredictor {
            filter,
            pre: upload(gpu, "dp.pre", &dp.pre, plain),
            convs: GpuDds::new(gpu, &dp.convs),
            proj: upload(gpu, "dp.proj", &dp.proj, plain),
            flows,
        })
    }

    /// Records the flows over encoder states `x [hidden, t]` and `noise [2, t]` (N(0,1) *
    /// noise_w); returns the buffer that will hold channel 0 before the final affine.
    pub fn record(&self, rec: &mut Recorder, t: usize, x: &wgpu::Buffer, noise: &[f32]) -> wgpu::Buffer {
        let gpu = rec.gpu().clone();
        let bytes = |c: usize| (c * t * 4) as u64;
        let (g, h, t1, t2) = (
            gpu.storage("dp.g", bytes(self.filter)),
            gpu.storage("dp.h", bytes(self.filter)),
            gpu.storage("dp.t1", bytes(self.filter)),
            gpu.storage("dp.t2", bytes(self.filter)),
        );
        self.pre.record(rec, t, x, None, &h);
        self.convs.record(rec, t, &h, &t1, &t2);
        self.proj.record(rec, t, &h, None, &g);
        let max_params = self.flows.iter().map(|f| f.params_channels).max().unwrap_or(1);
        let params = gpu.storage("dp.spline", bytes(max_params));
        let mut first = gpu.storage_from("dp.z0", &noise[..t]);
        let mut second = gpu.storage_from("dp.z1", &noise[t..2 * t]);
        for f in &self.flows {
            std::mem::swap(&mut first, &mut second);
            f.pre.record(rec, t, &first, Some(&g), &h);
            f.convs.record(rec, t, &h, &t1, &t2);
            f.proj.record(rec, t, &h, None, &params);
            f.spline.record(rec, t, &params, &second);
        }
        // The flip before the affine.
        second
    }
}
