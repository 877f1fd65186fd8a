//! VITS residual coupling flow (mean-only), reverse direction: for each coupling layer
//! from last to first, flip the channels and subtract a WaveNet-predicted mean from the
//! second half. This CPU version is the reference of the GPU one (`flow_gpu.rs`).

use super::layers::{count, Conv};
use crate::models::ModelError;
use crate::weights::safetensors::Checkpoint;

pub(super) struct WaveNet {
    pub(super) in_layers: Vec<Conv>,
    pub(super) res_skip: Vec<Conv>,
    pub(super) hidden: usize,
}

pub(super) struct Coupling {
    pub(super) pre: Conv,
    pub(super) enc: WaveNet,
    pub(super) post: Conv,
}

pub struct Flow {
    /// flow.flows.{0,2,4,...}, in forward order (each followed by a Flip).
    pub(super) layers: Vec<Coupling>,
    pub channels: usize,
}

impl Flow {
    pub fn load(ck: &Checkpoint) -> Result<Self, ModelError> {
        let mut layers = Vec::new();
        for i in (0..64).step_by(2) {
            let p = format!("flow.flows.{i}");
            if !ck.contains(&format!("{p}.pre.weight")) {
                break;
            }
            let n = count(ck, &format!("{p}.enc.in_layers"), "weight");
            let mut enc = WaveNet { in_layers: vec![], res_skip: vec![], hidden: 0 };
            for l in 0..n {
                // dilation_rate 1 in every Piper config: the ONNX graph shows dilation 1 everywhere.
                enc.in_layers.push(Conv::load(ck, &format!("{p}.enc.in_layers.{l}"), 1, 1)?);
                enc.res_skip.push(Conv::load(ck, &format!("{p}.enc.res_skip_layers.{l}"), 1, 1)?);
            }
            enc.hidden = enc.in_layers.first().map_or(0, |c| c.shape.c_in);
            layers.push(Coupling {
                pre: Conv::load(ck, &format!("{p}.pre"), 1, 1)?,
                enc,
                post: Conv::load(ck, &format!("{p}.post"), 1, 1)?,
            });
        }
        if layers.is_empty() {
            return Err(super::layers::bad(ck, "no flow.flows.*"));
        }
        let channels = layers[0].pre.shape.c_in * 2;
        Ok(Flow { layers, channels })
    }

    /// z = f^-1(z_p) for `z: [channels, t]`.
    pub fn reverse(&self, z: &mut [f32], t: usize) {
        let half = self.channels / 2;
        for layer in self.layers.iter().rev() {
            flip(z, self.channels, t);
            let h = layer.pre.forward(&z[..half * t], t);
            let h = layer.enc.forward(h, t);
            let m = layer.post.forward(&h, t);
            for (a, b) in z[half * t..].iter_mut().zip(&m) {
                *a -= b;
            }
        }
    }
}

/// `torch.flip(x, [1])` of a `[c, t]` tensor.
fn flip(z: &mut [f32], c: usize, t: usize) {
    for i in 0..c / 2 {
        let (a, b) = z.split_at_mut((c - 1 - i) * t);
        a[i * t..(i + 1) * t].swap_with_slice(&mut b[..t]);
    }
}

impl WaveNet {
    fn forward(&self, mut x: Vec<f32>, t: usize) -> Vec<f32> {
        let h = self.hidden;
        let mut out = vec![0f32; h * t];
        let n = self.in_layers.len();
        for i in 0..n {
            let a = self.in_layers[i].forward(&x, t);
            let acts: Vec<f32> = (0..h * t).map(|j| a[j].tanh() * sigmoid(a[h * t + j])).collect();
            let rs = self.res_skip[i].forward(&acts, t);
            if i + 1 < n {
                for j in 0..h * t {
                    x[j] += rs[j];
                    out[j] += rs[h * t + j];
                }
            } else {
                for j in 0..h * t {
                    out[j] += rs[j];
                }
            }
        }
        out
    }
}

fn sigmoid(v: f32) -> f32 {
    1.0 / (1.0 + (-v).exp())
}
