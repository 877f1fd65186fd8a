//! Whisper's config.json (transformers `WhisperConfig` names).

use std::path::Path;

use crate::models::{read_json, ModelError};

#[derive(Debug, Clone, serde::Deserialize)]
pub struct WhisperConfig {
    pub d_model: usize,
    pub encoder_layers: usize,
    pub decoder_layers: usize,
    pub encoder_attention_heads: usize,
    pub decoder_attention_heads: usize,
    pub encoder_ffn_dim: usize,
    pub decoder_ffn_dim: usize,
    pub vocab_size: usize,
    pub num_mel_bins: usize,
    pub max_source_positions: usize,
    pub max_target_positions: usize,
    #[serde(default = "d_start")]
    pub decoder_start_token_id: u32,
    #[serde(default = "d_act")]
    pub activation_function: String,
    #[serde(default)]
    pub scale_embedding: bool,
    #[serde(default)]
    pub suppress_tokens: Option<Vec<i64>>,
    #[serde(default)]
    pub begin_suppress_tokens: Option<Vec<i64>>,
}

fn d_start() -> u32 {
    50257
}
fn d_act() -> String {
    "gelu".into()
}

impl WhisperConfig {
    pub fn load(dir: &Path) -> Result<WhisperConfig, ModelError> {
        let path = dir.join("config.json");
        let cfg: WhisperConfig = read_json(&path)?;
        let bad = |msg: String| Err(ModelError::Config { path: path.clone(), msg });
        if cfg.activation_function != "gelu" {
            return bad(format!("activation_function '{}' is not supported (gelu)", cfg.activation_function));
        }
        if cfg.scale_embedding {
            return bad("scale_embedding = true is not supported".into());
        }
        if !cfg.d_model.is_multiple_of(cfg.encoder_attention_heads)
            || !cfg.d_model.is_multiple_of(cfg.decoder_attention_heads)
        {
            return bad("d_model is not a multiple of the head count".into());
        }
        if cfg.d_model / cfg.encoder_attention_heads > 256 || cfg.d_model / cfg.decoder_attention_heads > 256 {
            return bad("head_dim > 256 is not supported".into());
        }
        if cfg.d_model == 0 || cfg.vocab_size == 0 || cfg.num_mel_bins == 0 || cfg.max_source_positions == 0 {
            return bad("zero-sized dimension".into());
        }
        Ok(cfg)
    }

    /// Mel frames the encoder takes (two convs, the second with stride 2).
    pub fn input_frames(&self) -> usize {
        self.max_source_positions * 2
    }
}
