//! Llama-family hyper-parameters from GGUF metadata, and the Q/K row
//! un-permutation for llama-arch files.

use super::error::{GgufError, Result};
use super::metadata::Metadata;

/// Hyper-parameters of a llama / qwen2 / qwen3 GGUF (`{arch}.*` keys).
#[derive(Debug, Clone, PartialEq)]
pub struct GgufLlamaParams {
    /// `general.architecture`
    pub arch: String,
    pub block_count: usize,
    pub embedding_length: usize,
    pub feed_forward_length: usize,
    pub head_count: usize,
    /// Defaults to `head_count`.
    pub head_count_kv: usize,
    /// `{arch}.rope.freq_base`, default 10000.
    pub rope_freq_base: f32,
    /// `{arch}.rope.dimension_count`, defaults to the head dimension.
    pub rope_dimension_count: usize,
    pub rms_eps: f32,
    pub context_length: usize,
    /// `{arch}.vocab_size`, else the length of `tokenizer.ggml.tokens`
    /// (else 0; [`super::GgufFile::llama_params`] then uses `token_embd.weight`).
    pub vocab_size: usize,
    /// `{arch}.rope.scaling.type` (`"linear"`, `"yarn"`, ...); `"linear"` when
    /// only the legacy `{arch}.rope.scale_linear` is present.
    pub rope_scaling_type: Option<String>,
    /// `{arch}.rope.scaling.factor` (or legacy `rope.scale_linear`).
    pub rope_scaling_factor: Option<f32>,
    /// `{arch}.rope.scaling.original_context_length`
    pub rope_scaling_original_context_length: Option<usize>,
    /// `{arch}.attention.key_length` (per-head K dim) when present.
    pub key_length: Option<usize>,
    /// `{arch}.attention.value_length` when present.
    pub value_length: Option<usize>,
}

/// Architectures [`GgufLlamaParams::from_metadata`] accepts.
pub const LLAMA_LIKE_ARCHS: &[&str] = &["llama", "qwen2", "qwen3"];

impl GgufLlamaParams {
    pub fn from_metadata(md: &Metadata) -> Result<GgufLlamaParams> {
        let arch = md.get_str("general.architecture")?.to_string();
        if !LLAMA_LIKE_ARCHS.contains(&arch.as_str()) {
            return Err(GgufError::BadValue {
                file: md.file_label().to_string(),
                key: "general.architecture".into(),
                msg: format!("'{arch}' is not one of {LLAMA_LIKE_ARCHS:?}"),
            });
        }
        let k = |s: &str| format!("{arch}.{s}");
        let bad = |key: String, msg: String| GgufError::BadValue { file: md.file_label().to_string(), key, msg };
        let head_count = md.get_usize(&k("attention.head_count"))?;
        let embedding_length = md.get_usize(&k("embedding_length"))?;
        if head_count == 0 {
            return Err(bad(k("attention.head_count"), "must be > 0".into()));
        }
        let head_count_kv = md.opt_usize(&k("attention.head_count_kv"))?.unwrap_or(head_count);
        if head_count_kv == 0 || head_count % head_count_kv != 0 {
            return Err(bad(
                k("attention.head_count_kv"),
                format!("{head_count_kv} does not divide head_count {head_count}"),
            ));
        }
        let key_length = md.opt_usize(&k("attention.key_length"))?;
        let head_dim = key_length.unwrap_or(embedding_length / head_count);
        let legacy_linear = md.opt_f32(&k("rope.scale_linear"))?;
        let mut rope_scaling_type = md.opt_str(&k("rope.scaling.type"))?.map(str::to_string);
        let mut rope_scaling_factor = md.opt_f32(&k("rope.scaling.factor"))?;
        if rope_scaling_type.is_none() && rope_scaling_factor.is_none() {
            if let Some(f) = legacy_linear {
                rope_scaling_type = Some("linear".into());
                rope_scaling_factor = Some(f);
            }
        }
        let vocab_size = match md.opt_usize(&k("vocab_size"))? {
            Some(v) => v,
            None => md.opt_str_array("tokenizer.ggml.tokens")?.map_or(0, |t| t.len()),
        };
        let block_count = md.get_usize(&k("block_count"))?;
        if block_count == 0 {
            return Err(bad(k("block_count"), "must be > 0".into()));
        }
        Ok(GgufLlamaParams {
            block_count,
            embedding_length,
            feed_forward_length: md.get_usize(&k("feed_forward_length"))?,
            head_count,
            head_count_kv,
            rope_freq_base: md.opt_f32(&k("rope.freq_base"))?.unwrap_or(10000.0),
            rope_dimension_count: md.opt_usize(&k("rope.dimension_count"))?.unwrap_or(head_dim),
            rms_eps: md.get_f32(&k("attention.layer_norm_rms_epsilon"))?,
            context_length: md.get_usize(&k("context_length"))?,
            vocab_size,
            rope_scaling_type,
            rope_scaling_factor,
            rope_scaling_original_context_length: md.opt_usize(&k("rope.scaling.original_context_length"))?,
            key_length,
            value_length: md.opt_usize(&k("attention.value_length"))?,
            arch,
        })
    }

    /// Per-head Q/K dimension: `key_length`, else `embedding_length / head_count`.
    pub fn head_dim(&self) -> usize {
        self.key_length.unwrap_or(self.embedding_length / self.head_count)
    }

    /// Whether `attn_q` / `attn_k` rows were permuted by convert_hf_to_gguf
    /// (true for `llama`; qwen2/qwen3 are stored in Hugging Face order).
    pub fn qk_rows_permuted(&self) -> bool {
        self.arch == "llama"
    }
}

/// Undoes convert_hf_to_gguf's `permute(w, n_head, n_head_kv)` on the rows of
/// a Q (`n_head = head_count`) or K (`n_head = head_count_kv`) projection.
///
/// Returns `src` with `hf_row[i] = gguf_row[src[i]]`. The python permute is
/// `w.reshape(n_head, 2, rows // n_head // 2, ...).swapaxes(1, 2).reshape(w.shape)`,
/// so HF row `h*hd + j*hd/2 + i` is stored at GGUF row `h*hd + 2*i + j`.
/// Panics unless `rows` is a multiple of `2 * n_head`.
pub fn unpermute_rows(rows: usize, n_head: usize) -> Vec<usize> {
    assert!(n_head > 0 && rows.is_multiple_of(2 * n_head), "rows ({rows}) must be a multiple of 2 * n_head ({n_head})");
    let hd = rows / n_head;
    let half = hd / 2;
    let mut src = vec![0usize; rows];
    for h in 0..n_head {
        for j in 0..2 {
            for i in 0..half {
                src[h * hd + j * half + i] = h * hd + 2 * i + j;
            }
        }
    }
    src
}

/// Applies a row selection (from [`unpermute_rows`]) to a row-major
/// `[rows, cols]` f32 matrix.
pub fn select_rows_f32(data: &[f32], cols: usize, src_rows: &[usize]) -> Vec<f32> {
    let mut out = Vec::with_capacity(src_rows.len() * cols);
    for &r in src_rows {
        out.extend_from_slice(&data[r * cols..(r + 1) * cols]);
    }
    out
}
