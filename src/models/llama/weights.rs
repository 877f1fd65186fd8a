//! Loading the family's tensors (transformers names) onto the GPU.

use std::sync::Arc;

use super::LlamaConfig;
use crate::gpu::Gpu;
use crate::graph::DeviceTensor;
use crate::weights::upload::{matrix, vector};
use crate::weights::{TensorSource, WeightError, WeightFormat};

pub struct LayerWeights {
    pub attn_norm: Arc<DeviceTensor>,
    pub q: Arc<DeviceTensor>,
    pub k: Arc<DeviceTensor>,
    pub v: Arc<DeviceTensor>,
    pub o: Arc<DeviceTensor>,
    pub q_bias: Option<Arc<DeviceTensor>>,
    pub k_bias: Option<Arc<DeviceTensor>>,
    pub v_bias: Option<Arc<DeviceTensor>>,
    pub q_norm: Option<Arc<DeviceTensor>>,
    pub k_norm: Option<Arc<DeviceTensor>>,
    pub mlp_norm: Arc<DeviceTensor>,
    pub gate: Arc<DeviceTensor>,
    pub up: Arc<DeviceTensor>,
    pub down: Arc<DeviceTensor>,
}

pub struct LlamaWeights {
    pub embed: Arc<DeviceTensor>,
    pub lm_head: Arc<DeviceTensor>,
    pub final_norm: Arc<DeviceTensor>,
    pub layers: Vec<LayerWeights>,
}

impl LlamaWeights {
    pub fn load(gpu: &Gpu, ck: &dyn TensorSource, c: &LlamaConfig, format: WeightFormat) -> Result<Self, WeightError> {
        let (h, hd) = (c.hidden, c.head_dim);
        let embed = matrix(gpu, ck, "model.embed_tokens.weight", c.vocab, h, format)?;
        let lm_head = if c.tied || !ck.contains("lm_head.weight") {
            embed.clone()
        } else {
            matrix(gpu, ck, "lm_head.weight", c.vocab, h, format)?
        };
        let final_norm = vector(gpu, ck, "model.norm.weight", h)?;
        let mut layers = Vec::with_capacity(c.layers);
        for i in 0..c.layers {
            let p = |s: &str| format!("model.layers.{i}.{s}");
            let lin = |s: &str, rows, cols| matrix(gpu, ck, &p(s), rows, cols, format);
            let vec = |s: &str, len| vector(gpu, ck, &p(s), len);
            let bias = |s: &str, len| if c.qkv_bias { vec(s, len).map(Some) } else { Ok(None) };
            let norm = |s: &str| if c.qk_norm { vec(s, hd).map(Some) } else { Ok(None) };
            layers.push(LayerWeights {
                attn_norm: vec("input_layernorm.weight", h)?,
                q: lin("self_attn.q_proj.weight", c.heads * hd, h)?,
                k: lin("self_attn.k_proj.weight", c.kv_heads * hd, h)?,
                v: lin("self_attn.v_proj.weight", c.kv_heads * hd, h)?,
                o: lin("self_attn.o_proj.weight", h, c.heads * hd)?,
                q_bias: bias("self_attn.q_proj.bias", c.heads * hd)?,
                k_bias: bias("self_attn.k_proj.bias", c.kv_heads * hd)?,
                v_bias: bias("self_attn.v_proj.bias", c.kv_heads * hd)?,
                q_norm: norm("self_attn.q_norm.weight")?,
                k_norm: norm("self_attn.k_norm.weight")?,
                mlp_norm: vec("post_attention_layernorm.weight", h)?,
                gate: lin("mlp.gate_proj.weight", c.intermediate, h)?,
                up: lin("mlp.up_proj.weight", c.intermediate, h)?,
                down: lin("mlp.down_proj.weight", h, c.intermediate)?,
            });
        }
        Ok(LlamaWeights { embed, lm_head, final_norm, layers })
    }
}

impl LlamaWeights {
    /// Bytes of weights one decode step reads (the lm_head counted once if tied).
    pub fn bytes(&self) -> u64 {
        let l: u64 = self
            .layers
            .iter()
            .map(|l| {
                [&l.attn_norm, &l.q, &l.k, &l.v, &l.o, &l.mlp_norm, &l.gate, &l.up, &l.down]
                    .iter()
                    .map(|t| t.bytes())
                    .sum::<u64>()
                    + [&l.q_bias, &l.k_bias, &l.v_bias, &l.q_norm, &l.k_norm]
                        .iter()
                        .filter_map(|t| t.as_ref().map(|t| t.bytes()))
                        .sum::<u64>()
            })
            .sum();
        l + self.lm_head.bytes() + self.final_norm.bytes()
    }
}
