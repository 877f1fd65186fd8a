//! Llama-family models straight from GGUF files: hyper-parameters from the
//! metadata, tensors by their GGUF names, 4-bit blocks handed over losslessly
//! as INT4 groups, and llama.cpp's Q/K row permutation undone for llama-arch files.

use std::path::Path;

use super::config::{Family, LlamaConfig};
use crate::gguf::{select_rows_f32, unpermute_rows, GgufFile, GgufLlamaParams};
use crate::models::rope::RopeScaling;
use crate::models::text_config::TextConfig;
use crate::models::ModelError;
use crate::weights::int4::Int4Matrix;
use crate::weights::{TensorSource, WeightError};

pub struct GgufSource {
    pub file: GgufFile,
    params: GgufLlamaParams,
}

fn gguf_err(path: &Path, e: impl std::fmt::Display) -> WeightError {
    WeightError::Format { path: path.to_path_buf(), msg: e.to_string() }
}

impl GgufSource {
    pub fn open(path: &Path) -> Result<Self, ModelError> {
        let file = GgufFile::open(path).map_err(|e| gguf_err(path, e))?;
        let params = file.llama_params().map_err(|e| gguf_err(path, e))?;
        Ok(GgufSource { file, params })
    }

    pub fn config(&self) -> Result<LlamaConfig, ModelError> {
        let p = &self.params;
        let family = match p.arch.as_str() {
            "llama" => Family::Llama,
            "qwen2" => Family::Qwen2,
            "qwen3" => Family::Qwen3,
            other => {
                return Err(ModelError::UnknownArchitecture {
                    arch: other.into(),
                    path: self.file.label().into(),
                    supported: "llama, qwen2, qwen3".into(),
                })
            }
        };
        let rope_scaling = match (p.rope_scaling_type.as_deref(), p.rope_scaling_factor) {
            (None | Some("none"), _) => RopeScaling::None,
            (Some("linear"), Some(factor)) => RopeScaling::Linear { factor },
            (Some(t), _) => {
                return Err(ModelError::Config {
                    path: self.file.label().into(),
                    msg: format!("rope scaling '{t}' is not supported (linear is)"),
                })
            }
        };
        // The same range checks as a config.json's (context_length is max_position_embeddings,
        // rope.freq_base rope_theta).
        crate::models::check_text_numbers(p.context_length, p.rope_freq_base as f64, p.rms_eps as f64, p.vocab_size)
            .map_err(|msg| ModelError::Config {
                path: self.file.label().into(),
                msg: format!("GGUF metadata: {msg}"),
            })?;
        let head_dim = p.head_dim();
        Ok(LlamaConfig {
            text: TextConfig {
                hidden: p.embedding_length,
                intermediate: p.feed_forward_length,
                layers: p.block_count,
                heads: p.head_count,
                kv_heads: p.head_count_kv,
                head_dim,
                eps: p.rms_eps,
                norm_add_unit: false,
                vocab: p.vocab_size,
                max_pos: p.context_length,
                rope_theta: p.rope_freq_base as f64,
                tied: self.file.tensor_info("output.weight").is_none(),
                eos: vec![],
                bos: None,
            },
            family,
            rotary_dim: p.rope_dimension_count.min(head_dim),
            rope_scaling,
            qkv_bias: self.file.tensor_info("blk.0.attn_q.bias").is_some(),
            qk_norm: family == Family::Qwen3,
        })
    }

    /// The GGUF name of a transformers tensor name.
    fn gguf_name(name: &str) -> Option<String> {
        let fixed = match name {
            "model.embed_tokens.weight" => Some("token_embd.weight"),
            "model.norm.weight" => Some("output_norm.weight"),
            "lm_head.weight" => Some("output.weight"),
            _ => None,
        };
        if let Some(f) = fixed {
            return Some(f.into());
        }
        let rest = name.strip_prefix("model.layers.")?;
        let (layer, tail) = rest.split_once('.')?;
        let (module, kind) = tail.rsplit_once('.')?;
        let g = match module {
            "input_layernorm" => "attn_norm",
            "post_attention_layernorm" => "ffn_norm",
            "self_attn.q_proj" => "attn_q",
            "self_attn.k_proj" => "attn_k",
            "self_attn.v_proj" => "attn_v",
            "self_attn.o_proj" => "attn_output",
            "self_attn.q_norm" => "attn_q_norm",
            "self_attn.k_norm" => "attn_k_norm",
            "mlp.gate_proj" => "ffn_gate",
            "mlp.up_proj" => "ffn_up",
            "mlp.down_proj" => "ffn_down",
            _ => return None,
        };
        Some(format!("blk.{layer}.{g}.{kind}"))
    }

    /// Source rows undoing llama.cpp's Q/K permutation, when this tensor has one.
    fn row_order(&self, name: &str, rows: usize) -> Option<Vec<usize>> {
        if !self.params.qk_rows_permuted() {
            return None;
        }
        if name.contains("self_attn.q_proj") {
            Some(unpermute_rows(rows, self.params.head_count))
        } else if name.contains("self_attn.k_proj") {
            Some(unpermute_rows(rows, self.params.head_count_kv))
        } else {
            None
        }
    }

    fn resolve(&self, name: &str) -> Result<String, WeightError> {
        Self::gguf_name(name)
            .filter(|g| self.file.tensor_info(g).is_some())
            .ok_or_else(|| WeightError::Missing { name: name.into(), dir: self.file.label().into() })
    }
}

impl TensorSource for GgufSource {
    fn contains(&self, name: &str) -> bool {
        Self::gguf_name(name).is_some_and(|g| self.file.tensor_info(&g).is_some())
    }

    fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightError> {
        let g = self.resolve(name)?;
        let (got, data) = self.file.tensor_f32(&g).map_err(|e| gguf_err(Path::new(self.file.label()), e))?;
        if got != shape {
            return Err(WeightError::Shape { name: g, path: self.file.label().into(), want: shape.to_vec(), got });
        }
        Ok(match (shape, self.row_order(name, shape[0])) {
            ([_, cols], Some(order)) => select_rows_f32(&data, *cols, &order),
            ([_], Some(order)) => select_rows_f32(&data, 1, &order),
            _ => data,
        })
    }

    fn int4(&self, name: &str, rows: usize, cols: usize) -> Result<Option<Int4Matrix>, WeightError> {
        let g = self.resolve(name)?;
        let Some(mut q) = self.file.tensor_int4(&g).map_err(|e| gguf_err(Path::new(self.file.label()), e))? else {
            return Ok(None);
        };
        if (q.rows, q.cols) != (rows, cols) {
            return Err(WeightError::Shape {
                name: g,
                path: self.file.label().into(),
                want: vec![rows, cols],
                got: vec![q.rows, q.cols],
            });
        }
        if let Some(order) = self.row_order(name, rows) {
            q = q.select_rows(&order);
        }
        let sm = q.scales.iter().zip(&q.mins).map(|(s, m)| [*s, *m]).collect();
        Ok(Some(Int4Matrix { rows, cols, group: 32, q: q.q, sm }))
    }
}
