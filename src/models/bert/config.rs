//! transformers' `BertConfig`, the fields the encoder reads.

use std::path::Path;

use crate::models::{read_json, ModelError};

#[derive(Debug, Clone, serde::Deserialize)]
pub struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f32,
    #[serde(default = "default_position_type")]
    pub position_embedding_type: String,
}

fn default_act() -> String {
    "gelu".into()
}
fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f32 {
    1e-12
}
fn default_position_type() -> String {
    "absolute".into()
}

impl BertConfig {
    /// Reads `dir/config.json` and refuses what the encoder does not compute.
    pub fn load(dir: &Path) -> Result<BertConfig, ModelError> {
        let path = dir.join("config.json");
        let c: BertConfig = read_json(&path)?;
        let err = |msg: String| ModelError::Config { path: path.clone(), msg };
        if c.hidden_size == 0 || c.num_attention_heads == 0 || c.hidden_size % c.num_attention_heads != 0 {
            return Err(err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                c.hidden_size, c.num_attention_heads
            )));
        }
        if c.hidden_size / c.num_attention_heads > 256 {
            return Err(err("heads wider than 256 are not supported".into()));
        }
        // transformers' "gelu" is the exact (erf) GELU, which the kernel computes.
        if c.hidden_act != "gelu" {
            return Err(err(format!("hidden_act '{}' is not supported (gelu is)", c.hidden_act)));
        }
        if c.position_embedding_type != "absolute" {
            return Err(err(format!(
                "position_embedding_type '{}' is not supported (absolute is)",
                c.position_embedding_type
            )));
        }
        if c.vocab_size == 0 || c.max_position_embeddings == 0 || c.type_vocab_size == 0 {
            return Err(err("vocab_size, max_position_embeddings and type_vocab_size must be positive".into()));
        }
        Ok(c)
    }

    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads
    }
}
