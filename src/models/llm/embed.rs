//! Text embeddings from a decoder model (Qwen3-Embedding and other sentence-transformers
//! checkpoints of the text families): the prompt runs as a prefill whose graph ends at the final
//! norm (`Mode::Embed`), and the hidden rows are pooled as the checkpoint's `1_Pooling` says (last
//! token, mean or first token), then L2-normalised where its `modules.json` has a Normalize module.

use std::path::Path;

use crate::executor::Executor;
use crate::graph::{Plan, PlanOptions, TensorId};
use crate::models::decoder::{GraphIo, Mode};
use crate::models::llm::TextModel;
use crate::models::ModelError;

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

/// A text model's embedding plan: prompt chunks run one after another over one sequence's caches,
/// each input starting at position 0.
pub struct Embedder {
    exec: Executor,
    plan: Plan,
    io: GraphIo,
    hidden: TensorId,
    width: usize,
    chunk: usize,
    pub config: EmbedConfig,
}

impl Embedder {
    pub fn new(model: &TextModel, config: EmbedConfig) -> Result<Embedder, ModelError> {
        let exec = model.exec.clone();
        let max_seq = model.max_context();
        let chunk = model.opts.prefill_chunk.min(max_seq).max(1);
        let io = model.arch.new_io(exec.gpu(), chunk, max_seq, model.opts.kv_dtype)?;
        let built = model.arch.build_graph(&io, Mode::Embed);
        let plan = exec.plan(built.graph, PlanOptions { max_rows: chunk, ..Default::default() })?;
        Ok(Embedder { exec, plan, io, hidden: built.logits, width: model.arch.config().hidden, chunk, config })
    }

    /// The full vector's width.
    pub fn dims(&self) -> usize {
        self.width
    }

    /// Most tokens one input may have.
    pub fn max_tokens(&self) -> usize {
        self.io.max_seq
    }

    /// The pooled (and, where the model says so, normalised) vector of `tokens`. Blocks on readbacks.
    pub fn embed(&mut self, tokens: &[u32]) -> Result<Vec<f32>, ModelError> {
        if tokens.is_empty() {
            return Err(ModelError::Unsupported("an input of no tokens has no embedding".into()));
        }
        if tokens.len() > self.io.max_seq {
            return Err(ModelError::ContextFull { need: tokens.len(), max: self.io.max_seq });
        }
        self.clear_recurrent();
        let gpu = self.exec.gpu().clone();
        let w = self.width;
        let mut sum = vec![0f64; w];
        let mut pooled = None;
        for (i, chunk) in tokens.chunks(self.chunk).enumerate() {
            gpu.queue.write_buffer(self.io.tokens_in.buffer(), 0, bytemuck::cast_slice(chunk));
            self.plan.run(chunk.len(), i * self.chunk);
            let buf = self.plan.buffer(self.hidden);
            let last = i * self.chunk + chunk.len() == tokens.len();
            match self.config.pooling {
                Pooling::Mean => {
                    let rows = read_rows(&gpu, buf, 0, chunk.len() * w)?;
                    for row in rows.chunks_exact(w) {
                        sum.iter_mut().zip(row).for_each(|(s, v)| *s += *v as f64);
                    }
                }
                Pooling::Cls if i == 0 => pooled = Some(read_rows(&gpu, buf, 0, w)?),
                Pooling::LastToken if last => pooled = Some(read_rows(&gpu, buf, (chunk.len() - 1) * w, w)?),
                _ => {}
            }
        }
        let mut v = match pooled {
            Some(v) => v,
            None => sum.iter().map(|s| (*s / tokens.len() as f64) as f32).collect(),
        };
        if self.config.normalize {
            normalize(&mut v);
        }
        Ok(v)
    }

    /// Hybrid families carry conv and delta-rule state along the sequence: a new input starts from zero.
    fn clear_recurrent(&self) {
        let mut recurrent = self.io.recurrent_buffers().peekable();
        if recurrent.peek().is_none() {
            return;
        }
        let gpu = self.exec.gpu();
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        for t in recurrent {
            enc.clear_buffer(t.buffer(), 0, None);
        }
        gpu.queue.submit([enc.finish()]);
    }
}

/// `len` f32 values from element `first` of `buf`.
fn read_rows(gpu: &crate::gpu::Gpu, buf: &wgpu::Buffer, first: usize, len: usize) -> Result<Vec<f32>, ModelError> {
    let bytes = gpu.read_bytes_at(buf, first as u64 * 4, len as u64 * 4)?;
    Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect())
}

/// Scales `v` to unit length (sentence-transformers' Normalize: divides by max(|v|, 1e-12)).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| (*x as f64) * (*x as f64)).sum::<f64>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x = (*x as f64 / n) as f32);
}

#[cfg(test)]
mod tests {
    use super::*;

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
