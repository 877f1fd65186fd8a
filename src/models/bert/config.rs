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
        if c.hidden_size == 0 || c.num_attention_heads == 0 || !c.hidden_size.is_multiple_of(c.num_attention_heads) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn load_with(edit: impl FnOnce(&mut serde_json::Value)) -> Result<BertConfig, String> {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bert_embed/config.json");
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
        edit(&mut v);
        let dir = std::env::temp_dir().join(format!(
            "gerbil-bert-config-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.json"), v.to_string()).unwrap();
        let r = BertConfig::load(&dir).map_err(|e| e.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        r
    }

    #[test]
    fn the_fixture_loads_and_what_the_encoder_cannot_compute_is_refused() {
        let c = load_with(|_| {}).unwrap();
        assert_eq!((c.hidden_size, c.num_attention_heads, c.head_dim(), c.layer_norm_eps), (64, 4, 16, 1e-12));
        assert_eq!(
            (c.hidden_act.as_str(), c.position_embedding_type.as_str(), c.type_vocab_size),
            ("gelu", "absolute", 2)
        );
        let refused = [
            (serde_json::json!({"hidden_act": "gelu_new"}), "hidden_act 'gelu_new'"),
            (serde_json::json!({"position_embedding_type": "relative_key"}), "relative_key"),
            (serde_json::json!({"num_attention_heads": 5}), "not a multiple"),
            (serde_json::json!({"num_attention_heads": 0}), "not a multiple"),
            (serde_json::json!({"hidden_size": 1028, "num_attention_heads": 4}), "wider than 256"),
            (serde_json::json!({"vocab_size": 0}), "must be positive"),
            (serde_json::json!({"max_position_embeddings": 0}), "must be positive"),
            (serde_json::json!({"type_vocab_size": 0}), "must be positive"),
        ];
        for (edit, says) in refused {
            let e = load_with(|v| v.as_object_mut().unwrap().extend(edit.as_object().unwrap().clone())).unwrap_err();
            assert!(e.contains(says), "{edit}: {e}");
        }
        // 256-wide heads are the widest taken.
        load_with(|v| {
            v["hidden_size"] = 1024.into();
            v["num_attention_heads"] = 4.into();
        })
        .unwrap();
        // Defaults where a config leaves the field out.
        let c = load_with(|v| {
            let o = v.as_object_mut().unwrap();
            for k in ["hidden_act", "type_vocab_size", "layer_norm_eps", "position_embedding_type"] {
                o.remove(k);
            }
        })
        .unwrap();
        assert_eq!((c.hidden_act.as_str(), c.type_vocab_size, c.layer_norm_eps), ("gelu", 2, 1e-12));
    }
}
