//! A whole Llama-family forward pass on the CPU from the reference ops, over
//! exactly the weights the GPU uses (INT4 groups dequantized): the oracle for
//! real-weight models.
//!
//! It reads a model family's config (`models::llama`) and the weights layer: `reference` sits at the
//! edge with `bench` and `cli`, where tests use it and nothing on the serving path does
//! (tests/layering.rs).

use super::{add, attention, embed, matmul, rmsnorm, rope, swiglu, KvCache};
use crate::models::llama::LlamaConfig;
use crate::models::rope::{cos_sin_table, inv_freq};
use crate::weights::int4::{pick_group, Int4Matrix};
use crate::weights::{TensorSource, WeightError, WeightFormat};

/// A matrix as the engine stores it, back in f32.
pub fn effective_matrix(
    src: &dyn TensorSource,
    name: &str,
    rows: usize,
    cols: usize,
    format: WeightFormat,
) -> Result<Vec<f32>, WeightError> {
    if let WeightFormat::Int4 { group } = format {
        if let Some(q) = src.int4(name, rows, cols)? {
            return Ok(q.dequantize());
        }
        let data = src.f32(name, &[rows, cols])?;
        return Ok(match pick_group(cols, group) {
            Some(g) => Int4Matrix::quantize(&data, rows, cols, g).expect("group divides cols").dequantize(),
            None => data,
        });
    }
    src.f32(name, &[rows, cols])
}

struct Layer {
    attn_norm: Vec<f32>,
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    o: Vec<f32>,
    qkv_bias: Option<[Vec<f32>; 3]>,
    qk_norm: Option<[Vec<f32>; 2]>,
    mlp_norm: Vec<f32>,
    gate: Vec<f32>,
    up: Vec<f32>,
    down: Vec<f32>,
}

pub struct RefLlama {
    cfg: LlamaConfig,
    embed: Vec<f32>,
    lm_head: Vec<f32>,
    norm: Vec<f32>,
    layers: Vec<Layer>,
}

impl RefLlama {
    pub fn load(src: &dyn TensorSource, c: &LlamaConfig, format: WeightFormat) -> Result<Self, WeightError> {
        let (h, hd) = (c.hidden, c.head_dim);
        let m = |n: &str, r, k| effective_matrix(src, n, r, k, format);
        let embed = m("model.embed_tokens.weight", c.vocab, h)?;
        let lm_head =
            if c.tied || !src.contains("lm_head.weight") { embed.clone() } else { m("lm_head.weight", c.vocab, h)? };
        let mut layers = Vec::new();
        for i in 0..c.layers {
            let p = |s: &str| format!("model.layers.{i}.{s}");
            let v = |s: &str, len: usize| src.f32(&p(s), &[len]);
            layers.push(Layer {
                attn_norm: v("input_layernorm.weight", h)?,
                q: m(&p("self_attn.q_proj.weight"), c.heads * hd, h)?,
                k: m(&p("self_attn.k_proj.weight"), c.kv_heads * hd, h)?,
                v: m(&p("self_attn.v_proj.weight"), c.kv_heads * hd, h)?,
                o: m(&p("self_attn.o_proj.weight"), h, c.heads * hd)?,
                qkv_bias: if c.qkv_bias {
                    Some([
                        v("self_attn.q_proj.bias", c.heads * hd)?,
                        v("self_attn.k_proj.bias", c.kv_heads * hd)?,
                        v("self_attn.v_proj.bias", c.kv_heads * hd)?,
                    ])
                } else {
                    None
                },
                qk_norm: if c.qk_norm {
                    Some([v("self_attn.q_norm.weight", hd)?, v("self_attn.k_norm.weight", hd)?])
                } else {
                    None
                },
                mlp_norm: v("post_attention_layernorm.weight", h)?,
                gate: m(&p("mlp.gate_proj.weight"), c.intermediate, h)?,
                up: m(&p("mlp.up_proj.weight"), c.intermediate, h)?,
                down: m(&p("mlp.down_proj.weight"), h, c.intermediate)?,
            });
        }
        Ok(RefLlama { cfg: c.clone(), embed, lm_head, norm: src.f32("model.norm.weight", &[h])?, layers })
    }

    /// Logits of the last of `tokens` (a fresh sequence).
    pub fn last_logits(&self, tokens: &[u32]) -> Vec<f32> {
        let c = &self.cfg;
        let (h, hd, n) = (c.hidden, c.head_dim, tokens.len());
        let table: Vec<[f32; 2]> = cos_sin_table(&inv_freq(c.rope_theta, c.rotary_dim, &c.rope_scaling), n)
            .chunks(2)
            .map(|p| [p[0], p[1]])
            .collect();
        let pos: Vec<usize> = (0..n).collect();
        let mut x = embed(&self.embed, h, tokens);
        for l in &self.layers {
            let xn = rmsnorm(&x, &l.attn_norm, h, c.eps, false);
            let b = l.qkv_bias.as_ref();
            let mut q = matmul(&xn, &l.q, b.map(|b| &b[0][..]), h);
            let mut k = matmul(&xn, &l.k, b.map(|b| &b[1][..]), h);
            let v = matmul(&xn, &l.v, b.map(|b| &b[2][..]), h);
            if let Some([qn, kn]) = &l.qk_norm {
                q = rmsnorm(&q, qn, hd, c.eps, false);
                k = rmsnorm(&k, kn, hd, c.eps, false);
            }
            let q = rope(&q, c.heads, hd, c.rotary_dim, false, &table, &pos);
            let k = rope(&k, c.kv_heads, hd, c.rotary_dim, false, &table, &pos);
            let mut cache = KvCache::new(c.kv_heads, n, hd);
            cache.append(&k, &v, 0);
            let a = attention(&q, &cache, c.heads, 0, 1.0 / (hd as f32).sqrt());
            x = add(&x, &matmul(&a, &l.o, None, c.heads * hd));
            let xn = rmsnorm(&x, &l.mlp_norm, h, c.eps, false);
            let s = swiglu(&matmul(&xn, &l.gate, None, h), &matmul(&xn, &l.up, None, h));
            x = add(&x, &matmul(&s, &l.down, None, c.intermediate));
        }
        let last = rmsnorm(&x[(n - 1) * h..], &self.norm, h, c.eps, false);
        matmul(&last, &self.lm_head, None, h)
    }
}
