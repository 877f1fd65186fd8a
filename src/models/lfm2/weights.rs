//! Loading LFM2 tensors (transformers names) onto the GPU.

use std::sync::Arc;

use super::config::{LayerKind, Lfm2Config};
use crate::gpu::Gpu;
use crate::graph::DeviceTensor;
use crate::weights::upload::{matrix, vector};
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

pub struct LayerWeights {
    pub operator_norm: Arc<DeviceTensor>,
    pub ffn_norm: Arc<DeviceTensor>,
    pub mixer: Mixer,
    /// feed_forward: w1 = gate, w3 = up, w2 = down.
    pub w1: Arc<DeviceTensor>,
    pub w3: Arc<DeviceTensor>,
    pub w2: Arc<DeviceTensor>,
}

pub struct Lfm2Weights {
    pub embed: Arc<DeviceTensor>,
    pub lm_head: Arc<DeviceTensor>,
    /// `model.embedding_norm`: despite the name, the norm after the last layer.
    pub final_norm: Arc<DeviceTensor>,
    pub layers: Vec<LayerWeights>,
}

impl Lfm2Weights {
    pub fn load(gpu: &Gpu, ck: &dyn TensorSource, c: &Lfm2Config, format: WeightFormat) -> Result<Self, WeightError> {
        let (h, hd) = (c.hidden, c.head_dim);
        let embed = matrix(gpu, ck, "model.embed_tokens.weight", c.vocab, h, format)?;
        let lm_head = if c.tied || !ck.contains("lm_head.weight") {
            embed.clone()
        } else {
            matrix(gpu, ck, "lm_head.weight", c.vocab, h, format)?
        };
        let final_norm = vector(gpu, ck, "model.embedding_norm.weight", h)?;
        let mut layers = Vec::with_capacity(c.layers());
        for (i, kind) in c.layer_kinds.iter().enumerate() {
            let p = |s: &str| format!("model.layers.{i}.{s}");
            let lin = |s: &str, rows, cols| matrix(gpu, ck, &p(s), rows, cols, format);
            let vec = |s: &str, len| vector(gpu, ck, &p(s), len);
            let bias = |s: &str, len| if c.conv_bias { vec(s, len).map(Some) } else { Ok(None) };
            let mixer = match kind {
                LayerKind::Conv => {
                    let l = c.conv_kernel;
                    let name = p("conv.conv.weight");
                    let conv = DeviceTensor::f32(gpu, &name, &ck.f32(&name, &[h, 1, l])?, l)?;
                    Mixer::Conv {
                        in_proj: lin("conv.in_proj.weight", 3 * h, h)?,
                        in_bias: bias("conv.in_proj.bias", 3 * h)?,
                        conv,
                        conv_bias: bias("conv.conv.bias", h)?,
                        out_proj: lin("conv.out_proj.weight", h, h)?,
                        out_bias: bias("conv.out_proj.bias", h)?,
                    }
                }
                LayerKind::Attention => Mixer::Attention {
                    q: lin("self_attn.q_proj.weight", c.heads * hd, h)?,
                    k: lin("self_attn.k_proj.weight", c.kv_heads * hd, h)?,
                    v: lin("self_attn.v_proj.weight", c.kv_heads * hd, h)?,
                    out: lin("self_attn.out_proj.weight", h, c.heads * hd)?,
                    q_norm: vec("self_attn.q_layernorm.weight", hd)?,
                    k_norm: vec("self_attn.k_layernorm.weight", hd)?,
                },
            };
            layers.push(LayerWeights {
                operator_norm: vec("operator_norm.weight", h)?,
                ffn_norm: vec("ffn_norm.weight", h)?,
                mixer,
                w1: lin("feed_forward.w1.weight", c.intermediate, h)?,
                w3: lin("feed_forward.w3.weight", c.intermediate, h)?,
                w2: lin("feed_forward.w2.weight", h, c.intermediate)?,
            });
        }
        Ok(Lfm2Weights { embed, lm_head, final_norm, layers })
    }

    /// Bytes of weights one decode step reads (the lm_head counted once if tied).
    pub fn bytes(&self) -> u64 {
        let sum = |ts: &[&Arc<DeviceTensor>]| ts.iter().map(|t| t.bytes()).sum::<u64>();
        let opt =
            |ts: &[&Option<Arc<DeviceTensor>>]| ts.iter().filter_map(|t| t.as_ref().map(|t| t.bytes())).sum::<u64>();
        let layers: u64 = self
            .layers
            .iter()
            .map(|l| {
                let mixer = match &l.mixer {
                    Mixer::Conv { in_proj, in_bias, conv, conv_bias, out_proj, out_bias } => {
                        sum(&[in_proj, conv, out_proj]) + opt(&[in_bias, conv_bias, out_bias])
                    }
                    Mixer::Attention { q, k, v, out, q_norm, k_norm } => sum(&[q, k, v, out, q_norm, k_norm]),
                };
                mixer + sum(&[&l.operator_norm, &l.ffn_norm, &l.w1, &l.w3, &l.w2])
            })
            .sum();
        layers + self.lm_head.bytes() + self.final_norm.bytes()
    }
}
