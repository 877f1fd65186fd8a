//! Moonshine's config.json (transformers `MoonshineConfig` names).

use std::path::Path;

use crate::models::{read_json, ModelError};

#[derive(Debug, Clone, serde::Deserialize)]
pub struct RopeParameters {
    #[serde(default = "d_theta")]
    pub rope_theta: f64,
    #[serde(default = "d_partial")]
    pub partial_rotary_factor: f64,
    #[serde(default)]
    pub rope_type: Option<String>,
}

impl Default for RopeParameters {
    fn default() -> Self {
        RopeParameters { rope_theta: d_theta(), partial_rotary_factor: d_partial(), rope_type: None }
    }
}

#[derive(Debug, Clone, serde::Deserialize)]
pub struct MoonshineConfig {
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub encoder_num_hidden_layers: usize,
    pub decoder_num_hidden_layers: usize,
    pub encoder_num_attention_heads: usize,
    pub decoder_num_attention_heads: usize,
    #[serde(default)]
    pub encoder_num_key_value_heads: Option<usize>,
    #[serde(default)]
    pub decoder_num_key_value_heads: Option<usize>,
    pub vocab_size: usize,
    #[serde(default = "d_gelu")]
    pub encoder_hidden_act: String,
    #[serde(default = "d_silu")]
    pub decoder_hidden_act: String,
    #[serde(default)]
    pub rope_parameters: Option<RopeParameters>,
    /// Older configs (transformers < 5) keep these at the top level.
    #[serde(default)]
    pub rope_theta: Option<f64>,
    #[serde(default)]
    pub partial_rotary_factor: Option<f64>,
    #[serde(default = "d_start")]
    pub decoder_start_token_id: u32,
    #[serde(default = "d_eos")]
    pub eos_token_id: u32,
    #[serde(default)]
    pub attention_bias: bool,
    #[serde(default = "d_true")]
    pub tie_word_embeddings: bool,
}

fn d_theta() -> f64 {
    10000.0
}
fn d_partial() -> f64 {
    0.9
}
fn d_gelu() -> String {
    "gelu".into()
}
fn d_silu() -> String {
    "silu".into()
}
fn d_start() -> u32 {
    1
}
fn d_eos() -> u32 {
    2
}
fn d_true() -> bool {
    true
}

impl MoonshineConfig {
    pub fn load(dir: &Path) -> Result<MoonshineConfig, ModelError> {
        let path = dir.join("config.json");
        let cfg: MoonshineConfig = read_json(&path)?;
        let bad = |msg: String| Err(ModelError::Config { path: path.clone(), msg });
        if cfg.encoder_hidden_act != "gelu" || cfg.decoder_hidden_act != "silu" {
            return bad(format!(
                "activations {}/{} are not supported (gelu encoder, silu decoder)",
                cfg.encoder_hidden_act, cfg.decoder_hidden_act
            ));
        }
        if cfg.attention_bias {
            return bad("attention_bias = true is not supported".into());
        }
        let d = cfg.hidden_size;
        for (heads, kv) in [
            (cfg.encoder_num_attention_heads, cfg.encoder_num_key_value_heads),
            (cfg.decoder_num_attention_heads, cfg.decoder_num_key_value_heads),
        ] {
            if heads == 0 || !d.is_multiple_of(heads) || d / heads > 256 {
                return bad(format!("{heads} heads do not divide hidden_size {d} into heads of <= 256"));
            }
            if kv.is_some_and(|k| k != heads) {
                return bad("grouped key/value heads are not supported".into());
            }
        }
        if let Some(t) = cfg.rope().rope_type.as_deref().filter(|t| *t != "default") {
            return bad(format!("rope_type '{t}' is not supported (default)"));
        }
        if d == 0 || cfg.vocab_size == 0 || cfg.intermediate_size == 0 {
            return bad("zero-sized dimension".into());
        }
        if cfg.decoder_start_token_id as usize >= cfg.vocab_size || cfg.eos_token_id as usize >= cfg.vocab_size {
            return bad("special token ids past the vocabulary".into());
        }
        Ok(cfg)
    }

    pub fn rope(&self) -> RopeParameters {
        let mut r = self.rope_parameters.clone().unwrap_or_default();
        if self.rope_parameters.is_none() {
            r.rope_theta = self.rope_theta.unwrap_or(r.rope_theta);
            r.partial_rotary_factor = self.partial_rotary_factor.unwrap_or(r.partial_rotary_factor);
        }
        r
    }

    /// inv_freq as transformers computes it: dim = int(head_dim * factor), one
    /// frequency per even index below dim (so an odd dim rotates dim + 1 values).
    pub fn inv_freq(&self, heads: usize) -> Vec<f32> {
        let r = self.rope();
        let head_dim = self.hidden_size / heads;
        let dim = (head_dim as f64 * r.partial_rotary_factor) as usize;
        let base = r.rope_theta as f32;
        (0..dim).step_by(2).map(|i| 1.0 / base.powf(i as f32 / dim as f32)).collect()
    }

    /// Encoder frames for `samples` of 16 kHz audio (conv strides 64, 3, 2).
    pub fn encoder_frames(samples: usize) -> usize {
        let c1 = if samples >= 127 { (samples - 127) / 64 + 1 } else { 0 };
        let c2 = if c1 >= 7 { (c1 - 7) / 3 + 1 } else { 0 };
        if c2 >= 3 {
            (c2 - 3) / 2 + 1
        } else {
            0
        }
    }
}
