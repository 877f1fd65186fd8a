//! HiFi-GAN generator on the GPU: conv_pre, then per stage leaky-ReLU + transposed-conv
//! upsampling and the mean of `ResBlock2`s of different kernel sizes and dilations, then
//! leaky-ReLU(0.01) + conv_post + tanh. Every layer is one `conv1d` / `conv_transpose1d`
//! dispatch with the activations and residuals fused in; the whole generator is one pass.

use super::config::DecoderArch;
use super::layers::{bad, upload, Conv};
use crate::executor::Executor;
use crate::gpu::{Gpu, GpuError};
use crate::models::ModelError;
use crate::nn::{Conv1dEpilogue, Conv1dShape, ConvTranspose1dShape, GpuConv1d, GpuConvTranspose1d, Recorder};
use crate::weights::safetensors::Checkpoint;

struct Stage {
    up: GpuConvTranspose1d,
    /// One ResBlock2 per kernel size; each a chain of dilated convs.
    blocks: Vec<Vec<GpuConv1d>>,
    channels: usize,
}

pub struct Decoder {
    exec: Executor,
    pub c_in: usize,
    /// Samples per frame (product of the upsample rates).
    pub hop: usize,
    /// Latent frames either side of a frame that its samples depend on (at least: every conv's
    /// full span counted on both sides), the context a window of frames is decoded with.
    pub reach: usize,
    /// conv_pre as two convs over the input's halves (channels [0, c_in / 2) with the
    /// bias, then the rest added in): the flow leaves z in two buffers.
    pre: [GpuConv1d; 2],
    stages: Vec<Stage>,
    post: GpuConv1d,
}

impl Decoder {
    pub fn load(exec: &Executor, ck: &Checkpoint, arch: &DecoderArch) -> Result<Self, ModelError> {
        let gpu = exec.gpu();
        if ck.contains("dec.resblocks.0.convs1.0.weight") {
            return Err(bad(ck, "HiFi-GAN ResBlock1 (high-quality voices) is not supported yet; ResBlock2 is"));
        }
        if ck.contains("dec.cond.weight") {
            return Err(bad(ck, "multi-speaker voices are not supported yet"));
        }
        let n_up = arch.upsample_rates.len();
        let nk = arch.resblock_dilations.len();
        if n_up == 0 || nk == 0 || arch.upsample_kernels.len() != n_up || arch.upsample_pads.len() != n_up {
            return Err(bad(ck, "decoder arch metadata is inconsistent"));
        }
        let pre_conv = Conv::load(ck, "dec.conv_pre", 1, 1)?;
        let c_in = pre_conv.shape.c_in;
        if pre_conv.shape.groups != 1 || c_in < 2 {
            return Err(bad(ck, "dec.conv_pre must be an ungrouped conv over >= 2 channels"));
        }
        let add = Conv1dEpilogue { accumulate: true, ..Default::default() };
        let pre = [
            upload(gpu, "dec.conv_pre", &in_channels(&pre_conv, 0, c_in / 2, true), Conv1dEpilogue::default()),
            upload(gpu, "dec.conv_pre", &in_channels(&pre_conv, c_in / 2, c_in, false), add),
        ];
        let mut stages = Vec::new();
        for i in 0..n_up {
            let name = format!("dec.ups.{i}.weight");
            let s = ck.shape(&name)?;
            let shape = ConvTranspose1dShape {
                c_in: s[0],
                c_out: s[1],
                kernel: s[2],
                stride: arch.upsample_rates[i],
                padding: arch.upsample_pads[i],
            };
            let w = ck.f32(&name, &s)?;
            let b = ck.f32(&format!("dec.ups.{i}.bias"), &[s[1]])?;
            let up = GpuConvTranspose1d::new(gpu, &name, shape, &w, Some(&b), Some(arch.lrelu_slope));
            let mut blocks = Vec::new();
            for (j, dils) in arch.resblock_dilations.iter().enumerate() {
                let rb = i * nk + j;
                let mut convs = Vec::new();
                for (c, &d) in dils.iter().enumerate() {
                    let conv = Conv::load(ck, &format!("dec.resblocks.{rb}.convs.{c}"), d, 1)?;
                    let last = c + 1 == dils.len();
                    let ep = Conv1dEpilogue {
                        pre_slope: Some(arch.lrelu_slope),
                        residual: true,
                        tanh: false,
                        // The block outputs are averaged: each adds 1/nk of itself into the sum.
                        out_scale: if last { 1.0 / nk as f32 } else { 1.0 },
                        accumulate: last && j > 0,
                    };
                    convs.push(upload(gpu, "dec.resblock", &conv, ep));
                }
                blocks.push(convs);
            }
            stages.push(Stage { up, blocks, channels: s[1] });
        }
        let post = upload(
            gpu,
            "dec.conv_post",
            &Conv::load(ck, "dec.conv_post", 1, 1)?,
            Conv1dEpilogue { pre_slope: Some(arch.post_lrelu_slope), tanh: true, ..Default::default() },
        );
        let hop = arch.upsample_rates.iter().product();
        // Windows of frames cut the waveform at `hop` samples a frame.
        let samples = |t: usize| stages.iter().fold(t, |len, st| st.up.shape.t_out(len));
        if (1..4).any(|t| samples(t) != t * hop) {
            return Err(bad(ck, "the decoder's upsampling does not give upsample_rates' product of samples a frame"));
        }
        let reach = receptive_reach(&pre[0], &stages, &post);
        Ok(Decoder { exec: exec.clone(), c_in, hop, reach, pre, stages, post })
    }

    /// Waveform `[t * hop]` of latent frames `z: [c_in, t]`; in windows of frames where the
    /// activations of all `t` would not fit one storage binding (a long sentence, a slow speed).
    pub fn forward(&self, z: &[f32], t: usize) -> Result<Vec<f32>, GpuError> {
        if self.fits(t) {
            return self.forward_whole(z, t);
        }
        let most = self.most_frames();
        if most <= 2 * self.reach {
            // Not even the context of one frame fits: report the whole input's need.
            return self.forward_whole(z, t);
        }
        self.forward_windows(z, t, most - 2 * self.reach)
    }

    /// `forward` in windows of `window` frames, each decoded with `reach` frames of context
    /// either side (all the receptive field), so its samples are the ones a whole pass gives.
    pub fn forward_windows(&self, z: &[f32], t: usize, window: usize) -> Result<Vec<f32>, GpuError> {
        let c = self.c_in;
        let mut audio = Vec::with_capacity(t * self.hop);
        for a in (0..t).step_by(window.max(1)) {
            let b = (a + window).min(t);
            let (lo, hi) = (a.saturating_sub(self.reach), (b + self.reach).min(t));
            let n = hi - lo;
            let mut zw = Vec::with_capacity(c * n);
            for ch in 0..c {
                zw.extend_from_slice(&z[ch * t + lo..ch * t + hi]);
            }
            let w = self.forward_whole(&zw, n)?;
            audio.extend_from_slice(&w[(a - lo) * self.hop..(b - lo) * self.hop]);
        }
        Ok(audio)
    }

    /// Whether the activations of `t` frames fit the device's storage-binding limit.
    pub fn fits(&self, t: usize) -> bool {
        let fit = |bytes: usize| self.exec.gpu().check_binding("decoder activation", bytes as u64).is_ok();
        let mut len = t;
        if !fit(self.pre[0].shape.c_out * len * 4) {
            return false;
        }
        for st in &self.stages {
            len = st.up.shape.t_out(len);
            if !fit(st.channels * len * 4) {
                return false;
            }
        }
        true
    }

    /// The most frames one pass fits (0 when not even one does).
    fn most_frames(&self) -> usize {
        let (mut lo, mut hi) = (0usize, 1usize);
        while self.fits(hi) {
            lo = hi;
            hi *= 2;
        }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn forward_whole(&self, z: &[f32], t: usize) -> Result<Vec<f32>, GpuError> {
        let gpu = &**self.exec.gpu();
        let (a, b) = upload_halves(gpu, z, self.c_in / 2 * t);
        let mut rec = self.exec.recorder();
        let (out, len) = self.record(&mut rec, &a, &b, t)?;
        rec.submit();
        gpu.read_f32(&out, len)
    }

    /// Records the generator on z given as its two channel halves ([c_in / 2, t] and
    /// [c_in - c_in / 2, t]); returns the buffer the samples will be in, and their count.
    pub fn record(
        &self,
        rec: &mut Recorder,
        a: &wgpu::Buffer,
        b: &wgpu::Buffer,
        t: usize,
    ) -> Result<(wgpu::Buffer, usize), GpuError> {
        let gpu = &**self.exec.gpu();
        let mut len = t;
        let mut cur = gpu.storage("dec.pre", (self.pre[0].shape.c_out * len * 4) as u64);
        self.pre[0].record(rec, len, a, None, &cur);
        self.pre[1].record(rec, len, b, None, &cur);
        for st in &self.stages {
            let len2 = st.up.shape.t_out(len);
            let bytes = (st.channels * len2 * 4) as u64;
            gpu.check_binding("decoder activation", bytes)?;
            let up = gpu.storage("dec.up", bytes);
            st.up.record(rec, len, &cur, &up);
            len = len2;
            let acc = gpu.storage("dec.acc", bytes);
            let tmp = [gpu.storage("dec.tmp0", bytes), gpu.storage("dec.tmp1", bytes)];
            for block in &st.blocks {
                let mut src = &up;
                for (c, conv) in block.iter().enumerate() {
                    let dst = if c + 1 == block.len() { &acc } else { &tmp[c % 2] };
                    conv.record(rec, len, src, Some(src), dst);
                    src = dst;
                }
            }
            cur = acc;
        }
        let out = gpu.storage("dec.out", (len * 4) as u64);
        self.post.record(rec, len, &cur, None, &out);
        Ok((out, len))
    }
}

/// An upper bound of the generator's receptive field, in latent frames either side: every
/// conv's whole span (dilation x (kernel - 1) samples at its stage's rate) and every transposed
/// conv's span in its input frames, summed along the deepest path (the resblocks run side by
/// side, so the widest counts).
fn receptive_reach(pre: &GpuConv1d, stages: &[Stage], post: &GpuConv1d) -> usize {
    let span = |c: &GpuConv1d| c.shape.dilation * (c.shape.kernel - 1);
    let mut frames = span(pre) as f64;
    let mut rate = 1usize;
    for st in stages {
        frames += st.up.shape.kernel.div_ceil(st.up.shape.stride) as f64 / rate as f64;
        rate *= st.up.shape.stride;
        let widest = st.blocks.iter().map(|b| b.iter().map(span).sum::<usize>()).max().unwrap_or(0);
        frames += widest as f64 / rate as f64;
    }
    frames += span(post) as f64 / rate as f64;
    frames.ceil() as usize
}

/// A channel-major z as two buffers, its first `split` values and the rest: the
/// flow and the decoder's first conv take the channel halves so.
pub fn upload_halves(gpu: &Gpu, z: &[f32], split: usize) -> (wgpu::Buffer, wgpu::Buffer) {
    (gpu.storage_from("z", &z[..split]), gpu.storage_from("z", &z[split..]))
}

/// Input channels [lo, hi) of an ungrouped conv (with the bias when `bias`).
fn in_channels(c: &Conv, lo: usize, hi: usize, bias: bool) -> Conv {
    let (co, ci, k) = (c.shape.c_out, c.shape.c_in, c.shape.kernel);
    let mut w = Vec::with_capacity(co * (hi - lo) * k);
    for o in 0..co {
        w.extend_from_slice(&c.w[(o * ci + lo) * k..(o * ci + hi) * k]);
    }
    Conv { shape: Conv1dShape { c_in: hi - lo, ..c.shape }, w, b: if bias { c.b.clone() } else { None } }
}
