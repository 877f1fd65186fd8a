//! CPU layers of the Piper voice (the small parts: text encoder, duration predictor, flow)
//! over channel-major `[channels, time]` tensors, built on `cpu_ops`.

use super::cpu_ops::{conv1d, layer_norm_channels};
use crate::gpu::Gpu;
use crate::models::ModelError;
use crate::nn::{Conv1dEpilogue, Conv1dShape, GpuConv1d};
use crate::weights::safetensors::Checkpoint;

/// A `Conv1d` with its weights; padding keeps the length ("same").
pub struct Conv {
    pub shape: Conv1dShape,
    pub w: Vec<f32>,
    pub b: Option<Vec<f32>>,
}

impl Conv {
    /// `prefix.weight` (`[c_out, c_in / groups, kernel]`) and `prefix.bias` if present.
    pub fn load(ck: &Checkpoint, prefix: &str, dilation: usize, groups: usize) -> Result<Self, ModelError> {
        let name = format!("{prefix}.weight");
        let s = ck.shape(&name)?;
        if s.len() != 3 {
            return Err(bad(ck, &format!("{name} has shape {s:?}, expected 3 dims")));
        }
        let (c_out, cig, kernel) = (s[0], s[1], s[2]);
        let shape =
            Conv1dShape { c_in: cig * groups, c_out, kernel, dilation, padding: (kernel - 1) * dilation / 2, groups };
        let bias = format!("{prefix}.bias");
        let b = if ck.contains(&bias) { Some(ck.f32(&bias, &[c_out])?) } else { None };
        Ok(Conv { shape, w: ck.f32(&name, &s)?, b })
    }

    pub fn forward(&self, x: &[f32], t: usize) -> Vec<f32> {
        conv1d(x, t, &self.w, self.b.as_deref(), self.shape, None)
    }
}

/// A conv's weights resident on the GPU with the given epilogue.
pub fn upload(gpu: &Gpu, name: &str, c: &Conv, ep: Conv1dEpilogue) -> GpuConv1d {
    GpuConv1d::new(gpu, name, c.shape, &c.w, c.b.as_deref(), ep)
}

/// VITS channel LayerNorm (`gamma`, `beta`, eps 1e-5).
pub struct LayerNorm {
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
}

impl LayerNorm {
    pub fn load(ck: &Checkpoint, prefix: &str, c: usize) -> Result<Self, ModelError> {
        Ok(LayerNorm {
            gamma: ck.f32(&format!("{prefix}.gamma"), &[c])?,
            beta: ck.f32(&format!("{prefix}.beta"), &[c])?,
        })
    }

    pub fn apply(&self, x: &mut [f32]) {
        layer_norm_channels(x, self.gamma.len(), &self.gamma, &self.beta, 1e-5);
    }
}

/// How many `prefix.{i}.suffix` tensors exist (layers are numbered from 0 without gaps).
pub fn count(ck: &Checkpoint, prefix: &str, suffix: &str) -> usize {
    (0..).take_while(|i| ck.contains(&format!("{prefix}.{i}.{suffix}"))).count()
}

pub fn bad(ck: &Checkpoint, msg: &str) -> ModelError {
    ModelError::Config { path: ck.dir.clone(), msg: msg.to_string() }
}

pub fn add_in_place(x: &mut [f32], y: &[f32]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
}
