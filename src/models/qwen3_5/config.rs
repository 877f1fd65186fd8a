//! config.json of Qwen3.5 text models, field names as transformers writes them
//! (`Qwen3_5TextConfig`; a `Qwen3_5ForConditionalGeneration` config nests it
//! under `text_config`).

use serde::Deserialize;

use crate::models::rope::RopeParameters;
use crate::models::text_base::{check_silu, eos_ids, rotary_dim, OneOrMany};
use crate::models::text_config::{text_config_deref, TextConfig};

#[derive(Debug, Clone, Deserialize)]
pub struct RawTextConfig {
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub num_key_value_heads: usize,
    pub head_dim: Option<usize>,
    pub rms_norm_eps: f64,
    pub vocab_size: usize,
    #[serde(default = "default_max_pos")]
    pub max_position_embeddings: usize,
    pub rope_parameters: Option<RopeParameters>,
    pub partial_rotary_factor: Option<f64>,
    pub rope_theta: Option<f64>,
    pub tie_word_embeddings: Option<bool>,
    pub attention_bias: Option<bool>,
    pub hidden_act: Option<String>,
    pub linear_conv_kernel_dim: usize,
    pub linear_key_head_dim: usize,
    pub linear_value_head_dim: usize,
    pub linear_num_key_heads: usize,
    pub linear_num_value_heads: usize,
    pub layer_types: Option<Vec<String>>,
    pub full_attention_interval: Option<usize>,
    pub eos_token_id: Option<OneOrMany>,
    pub bos_token_id: Option<u32>,
}

fn default_max_pos() -> usize {
    32768
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// Gated DeltaNet.
    Linear,
    /// Gated softmax attention.
    Full,
}

/// The resolved hyper-parameters the graph builder uses: the numbers every family has (`text`,
/// which the config derefs to) and Qwen3.5's own.
#[derive(Debug, Clone)]
pub struct Qwen35Config {
    pub text: TextConfig,
    pub layer_kinds: Vec<LayerKind>,
    pub rotary_dim: usize,
    pub conv_kernel: usize,
    pub k_heads: usize,
    pub v_heads: usize,
    pub dk: usize,
    pub dv: usize,
    /// Tensor name prefix: "model." or "model.language_model." (multimodal checkpoints).
    pub prefix: String,
}

text_config_deref!(Qwen35Config);

impl Qwen35Config {
    pub fn layers(&self) -> usize {
        self.layer_kinds.len()
    }
    pub fn key_dim(&self) -> usize {
        self.k_heads * self.dk
    }
    pub fn value_dim(&self) -> usize {
        self.v_heads * self.dv
    }
    /// Channels of the DeltaNet conv: [q | k | v].
    pub fn conv_dim(&self) -> usize {
        2 * self.key_dim() + self.value_dim()
    }

    /// From the parsed config.json: the text model's own fields, or a multimodal
    /// wrapper's `text_config` (whose tensors live under `model.language_model.`).
    pub fn from_json(v: &serde_json::Value) -> Result<Self, String> {
        let nested = v.get("text_config").is_some();
        let t: RawTextConfig =
            serde_json::from_value(v.get("text_config").unwrap_or(v).clone()).map_err(|e| e.to_string())?;
        let top_tied = v.get("tie_word_embeddings").and_then(|b| b.as_bool());
        if t.num_attention_heads == 0
            || t.num_key_value_heads == 0
            || !t.num_attention_heads.is_multiple_of(t.num_key_value_heads)
        {
            return Err(format!(
                "num_attention_heads {} is not a positive multiple of num_key_value_heads {}",
                t.num_attention_heads, t.num_key_value_heads
            ));
        }
        if t.linear_num_key_heads == 0 || !t.linear_num_value_heads.is_multiple_of(t.linear_num_key_heads) {
            return Err(format!(
                "linear_num_value_heads {} is not a multiple of linear_num_key_heads {}",
                t.linear_num_value_heads, t.linear_num_key_heads
            ));
        }
        if t.linear_key_head_dim > 256 || !(2..=8).contains(&t.linear_conv_kernel_dim) {
            return Err("linear_key_head_dim above 256 or linear_conv_kernel_dim outside 2-8".into());
        }
        check_silu(t.hidden_act.as_deref())?;
        if t.attention_bias == Some(true) {
            return Err("attention_bias is not supported".into());
        }
        let layer_kinds = match &t.layer_types {
            Some(types) => types
                .iter()
                .map(|s| match s.as_str() {
                    "linear_attention" => Ok(LayerKind::Linear),
                    "full_attention" => Ok(LayerKind::Full),
                    other => Err(format!("layer type '{other}' is not supported")),
                })
                .collect::<Result<Vec<_>, _>>()?,
            None => {
                let every = t.full_attention_interval.unwrap_or(4).max(1);
                (0..t.num_hidden_layers)
                    .map(|i| if (i + 1) % every == 0 { LayerKind::Full } else { LayerKind::Linear })
                    .collect()
            }
        };
        if layer_kinds.len() != t.num_hidden_layers {
            return Err(format!("{} layer_types for {} layers", layer_kinds.len(), t.num_hidden_layers));
        }
        let head_dim = t.head_dim.unwrap_or(t.hidden_size / t.num_attention_heads);
        let rope = t.rope_parameters.clone().unwrap_or_default();
        if !matches!(rope.rope_type.as_deref(), None | Some("default")) {
            return Err(format!("rope type {:?} is not supported (default is)", rope.rope_type));
        }
        let partial = rope.partial_rotary_factor.or(t.partial_rotary_factor).unwrap_or(0.25);
        let rope_theta = rope.rope_theta.or(t.rope_theta).unwrap_or(10000.0);
        crate::models::check_text_numbers(t.max_position_embeddings, rope_theta, t.rms_norm_eps, t.vocab_size)?;
        Ok(Qwen35Config {
            text: TextConfig {
                hidden: t.hidden_size,
                intermediate: t.intermediate_size,
                layers: t.num_hidden_layers,
                heads: t.num_attention_heads,
                kv_heads: t.num_key_value_heads,
                head_dim,
                eps: t.rms_norm_eps as f32,
                norm_add_unit: true,
                vocab: t.vocab_size,
                max_pos: t.max_position_embeddings,
                rope_theta,
                tied: top_tied.or(t.tie_word_embeddings).unwrap_or(false),
                eos: eos_ids(&t.eos_token_id),
                bos: t.bos_token_id,
            },
            layer_kinds,
            rotary_dim: rotary_dim(head_dim, partial),
            conv_kernel: t.linear_conv_kernel_dim,
            k_heads: t.linear_num_key_heads,
            v_heads: t.linear_num_value_heads,
            dk: t.linear_key_head_dim,
            dv: t.linear_value_head_dim,
            prefix: if nested { "model.language_model.".into() } else { "model.".into() },
        })
    }
}
