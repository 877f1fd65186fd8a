//! config.json of `Lfm2ForCausalLM`, field names as transformers writes them
//! (including the original checkpoints' `block_ff_dim` / `tie_embedding`).

use serde::Deserialize;

use crate::models::rope::RopeParameters;
use crate::models::text_base::{check_heads, eos_ids, OneOrMany};
use crate::models::text_config::{text_config_deref, TextConfig};

#[derive(Debug, Clone, Deserialize)]
pub struct RawConfig {
    #[serde(default)]
    pub architectures: Vec<String>,
    pub hidden_size: usize,
    pub intermediate_size: Option<usize>,
    /// Overrides `intermediate_size` when present (Lfm2Config.__post_init__).
    pub block_ff_dim: Option<usize>,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub num_key_value_heads: Option<usize>,
    pub head_dim: Option<usize>,
    #[serde(default = "default_eps")]
    pub norm_eps: f64,
    pub vocab_size: usize,
    #[serde(default = "default_max_pos")]
    pub max_position_embeddings: usize,
    pub rope_theta: Option<f64>,
    pub rope_parameters: Option<RopeParameters>,
    pub tie_word_embeddings: Option<bool>,
    /// Overrides `tie_word_embeddings` when present.
    pub tie_embedding: Option<bool>,
    #[serde(default)]
    pub conv_bias: bool,
    #[serde(rename = "conv_L_cache", default = "default_l_cache")]
    pub conv_l_cache: usize,
    #[serde(default = "default_multiple_of")]
    pub block_multiple_of: usize,
    /// Missing means 1.0; an explicit null skips the multiplier and the rounding.
    #[serde(default = "default_multiplier")]
    pub block_ffn_dim_multiplier: Option<f64>,
    #[serde(default = "default_true")]
    pub block_auto_adjust_ff_dim: bool,
    pub full_attn_idxs: Option<Vec<usize>>,
    pub layer_types: Option<Vec<String>>,
    pub eos_token_id: Option<OneOrMany>,
    pub bos_token_id: Option<u32>,
}

fn default_eps() -> f64 {
    1e-5
}
fn default_max_pos() -> usize {
    128_000
}
fn default_l_cache() -> usize {
    3
}
fn default_multiple_of() -> usize {
    256
}
fn default_multiplier() -> Option<f64> {
    Some(1.0)
}
fn default_true() -> bool {
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    Conv,
    Attention,
}

/// The resolved hyper-parameters the graph builder uses: the numbers every family has (`text`,
/// which the config derefs to; `intermediate` is the feed-forward width after
/// `block_auto_adjust_ff_dim`) and LFM2's own.
#[derive(Debug, Clone)]
pub struct Lfm2Config {
    pub text: TextConfig,
    pub layer_kinds: Vec<LayerKind>,
    pub conv_bias: bool,
    /// Conv kernel length L (conv_L_cache).
    pub conv_kernel: usize,
}

text_config_deref!(Lfm2Config);

impl Lfm2Config {
    pub fn layers(&self) -> usize {
        self.layer_kinds.len()
    }

    pub fn from_raw(raw: &RawConfig) -> Result<Self, String> {
        let kv_heads =
            check_heads(raw.hidden_size, raw.num_hidden_layers, raw.num_attention_heads, raw.num_key_value_heads)?;
        let max_kernel = crate::gpu::params::conv::MAX_KERNEL;
        if raw.conv_l_cache < 2 || raw.conv_l_cache > max_kernel {
            return Err(format!("conv_L_cache {} is not supported (2..={max_kernel} are)", raw.conv_l_cache));
        }
        let n = raw.num_hidden_layers;
        let layer_kinds = match (&raw.layer_types, &raw.full_attn_idxs) {
            (Some(types), _) => {
                if types.len() != n {
                    return Err(format!("layer_types has {} entries for {n} layers", types.len()));
                }
                types
                    .iter()
                    .map(|t| match t.as_str() {
                        "conv" => Ok(LayerKind::Conv),
                        "full_attention" => Ok(LayerKind::Attention),
                        other => Err(format!("layer type '{other}' is not supported (conv, full_attention are)")),
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
            (None, Some(idxs)) => {
                (0..n).map(|i| if idxs.contains(&i) { LayerKind::Attention } else { LayerKind::Conv }).collect()
            }
            (None, None) => vec![LayerKind::Attention; n],
        };
        let mut inter = raw.block_ff_dim.or(raw.intermediate_size).ok_or("intermediate_size is missing")?;
        if raw.block_auto_adjust_ff_dim {
            inter = 2 * inter / 3;
            if let Some(mult) = raw.block_ffn_dim_multiplier {
                let m = raw.block_multiple_of.max(1);
                inter = ((mult * inter as f64) as usize).div_ceil(m) * m;
            }
        }
        let rope = raw.rope_parameters.clone().unwrap_or_default();
        if !matches!(rope.rope_type.as_deref(), None | Some("default")) {
            return Err(format!("rope type '{}' is not supported for lfm2 (default is)", rope.rope_type.unwrap()));
        }
        let rope_theta = rope.rope_theta.or(raw.rope_theta).unwrap_or(1_000_000.0);
        crate::models::check_text_numbers(raw.max_position_embeddings, rope_theta, raw.norm_eps, raw.vocab_size)?;
        Ok(Lfm2Config {
            text: TextConfig {
                hidden: raw.hidden_size,
                intermediate: inter,
                layers: n,
                heads: raw.num_attention_heads,
                kv_heads,
                head_dim: raw.head_dim.unwrap_or(raw.hidden_size / raw.num_attention_heads),
                eps: raw.norm_eps as f32,
                norm_add_unit: false,
                vocab: raw.vocab_size,
                max_pos: raw.max_position_embeddings,
                rope_theta,
                tied: raw.tie_embedding.or(raw.tie_word_embeddings).unwrap_or(true),
                eos: eos_ids(&raw.eos_token_id),
                bos: raw.bos_token_id,
            },
            layer_kinds,
            conv_bias: raw.conv_bias,
            conv_kernel: raw.conv_l_cache,
        })
    }
}
