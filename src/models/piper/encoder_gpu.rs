//! The VITS text encoder on the GPU: the embedding rows (a table lookup, on upload),
//! then per layer q|k|v as one 1x1 conv, `rel_attention.wgsl`, conv_o adding the
//! residual, channel LayerNorm, the FFN convs (ReLU as a leaky ReLU of slope 0 on the
//! second conv's input) adding the residual, LayerNorm; finally the 1x1 projection to
//! the prior's mean and log-std. Two activation buffers ping-pong so no dispatch
//! writes what it reads.

use super::encoder::TextEncoder;
use super::gpu_ops::{GpuChannelNorm, GpuRelAttention, MAX_HEAD_DIM};
use super::layers::{upload, Conv};
use crate::gpu::{Gpu, GpuError};
use crate::nn::{Conv1dEpilogue, Conv1dShape, GpuConv1d, Recorder};

struct GpuEncoderLayer {
    qkv: GpuConv1d,
    attn: GpuRelAttention,
    o: GpuConv1d,
    norm1: GpuChannelNorm,
    ffn1: GpuConv1d,
    ffn2: GpuConv1d,
    norm2: GpuChannelNorm,
}

pub struct GpuTextEncoder {
    hidden: usize,
    filter: usize,
    layers: Vec<GpuEncoderLayer>,
    proj: GpuConv1d,
    /// Output channels of `proj` (mean and log-std rows).
    pub stats_channels: usize,
}

/// Buffers the encoder leaves on the GPU: the hidden states `[hidden, t]` (the duration
/// predictor's input) and the prior `[2 * channels, t]` (mean rows, then log-std rows).
pub struct GpuEncoded {
    pub x: wgpu::Buffer,
    pub stats: wgpu::Buffer,
}

/// Three 1x1 convs over the same input as one conv writing their outputs one after another.
fn concat_outputs(convs: [&Conv; 3]) -> Conv {
    let shape = Conv1dShape { c_out: convs.iter().map(|c| c.shape.c_out).sum(), ..convs[0].shape };
    let w = convs.iter().flat_map(|c| c.w.iter().copied()).collect();
    let b = convs.iter().map(|c| c.b.clone()).collect::<Option<Vec<_>>>().map(|b| b.concat());
    Conv { shape, w, b }
}

impl GpuTextEncoder {
    /// None when a layer's shape is outside what the kernels take (the CPU encoder runs then).
    pub fn new(gpu: &Gpu, enc: &TextEncoder) -> Option<GpuTextEncoder> {
        let h = enc.hidden;
        let fits = |l: &super::encoder::Layer| {
            let a = &l.attn;
            a.head_dim <= MAX_HEAD_DIM
                && [&a.q, &a.k, &a.v, &a.o].iter().all(|c| c.shape.kernel == 1 && c.shape.groups == 1)
                && [&a.q, &a.k, &a.v, &a.o].iter().all(|c| c.shape.c_in == h && c.shape.c_out == h)
                && l.ffn1.shape.groups == 1
                && l.ffn2.shape.c_out == h
        };
        if enc.layers.is_empty() || !enc.layers.iter().all(fits) {
            return None;
        }
        let plain = Conv1dEpilogue::default();
        let residual = Conv1dEpilogue { residual: true, ..Default::default() };
        let layers = enc
            .layers
            .iter()
            .map(|l| {
                let a = &l.attn;
                GpuEncoderLayer {
                    qkv: upload(gpu, "enc.qkv", &concat_outputs([&a.q, &a.k, &a.v]), plain),
                    attn: GpuRelAttention::new(gpu, h, a.head_dim, a.window, &a.rel_k, &a.rel_v),
                    o: upload(gpu, "enc.o", &a.o, residual),
                    norm1: GpuChannelNorm::new(gpu, &l.norm1, false, false),
                    ffn1: upload(gpu, "enc.ffn1", &l.ffn1, plain),
                    ffn2: upload(gpu, "enc.ffn2", &l.ffn2, Conv1dEpilogue { pre_slope: Some(0.0), ..residual }),
                    norm2: GpuChannelNorm::new(gpu, &l.norm2, false, false),
                }
            })
            .collect();
        Some(GpuTextEncoder {
            hidden: h,
            filter: enc.layers[0].ffn1.shape.c_out,
            layers,
            proj: upload(gpu, "enc.proj", &enc.proj, plain),
            stats_channels: enc.proj.shape.c_out,
        })
    }

    /// Records the encoder over `x0` (the embedded ids, `[hidden, t]`, see `TextEncoder::embed`).
    pub fn record(&self, rec: &mut Recorder, x0: &[f32]) -> Result<GpuEncoded, GpuError> {
        let gpu = rec.gpu().clone();
        let h = self.hidden;
        let t = x0.len() / h;
        let bytes = |c: usize| (c * t * 4) as u64;
        let heads = self.layers[0].attn.heads;
        let score_bytes = (heads * t * t * 4) as u64;
        gpu.check_binding("text encoder attention scores", score_bytes)?;
        gpu.check_binding("text encoder FFN", bytes(self.filter))?;
        let x = gpu.storage_from("enc.x", x0);
        let y = gpu.storage("enc.y", bytes(h));
        let qkv = gpu.storage("enc.qkv", bytes(3 * h));
        let attn = gpu.storage("enc.attn", bytes(h));
        let ffn = gpu.storage("enc.ffn", bytes(self.filter));
        let scores = gpu.storage("enc.scores", score_bytes);
        for l in &self.layers {
            l.qkv.record(rec, t, &x, None, &qkv);
            l.attn.record(rec, t, &qkv, &scores, &attn);
            l.o.record(rec, t, &attn, Some(&x), &y);
            l.norm1.record(rec, t, &y, &x);
            l.ffn1.record(rec, t, &x, None, &ffn);
            l.ffn2.record(rec, t, &ffn, Some(&x), &y);
            l.norm2.record(rec, t, &y, &x);
        }
        let stats = gpu.storage("enc.stats", bytes(self.stats_channels));
        self.proj.record(rec, t, &x, None, &stats);
        Ok(GpuEncoded { x, stats })
    }
}
