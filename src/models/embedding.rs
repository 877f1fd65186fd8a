//! The embedding interface the worker sees (`EmbeddingModel`), and what a sentence-transformers
//! checkpoint says about its output (`EmbedConfig`): pooling, normalisation, Matryoshka widths. The
//! families: decoders of the text families (`llm::embed::Embedder`) and BERT-style encoders (`bert`).

use std::path::Path;

use crate::models::ModelError;

/// A loaded embedding model: one input's pooled vector at a time.
pub trait EmbeddingModel: Send {
    /// The pooled (and, where the model says so, normalised) vector of `tokens`. Blocks on readbacks.
    fn embed(&mut self, tokens: &[u32]) -> Result<Vec<f32>, ModelError>;
    /// Every input's vector, in order; families that run several inputs in one GPU pass override this.
    fn embed_batch(&mut self, inputs: &[&[u32]]) -> Result<Vec<Vec<f32>>, ModelError> {
        inputs.iter().map(|t| self.embed(t)).collect()
    }
    /// The full vector's width.
    fn dims(&self) -> usize;
    /// Most tokens one input may have.
    fn max_tokens(&self) -> usize;
    /// Token ids below this are valid.
    fn vocab(&self) -> usize;
    fn config(&self) -> &EmbedConfig;
}

/// How the hidden rows of one input become its vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The last token's row (decoder embedders: Qwen3-Embedding, gte-Qwen).
    LastToken,
    /// The mean of every row.
    Mean,
    /// The first token's row.
    Cls,
}

/// What a sentence-transformers checkpoint says about its output: pooling, normalisation and the
/// dimensions it was trained to be truncated to (Matryoshka).
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedConfig {
    pub pooling: Pooling,
    pub normalize: bool,
    /// Some: `dimensions` may truncate the vector (to any width up to the full one, or to one of
    /// the listed widths where the config lists them). None: the model does not allow truncation.
    pub matryoshka: Option<Vec<usize>>,
}

#[derive(serde::Deserialize)]
struct StModule {
    #[serde(default)]
    path: String,
    #[serde(default, rename = "type")]
    kind: String,
}

#[derive(serde::Deserialize, Default)]
struct StPooling {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

#[derive(serde::Deserialize, Default)]
struct MatryoshkaFields {
    #[serde(default)]
    is_matryoshka: bool,
    #[serde(default)]
    matryoshka_dimensions: Option<Vec<usize>>,
}

impl EmbedConfig {
    /// Whether `dir` is a sentence-transformers checkpoint with a Pooling module (an embedding model).
    pub fn is_embedding_model(dir: &Path) -> bool {
        read_modules(dir).is_ok_and(|m| m.iter().any(|m| m.kind.ends_with("Pooling")))
    }

    /// The checkpoint's pooling (modules.json and its Pooling folder's config.json), normalisation and
    /// Matryoshka widths (config.json's `is_matryoshka` / `matryoshka_dimensions`, vLLM's fields).
    /// A checkpoint without sentence-transformers files pools the last token and normalises, as
    /// decoder embedders do.
    pub fn read(dir: &Path) -> Result<EmbedConfig, ModelError> {
        let cfg_path = dir.join("config.json");
        let mat: MatryoshkaFields =
            if cfg_path.is_file() { crate::models::read_json(&cfg_path)? } else { MatryoshkaFields::default() };
        let matryoshka = match (mat.is_matryoshka, mat.matryoshka_dimensions) {
            (_, Some(d)) => Some(d),
            (true, None) => Some(Vec::new()),
            (false, None) => None,
        };
        let Ok(modules) = read_modules(dir) else {
            return Ok(EmbedConfig { pooling: Pooling::LastToken, normalize: true, matryoshka });
        };
        let normalize = modules.iter().any(|m| m.kind.ends_with("Normalize"));
        let pooling = match modules.iter().find(|m| m.kind.ends_with("Pooling")) {
            None => Pooling::LastToken,
            Some(m) => {
                let path = dir.join(&m.path).join("config.json");
                let p: StPooling = crate::models::read_json(&path)?;
                pooling_of(&p).map_err(|why| ModelError::Unsupported(format!("{}: {why}", path.display())))?
            }
        };
        Ok(EmbedConfig { pooling, normalize, matryoshka })
    }
}

fn read_modules(dir: &Path) -> Result<Vec<StModule>, ModelError> {
    crate::models::read_json(&dir.join("modules.json"))
}

fn pooling_of(p: &StPooling) -> Result<Pooling, String> {
    let unsupported = [
        (p.pooling_mode_max_tokens, "max"),
        (p.pooling_mode_weightedmean_tokens, "weighted mean"),
        (p.pooling_mode_mean_sqrt_len_tokens, "mean sqrt len"),
    ];
    if let Some((_, name)) = unsupported.iter().find(|u| u.0) {
        return Err(format!("{name} pooling is not supported (last token, mean and CLS are)"));
    }
    match (p.pooling_mode_lasttoken, p.pooling_mode_mean_tokens, p.pooling_mode_cls_token) {
        (true, false, false) => Ok(Pooling::LastToken),
        (false, true, false) => Ok(Pooling::Mean),
        (false, false, true) => Ok(Pooling::Cls),
        _ => Err(
            "exactly one of pooling_mode_lasttoken, pooling_mode_mean_tokens and pooling_mode_cls_token must be set"
                .into(),
        ),
    }
}

/// Scales `v` to unit length (sentence-transformers' Normalize: divides by max(|v|, 1e-12)).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| (*x as f64) * (*x as f64)).sum::<f64>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x = (*x as f64 / n) as f32);
}

/// `hidden`'s rows ([tokens, width], read back from the model's last layer) pooled as `pooling` says
/// (every row is there: mean and first-token pooling need them all or the first).
pub fn pool_rows(hidden: &[f32], width: usize, pooling: Pooling) -> Vec<f32> {
    let rows = hidden.len() / width;
    match pooling {
        Pooling::LastToken => hidden[(rows - 1) * width..].to_vec(),
        Pooling::Cls => hidden[..width].to_vec(),
        Pooling::Mean => {
            let mut sum = vec![0f64; width];
            for row in hidden.chunks_exact(width) {
                sum.iter_mut().zip(row).for_each(|(s, v)| *s += *v as f64);
            }
            sum.iter().map(|s| (*s / rows as f64) as f32).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_rows_takes_the_last_first_or_mean_row() {
        let h = [1.0, 2.0, 3.0, 4.0, 8.0, 12.0];
        assert_eq!(pool_rows(&h, 2, Pooling::LastToken), vec![8.0, 12.0]);
        assert_eq!(pool_rows(&h, 2, Pooling::Cls), vec![1.0, 2.0]);
        assert_eq!(pool_rows(&h, 2, Pooling::Mean), vec![4.0, 6.0]);
        // Three rows of three: the last row starts at 6 (an offset of rows + width would start it at 5).
        let h = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
        assert_eq!(pool_rows(&h, 3, Pooling::LastToken), vec![7.0, 8.0, 9.0]);
        assert_eq!(pool_rows(&h, 3, Pooling::Mean), vec![4.0, 5.0, 6.0]);
    }

    fn pooling(last: bool, mean: bool, cls: bool) -> StPooling {
        StPooling {
            pooling_mode_lasttoken: last,
            pooling_mode_mean_tokens: mean,
            pooling_mode_cls_token: cls,
            ..Default::default()
        }
    }

    #[test]
    fn one_pooling_mode_is_read_and_others_are_refused() {
        assert_eq!(pooling_of(&pooling(true, false, false)), Ok(Pooling::LastToken));
        assert_eq!(pooling_of(&pooling(false, true, false)), Ok(Pooling::Mean));
        assert_eq!(pooling_of(&pooling(false, false, true)), Ok(Pooling::Cls));
        assert!(pooling_of(&pooling(false, false, false)).is_err());
        assert!(pooling_of(&pooling(true, true, false)).is_err());
        assert!(pooling_of(&pooling(false, true, true)).is_err());
        let max = StPooling { pooling_mode_max_tokens: true, pooling_mode_mean_tokens: true, ..Default::default() };
        assert!(pooling_of(&max).unwrap_err().contains("max"));
        let w = StPooling { pooling_mode_weightedmean_tokens: true, ..Default::default() };
        assert!(pooling_of(&w).unwrap_err().contains("weighted"));
        let s = StPooling { pooling_mode_mean_sqrt_len_tokens: true, ..Default::default() };
        assert!(pooling_of(&s).unwrap_err().contains("sqrt"));
    }

    #[test]
    fn normalize_gives_unit_length_and_keeps_direction() {
        let mut v = vec![3.0, -4.0, 0.0];
        normalize(&mut v);
        assert_eq!(v, vec![0.6, -0.8, 0.0]);
        let mut z = vec![0.0; 3];
        normalize(&mut z);
        assert_eq!(z, vec![0.0; 3]);
    }

    #[test]
    fn sentence_transformers_files_give_pooling_normalisation_and_widths() {
        let dir = std::env::temp_dir().join(format!("gerbil-embed-config-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
        // No sentence-transformers files: a decoder embedder's defaults.
        std::fs::write(dir.join("config.json"), "{}").unwrap();
        assert!(!EmbedConfig::is_embedding_model(&dir));
        let c = EmbedConfig::read(&dir).unwrap();
        assert_eq!(c, EmbedConfig { pooling: Pooling::LastToken, normalize: true, matryoshka: None });
        let modules = r#"[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
            {"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"}]"#;
        std::fs::write(dir.join("modules.json"), modules).unwrap();
        std::fs::write(dir.join("1_Pooling/config.json"), r#"{"pooling_mode_mean_tokens": true}"#).unwrap();
        std::fs::write(dir.join("config.json"), r#"{"matryoshka_dimensions": [64, 32]}"#).unwrap();
        assert!(EmbedConfig::is_embedding_model(&dir));
        let c = EmbedConfig::read(&dir).unwrap();
        assert_eq!(c, EmbedConfig { pooling: Pooling::Mean, normalize: false, matryoshka: Some(vec![64, 32]) });
        let with_norm = modules.replace(
            "}]",
            r#"}, {"idx":2,"name":"2","path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]"#,
        );
        std::fs::write(dir.join("modules.json"), with_norm).unwrap();
        std::fs::write(dir.join("config.json"), r#"{"is_matryoshka": true}"#).unwrap();
        let c = EmbedConfig::read(&dir).unwrap();
        assert_eq!(c, EmbedConfig { pooling: Pooling::Mean, normalize: true, matryoshka: Some(vec![]) });
        std::fs::write(dir.join("1_Pooling/config.json"), r#"{"pooling_mode_max_tokens": true}"#).unwrap();
        assert!(EmbedConfig::read(&dir).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
