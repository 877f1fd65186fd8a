//! config.json of the Llama family (LlamaForCausalLM, MistralForCausalLM,
//! Qwen2ForCausalLM, Qwen3ForCausalLM): field names as transformers writes them.

use serde::Deserialize;

use crate::models::rope::{RopeParameters, RopeScaling};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Llama,
    Qwen2,
    Qwen3,
}

pub const ARCHITECTURES: &[(&str, Family)] = &[
    ("LlamaForCausalLM", Family::Llama),
    ("MistralForCausalLM", Family::Llama),
    ("Qwen2ForCausalLM", Family::Qwen2),
    ("Qwen3ForCausalLM", Family::Qwen3),
];

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(u32),
    Many(Vec<u32>),
}

impl OneOrMany {
    pub fn to_vec(&self) -> Vec<u32> {
        match self {
            OneOrMany::One(v) => vec![*v],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct RawConfig {
    #[serde(default)]
    pub architectures: Vec<String>,
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub num_key_value_heads: Option<usize>,
    pub head_dim: Option<usize>,
    pub rms_norm_eps: f64,
    pub vocab_size: usize,
    #[serde(default = "default_max_pos")]
    pub max_position_embeddings: usize,
    pub rope_theta: Option<f64>,
    pub rope_scaling: Option<RopeParameters>,
    pub rope_parameters: Option<RopeParameters>,
    pub partial_rotary_factor: Option<f64>,
    pub tie_word_embeddings: Option<bool>,
    pub attention_bias: Option<bool>,
    pub hidden_act: Option<String>,
    pub eos_token_id: Option<OneOrMany>,
    pub bos_token_id: Option<u32>,
}

fn default_max_pos() -> usize {
    2048
}

/// The resolved hyper-parameters the graph builder uses.
#[derive(Debug, Clone)]
pub struct LlamaConfig {
    pub family: Family,
    pub hidden: usize,
    pub intermediate: usize,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub rotary_dim: usize,
    pub eps: f32,
    pub vocab: usize,
    pub max_pos: usize,
    pub rope_theta: f64,
    pub rope_scaling: RopeScaling,
    pub tied: bool,
    pub qkv_bias: bool,
    pub qk_norm: bool,
    pub eos: Vec<u32>,
    pub bos: Option<u32>,
}

impl LlamaConfig {
    pub fn from_raw(raw: &RawConfig, family: Family) -> Result<Self, String> {
        if raw.num_attention_heads == 0 || raw.hidden_size == 0 || raw.num_hidden_layers == 0 {
            return Err("hidden_size, num_attention_heads and num_hidden_layers must be positive".into());
        }
        let kv_heads = raw.num_key_value_heads.unwrap_or(raw.num_attention_heads);
        if kv_heads == 0 || !raw.num_attention_heads.is_multiple_of(kv_heads) {
            return Err(format!(
                "num_attention_heads {} is not a multiple of num_key_value_heads {kv_heads}",
                raw.num_attention_heads
            ));
        }
        if let Some(act) = &raw.hidden_act {
            if act != "silu" {
                return Err(format!("hidden_act '{act}' is not supported (silu is)"));
            }
        }
        let head_dim = raw.head_dim.unwrap_or(raw.hidden_size / raw.num_attention_heads);
        let rope = raw.rope_parameters.clone().or_else(|| raw.rope_scaling.clone()).unwrap_or_default();
        let rope_theta = rope.rope_theta.or(raw.rope_theta).unwrap_or(10000.0);
        let partial = rope.partial_rotary_factor.or(raw.partial_rotary_factor).unwrap_or(1.0);
        let rotary_dim = ((head_dim as f64 * partial) as usize) & !1;
        crate::models::check_text_numbers(raw.max_position_embeddings, rope_theta, raw.rms_norm_eps, raw.vocab_size)?;
        Ok(LlamaConfig {
            family,
            hidden: raw.hidden_size,
            intermediate: raw.intermediate_size,
            layers: raw.num_hidden_layers,
            heads: raw.num_attention_heads,
            kv_heads,
            head_dim,
            rotary_dim,
            eps: raw.rms_norm_eps as f32,
            vocab: raw.vocab_size,
            max_pos: raw.max_position_embeddings,
            rope_theta,
            rope_scaling: RopeScaling::from_params(&rope)?,
            tied: raw.tie_word_embeddings.unwrap_or(false),
            qkv_bias: family == Family::Qwen2 || raw.attention_bias.unwrap_or(false),
            qk_norm: family == Family::Qwen3,
            eos: raw.eos_token_id.as_ref().map(|e| e.to_vec()).unwrap_or_default(),
            bos: raw.bos_token_id,
        })
    }
}
