//! The DAC decoder on the GPU: every layer is one `conv1d` / `conv_transpose1d` / `snake` dispatch
//! (residual adds and the final tanh fused into the convolutions), the whole decode one pass.

use super::{folded_weight, DacConfig};
use crate::executor::Executor;
use crate::gpu::{Gpu, GpuError};
use crate::models::ModelError;
use crate::nn::{Conv1dEpilogue, Conv1dShape, ConvTranspose1dShape, GpuConv1d, GpuConvTranspose1d, GpuSnake};
use crate::weights::safetensors::Checkpoint;

/// Snake -> conv(k7, dilation d) -> Snake -> conv(k1) + the unit's input.
struct ResUnit {
    snake1: GpuSnake,
    conv1: GpuConv1d,
    snake2: GpuSnake,
    conv2: GpuConv1d,
}

struct Block {
    snake: GpuSnake,
    up: GpuConvTranspose1d,
    units: Vec<ResUnit>,
}

pub struct DacDecoder {
    exec: Executor,
    /// The per-codebook `out_proj`s, summed, as one 1x1 conv over the concatenated codebook vectors.
    proj: GpuConv1d,
    conv_in: GpuConv1d,
    blocks: Vec<Block>,
    snake_out: GpuSnake,
    conv_out: GpuConv1d,
}

struct Loader<'a> {
    gpu: &'a Gpu,
    ck: &'a Checkpoint,
}

impl Loader<'_> {
    fn bad(&self, msg: String) -> ModelError {
        ModelError::Config { path: self.ck.dir.clone(), msg }
    }

    fn snake(&self, prefix: &str, c: usize) -> Result<GpuSnake, ModelError> {
        let a = self.ck.f32(&format!("{prefix}.alpha"), &[1, c, 1])?;
        Ok(GpuSnake::new(self.gpu, prefix, &a))
    }

    /// A Conv1d with "same" padding for its kernel and `dilation`.
    fn conv(&self, prefix: &str, dilation: usize, ep: Conv1dEpilogue) -> Result<GpuConv1d, ModelError> {
        let (w, s) = folded_weight(self.ck, prefix)?;
        if s.len() != 3 {
            return Err(self.bad(format!("{prefix} weight has shape {s:?}, expected 3 dims")));
        }
        let shape = Conv1dShape {
            c_in: s[1],
            c_out: s[0],
            kernel: s[2],
            dilation,
            padding: (s[2] - 1) * dilation / 2,
            groups: 1,
        };
        let b = self.ck.f32(&format!("{prefix}.bias"), &[s[0]])?;
        Ok(GpuConv1d::new(self.gpu, prefix, shape, &w, Some(&b), ep))
    }
}

impl DacDecoder {
    pub fn load(exec: &Executor, ck: &Checkpoint, cfg: &DacConfig) -> Result<Self, ModelError> {
        let gpu = exec.gpu();
        let l = Loader { gpu, ck };
        // out_proj_i: [hidden, dim, 1] -> one [hidden, n * dim, 1] weight; biases add up.
        let (n, d) = (cfg.n_codebooks, cfg.codebook_dim);
        let mut projs = Vec::new();
        for i in 0..n {
            let prefix = format!("quantizer.quantizers.{i}.out_proj");
            let (w, s) = folded_weight(ck, &prefix)?;
            if s.len() != 3 || s[1] != d || s[2] != 1 {
                return Err(l.bad(format!("{prefix} weight has shape {s:?}, expected [hidden, {d}, 1]")));
            }
            projs.push((w, ck.f32(&format!("{prefix}.bias"), &[s[0]])?, s[0]));
        }
        let hidden = projs[0].2;
        if projs.iter().any(|p| p.2 != hidden) {
            return Err(l.bad("out_proj widths differ between codebooks".into()));
        }
        let mut w = vec![0f32; hidden * n * d];
        let mut b = vec![0f32; hidden];
        for (i, (pw, pb, _)) in projs.iter().enumerate() {
            for h in 0..hidden {
                w[h * n * d + i * d..h * n * d + (i + 1) * d].copy_from_slice(&pw[h * d..(h + 1) * d]);
                b[h] += pb[h];
            }
        }
        let shape = Conv1dShape { c_in: n * d, c_out: hidden, kernel: 1, dilation: 1, padding: 0, groups: 1 };
        let proj = GpuConv1d::new(gpu, "quantizer.out_proj", shape, &w, Some(&b), Conv1dEpilogue::default());

        let conv_in = l.conv("decoder.conv1", 1, Conv1dEpilogue::default())?;
        if conv_in.shape.c_in != hidden {
            return Err(l.bad(format!("decoder.conv1 reads {} channels, out_proj gives {hidden}", conv_in.shape.c_in)));
        }
        let mut blocks = Vec::new();
        let mut c = conv_in.shape.c_out;
        for (i, &stride) in cfg.upsampling().iter().enumerate() {
            let p = format!("decoder.block.{i}");
            let snake = l.snake(&format!("{p}.snake1"), c)?;
            let (uw, us) = folded_weight(ck, &format!("{p}.conv_t1"))?;
            if us.len() != 3 || us[0] != c || us[2] != 2 * stride {
                return Err(l.bad(format!("{p}.conv_t1 has shape {us:?}, expected [{c}, _, {}]", 2 * stride)));
            }
            let ub = ck.f32(&format!("{p}.conv_t1.bias"), &[us[1]])?;
            let ushape =
                ConvTranspose1dShape { c_in: c, c_out: us[1], kernel: us[2], stride, padding: stride.div_ceil(2) };
            let up = GpuConvTranspose1d::new(gpu, &p, ushape, &uw, Some(&ub), None);
            c = us[1];
            let mut units = Vec::new();
            for (j, dil) in [1usize, 3, 9].into_iter().enumerate() {
                let u = format!("{p}.res_unit{}", j + 1);
                units.push(ResUnit {
                    snake1: l.snake(&format!("{u}.snake1"), c)?,
                    conv1: l.conv(&format!("{u}.conv1"), dil, Conv1dEpilogue::default())?,
                    snake2: l.snake(&format!("{u}.snake2"), c)?,
                    conv2: l.conv(&format!("{u}.conv2"), 1, Conv1dEpilogue { residual: true, ..Default::default() })?,
                });
            }
            blocks.push(Block { snake, up, units });
        }
        let snake_out = l.snake("decoder.snake1", c)?;
        let conv_out = l.conv("decoder.conv2", 1, Conv1dEpilogue { tanh: true, ..Default::default() })?;
        if conv_out.shape.c_out != 1 {
            return Err(l.bad("decoder.conv2 must write one channel".into()));
        }
        Ok(DacDecoder { exec: exec.clone(), proj, conv_in, blocks, snake_out, conv_out })
    }

    /// Dispatches one decode records (for reports and the bench).
    pub fn dispatches(&self) -> usize {
        4 + self.blocks.len() * (2 + 3 * 4)
    }

    /// Waveform of the concatenated codebook vectors `lat: [n * dim, frames]`.
    pub fn forward(&self, lat: &[f32], frames: usize) -> Result<Vec<f32>, GpuError> {
        let gpu = &**self.exec.gpu();
        let mut rec = self.exec.recorder();
        let buf = |label: &str, c: usize, t: usize| -> Result<wgpu::Buffer, GpuError> {
            let bytes = (c * t * 4) as u64;
            gpu.check_binding(label, bytes)?;
            Ok(gpu.storage(label, bytes))
        };
        let mut t = frames;
        let lb = gpu.storage_from("dac.latents", lat);
        let z = buf("dac.z", self.proj.shape.c_out, t)?;
        self.proj.record(&mut rec, t, &lb, None, &z);
        let mut cur = buf("dac.x", self.conv_in.shape.c_out, t)?;
        self.conv_in.record(&mut rec, t, &z, None, &cur);
        for b in &self.blocks {
            let act = buf("dac.act", b.up.shape.c_in, t)?;
            b.snake.record(&mut rec, t, &cur, &act);
            let t2 = b.up.shape.t_out(t);
            let c = b.up.shape.c_out;
            let mut x = buf("dac.up", c, t2)?;
            b.up.record(&mut rec, t, &act, &x);
            t = t2;
            let (a1, a2) = (buf("dac.a1", c, t)?, buf("dac.a2", c, t)?);
            for u in &b.units {
                let y = buf("dac.res", c, t)?;
                u.snake1.record(&mut rec, t, &x, &a1);
                u.conv1.record(&mut rec, t, &a1, None, &a2);
                u.snake2.record(&mut rec, t, &a2, &a1);
                u.conv2.record(&mut rec, t, &a1, Some(&x), &y);
                x = y;
            }
            cur = x;
        }
        let act = buf("dac.act", self.snake_out.channels, t)?;
        self.snake_out.record(&mut rec, t, &cur, &act);
        let out = buf("dac.audio", 1, t)?;
        self.conv_out.record(&mut rec, t, &act, None, &out);
        rec.submit();
        gpu.read_f32(&out, t)
    }
}
