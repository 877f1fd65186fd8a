//! Loading LFM2 tensors (transformers names) onto the GPU. A layer's norms are `operator_norm`
//! (before the mixer) and `ffn_norm`; its MLP is `feed_forward` (w1 = gate, w3 = up, w2 = down);
//! the final norm is `model.embedding_norm` (despite the name, the norm after the last layer).

use std::sync::Arc;

use super::config::{LayerKind, Lfm2Config};
use crate::gpu::Gpu;
use crate::graph::DeviceTensor;
use crate::models::text_base::{bytes_of, Layer, MixerWeights, TextWeights};
use crate::weights::{TensorSource, WeightError, WeightFormat};

pub enum Mixer {
    /// `conv.in_proj` [3h, h] -> B, C, x; depthwise `conv.conv` [h, 1, L] (kept f32,
    /// stored [h, L]); `conv.out_proj` [h, h]. Biases only with `conv_bias`.
    Conv {
        in_proj: Arc<DeviceTensor>,
        in_bias: Option<Arc<DeviceTensor>>,
        conv: Arc<DeviceTensor>,
        conv_bias: Option<Arc<DeviceTensor>>,
        out_proj: Arc<DeviceTensor>,
        out_bias: Option<Arc<DeviceTensor>>,
    },
    /// q/k/v/out projections and the per-head q/k RMSNorm weights.
    Attention {
        q: Arc<DeviceTensor>,
        k: Arc<DeviceTensor>,
        v: Arc<DeviceTensor>,
        out: Arc<DeviceTensor>,
        q_norm: Arc<DeviceTensor>,
        k_norm: Arc<DeviceTensor>,
    },
}

pub type LayerWeights = Layer<Mixer>;
pub type Lfm2Weights = TextWeights<Mixer>;

impl MixerWeights for Mixer {
    fn bytes(&self) -> u64 {
        match self {
            Mixer::Conv { in_proj, in_bias, conv, conv_bias, out_proj, out_bias } => {
                bytes_of(&[in_proj, conv, out_proj], &[in_bias, conv_bias, out_bias])
            }
            Mixer::Attention { q, k, v, out, q_norm, k_norm } => bytes_of(&[q, k, v, out, q_norm, k_norm], &[]),
        }
    }
}

impl TextWeights<Mixer> {
    pub fn load(gpu: &Gpu, ck: &dyn TensorSource, c: &Lfm2Config, format: WeightFormat) -> Result<Self, WeightError> {
        let (h, hd) = (c.hidden, c.head_dim);
        Self::load_layers(gpu, ck, c, format, "model.", "embedding_norm.weight", |l| {
            let bias = |s: &str, len| l.vector_if(c.conv_bias, s, len);
            let mixer = match c.layer_kinds[l.index] {
                LayerKind::Conv => {
                    let k = c.conv_kernel;
                    let name = l.name("conv.conv.weight");
                    let conv = DeviceTensor::f32(gpu, &name, &ck.f32(&name, &[h, 1, k])?, k)?;
                    Mixer::Conv {
                        in_proj: l.matrix("conv.in_proj.weight", 3 * h, h)?,
                        in_bias: bias("conv.in_proj.bias", 3 * h)?,
                        conv,
                        conv_bias: bias("conv.conv.bias", h)?,
                        out_proj: l.matrix("conv.out_proj.weight", h, h)?,
                        out_bias: bias("conv.out_proj.bias", h)?,
                    }
                }
                LayerKind::Attention => Mixer::Attention {
                    q: l.matrix("self_attn.q_proj.weight", c.heads * hd, h)?,
                    k: l.matrix("self_attn.k_proj.weight", c.kv_heads * hd, h)?,
                    v: l.matrix("self_attn.v_proj.weight", c.kv_heads * hd, h)?,
                    out: l.matrix("self_attn.out_proj.weight", h, c.heads * hd)?,
                    q_norm: l.vector("self_attn.q_layernorm.weight", hd)?,
                    k_norm: l.vector("self_attn.k_layernorm.weight", hd)?,
                },
            };
            Ok(Layer {
                attn_norm: l.vector("operator_norm.weight", h)?,
                mlp_norm: l.vector("ffn_norm.weight", h)?,
                mixer,
                mlp: l.swiglu(["feed_forward.w1.weight", "feed_forward.w3.weight", "feed_forward.w2.weight"], c)?,
            })
        })
    }
}
