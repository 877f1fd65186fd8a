//! Loading the family's tensors (transformers names) onto the GPU.

use std::sync::Arc;

use super::LlamaConfig;
use crate::gpu::Gpu;
use crate::graph::DeviceTensor;
use crate::models::text_base::{bytes_of, Layer, MixerWeights, TextWeights};
use crate::weights::{TensorSource, WeightError, WeightFormat};

/// A layer's attention: q/k/v/o, the QKV biases (Qwen2, `attention_bias`) and per-head q/k norms (Qwen3).
pub struct Attention {
    pub q: Arc<DeviceTensor>,
    pub k: Arc<DeviceTensor>,
    pub v: Arc<DeviceTensor>,
    pub o: Arc<DeviceTensor>,
    pub q_bias: Option<Arc<DeviceTensor>>,
    pub k_bias: Option<Arc<DeviceTensor>>,
    pub v_bias: Option<Arc<DeviceTensor>>,
    pub q_norm: Option<Arc<DeviceTensor>>,
    pub k_norm: Option<Arc<DeviceTensor>>,
}

pub type LayerWeights = Layer<Attention>;
pub type LlamaWeights = TextWeights<Attention>;

impl MixerWeights for Attention {
    fn bytes(&self) -> u64 {
        bytes_of(
            &[&self.q, &self.k, &self.v, &self.o],
            &[&self.q_bias, &self.k_bias, &self.v_bias, &self.q_norm, &self.k_norm],
        )
    }
}

impl TextWeights<Attention> {
    pub fn load(gpu: &Gpu, ck: &dyn TensorSource, c: &LlamaConfig, format: WeightFormat) -> Result<Self, WeightError> {
        let (h, hd) = (c.hidden, c.head_dim);
        Self::load_layers(gpu, ck, c, format, "model.", "norm.weight", |l| {
            Ok(Layer {
                attn_norm: l.vector("input_layernorm.weight", h)?,
                mixer: Attention {
                    q: l.matrix("self_attn.q_proj.weight", c.heads * hd, h)?,
                    k: l.matrix("self_attn.k_proj.weight", c.kv_heads * hd, h)?,
                    v: l.matrix("self_attn.v_proj.weight", c.kv_heads * hd, h)?,
                    o: l.matrix("self_attn.o_proj.weight", h, c.heads * hd)?,
                    q_bias: l.vector_if(c.qkv_bias, "self_attn.q_proj.bias", c.heads * hd)?,
                    k_bias: l.vector_if(c.qkv_bias, "self_attn.k_proj.bias", c.kv_heads * hd)?,
                    v_bias: l.vector_if(c.qkv_bias, "self_attn.v_proj.bias", c.kv_heads * hd)?,
                    q_norm: l.vector_if(c.qk_norm, "self_attn.q_norm.weight", hd)?,
                    k_norm: l.vector_if(c.qk_norm, "self_attn.k_norm.weight", hd)?,
                },
                mlp_norm: l.vector("post_attention_layernorm.weight", h)?,
                mlp: l.swiglu(["mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"], c)?,
            })
        })
    }
}
