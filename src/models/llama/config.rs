//! config.json of the Llama family (LlamaForCausalLM, MistralForCausalLM,
//! Qwen2ForCausalLM, Qwen3ForCausalLM): field names as transformers writes them.

use serde::Deserialize;

use crate::models::rope::{RopeParameters, RopeScaling};
/// Re-exported where the other families' configs have long found it.
pub use crate::models::text_base::OneOrMany;
use crate::models::text_base::{check_heads, check_silu, eos_ids, rotary_dim};
use crate::models::text_config::{text_config_deref, TextConfig};

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

/// The resolved hyper-parameters the graph builder uses: the numbers every family has (`text`,
/// which the config derefs to) and the Llama family's own.
#[derive(Debug, Clone)]
pub struct LlamaConfig {
    pub text: TextConfig,
    pub family: Family,
    pub rotary_dim: usize,
    pub rope_scaling: RopeScaling,
    pub qkv_bias: bool,
    pub qk_norm: bool,
}

text_config_deref!(LlamaConfig);

impl LlamaConfig {
    pub fn from_raw(raw: &RawConfig, family: Family) -> Result<Self, String> {
        let kv_heads =
            check_heads(raw.hidden_size, raw.num_hidden_layers, raw.num_attention_heads, raw.num_key_value_heads)?;
        check_silu(raw.hidden_act.as_deref())?;
        let head_dim = raw.head_dim.unwrap_or(raw.hidden_size / raw.num_attention_heads);
        let rope = raw.rope_parameters.clone().or_else(|| raw.rope_scaling.clone()).unwrap_or_default();
        let rope_theta = rope.rope_theta.or(raw.rope_theta).unwrap_or(10000.0);
        let partial = rope.partial_rotary_factor.or(raw.partial_rotary_factor).unwrap_or(1.0);
        crate::models::check_text_numbers(raw.max_position_embeddings, rope_theta, raw.rms_norm_eps, raw.vocab_size)?;
        Ok(LlamaConfig {
            text: TextConfig {
                hidden: raw.hidden_size,
                intermediate: raw.intermediate_size,
                layers: raw.num_hidden_layers,
                heads: raw.num_attention_heads,
                kv_heads,
                head_dim,
                eps: raw.rms_norm_eps as f32,
                norm_add_unit: false,
                vocab: raw.vocab_size,
                max_pos: raw.max_position_embeddings,
                rope_theta,
                tied: raw.tie_word_embeddings.unwrap_or(false),
                eos: eos_ids(&raw.eos_token_id),
                bos: raw.bos_token_id,
            },
            family,
            rotary_dim: rotary_dim(head_dim, partial),
            rope_scaling: RopeScaling::from_params(&rope)?,
            qkv_bias: family == Family::Qwen2 || raw.attention_bias.unwrap_or(false),
            qk_norm: family == Family::Qwen3,
        })
    }
}
