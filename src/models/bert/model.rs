//! The BERT encoder on the GPU through `nn::Recorder` (f32): one submission per input, its rows read
//! back and pooled as the checkpoint's sentence-transformers files say.

use std::path::Path;

use super::config::BertConfig;
use crate::executor::Executor;
use crate::models::embedding::{normalize, pool_rows, EmbedConfig, EmbeddingModel};
use crate::models::ModelError;
use crate::nn::{AttnArgs, Mat, Recorder};
use crate::weights::{Checkpoint, TensorSource};

struct Ln {
    w: Mat,
    b: Mat,
}

struct Linear {
    w: Mat,
    b: Mat,
}

struct Layer {
    /// q, k, v fused row-wise: [3 d, d].
    qkv: Linear,
    o: Linear,
    ln_attn: Ln,
    up: Linear,
    down: Linear,
    ln_out: Ln,
}

/// Rows of inputs one submission takes together (at least one whole input): every weight is read
/// once for all of them.
const BATCH_ROWS: usize = 1024;

/// Activations for up to `max(max_tokens, BATCH_ROWS)` rows, viewed at each batch's length.
struct Scratch {
    x: Mat,
    xb: Mat,
    qkv: Mat,
    att: Mat,
    tmp: Mat,
    ff: Mat,
    ffg: Mat,
    scores: Mat,
}

pub struct BertEmbedder {
    exec: Executor,
    cfg: BertConfig,
    /// Word, position and token-type-0 embeddings on the CPU: an input's rows are summed here and
    /// uploaded (one table lookup per token, no kernel).
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    ln_embed: Ln,
    layers: Vec<Layer>,
    scratch: Scratch,
    max_tokens: usize,
    config: EmbedConfig,
}

/// Loads the BERT checkpoint in `dir` (tensors as `BertModel` names them, or under `bert.`) with
/// inputs of at most `max_context` tokens (and the model's positions).
pub fn load(exec: &Executor, dir: &Path, config: EmbedConfig, max_context: usize) -> Result<BertEmbedder, ModelError> {
    let cfg = BertConfig::load(dir)?;
    let ck = Checkpoint::open(dir)?;
    BertEmbedder::from_source(exec, cfg, &ck, config, max_context)
}

struct Loader<'a> {
    exec: &'a Executor,
    src: &'a dyn TensorSource,
    prefix: &'static str,
}

impl Loader<'_> {
    fn vec(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
        Ok(self.src.f32(&format!("{}{name}", self.prefix), shape)?)
    }
    fn mat(&self, name: &str, shape: &[usize]) -> Result<Mat, ModelError> {
        Ok(Mat::from_data(self.exec.gpu(), name, &self.vec(name, shape)?, *shape.last().unwrap_or(&1)))
    }
    fn ln(&self, p: &str, d: usize) -> Result<Ln, ModelError> {
        Ok(Ln { w: self.mat(&format!("{p}.weight"), &[d])?, b: self.mat(&format!("{p}.bias"), &[d])? })
    }
    fn linear(&self, p: &str, n: usize, k: usize) -> Result<Linear, ModelError> {
        Ok(Linear { w: self.mat(&format!("{p}.weight"), &[n, k])?, b: self.mat(&format!("{p}.bias"), &[n])? })
    }
    /// `names` under `p` (each [d, d] with a bias) fused row-wise.
    fn fused(&self, p: &str, names: &[&str], d: usize) -> Result<Linear, ModelError> {
        let (mut w, mut b) = (Vec::new(), Vec::new());
        for n in names {
            w.extend(self.vec(&format!("{p}.{n}.weight"), &[d, d])?);
            b.extend(self.vec(&format!("{p}.{n}.bias"), &[d])?);
        }
        let g = self.exec.gpu();
        Ok(Linear { w: Mat::from_data(g, p, &w, d), b: Mat::from_data(g, p, &b, names.len() * d) })
    }
}

impl BertEmbedder {
    pub fn from_source(
        exec: &Executor,
        cfg: BertConfig,
        src: &dyn TensorSource,
        config: EmbedConfig,
        max_context: usize,
    ) -> Result<BertEmbedder, ModelError> {
        // BertModel saves `embeddings.*`; BertForMaskedLM and friends nest it under `bert.`.
        let prefix = if src.contains("bert.embeddings.word_embeddings.weight") { "bert." } else { "" };
        let l = Loader { exec, src, prefix };
        let (d, ff) = (cfg.hidden_size, cfg.intermediate_size);
        let layers = (0..cfg.num_hidden_layers)
            .map(|i| {
                let p = format!("encoder.layer.{i}");
                Ok(Layer {
                    qkv: l.fused(&format!("{p}.attention.self"), &["query", "key", "value"], d)?,
                    o: l.linear(&format!("{p}.attention.output.dense"), d, d)?,
                    ln_attn: l.ln(&format!("{p}.attention.output.LayerNorm"), d)?,
                    up: l.linear(&format!("{p}.intermediate.dense"), ff, d)?,
                    down: l.linear(&format!("{p}.output.dense"), d, ff)?,
                    ln_out: l.ln(&format!("{p}.output.LayerNorm"), d)?,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        let word = l.vec("embeddings.word_embeddings.weight", &[cfg.vocab_size, d])?;
        let position = l.vec("embeddings.position_embeddings.weight", &[cfg.max_position_embeddings, d])?;
        let types = l.vec("embeddings.token_type_embeddings.weight", &[cfg.type_vocab_size, d])?;
        let ln_embed = l.ln("embeddings.LayerNorm", d)?;
        let max_tokens = cfg.max_position_embeddings.min(max_context).max(1);
        let rows = max_tokens.max(BATCH_ROWS);
        let g = exec.gpu();
        let rec = exec.recorder();
        let scratch = Scratch {
            x: Mat::new(g, "bert x", rows, d),
            xb: Mat::new(g, "bert x2", rows, d),
            qkv: Mat::new(g, "bert qkv", rows, 3 * d),
            att: Mat::new(g, "bert att", rows, d),
            tmp: Mat::new(g, "bert tmp", rows, d),
            ff: Mat::new(g, "bert ff", rows, ff),
            ffg: Mat::new(g, "bert ff gelu", rows, ff),
            scores: rec.attention_scores(cfg.num_attention_heads, max_tokens),
        };
        Ok(BertEmbedder {
            exec: exec.clone(),
            word,
            position,
            token_type: types[..d].to_vec(),
            ln_embed,
            layers,
            scratch,
            max_tokens,
            config,
            cfg,
        })
    }

    /// The input's embedding rows (word + position + token type 0), [n, d].
    fn embed_rows(&self, tokens: &[u32]) -> Result<Vec<f32>, ModelError> {
        let d = self.cfg.hidden_size;
        let mut x = Vec::with_capacity(tokens.len() * d);
        for (pos, &t) in tokens.iter().enumerate() {
            let t = t as usize;
            if t >= self.cfg.vocab_size {
                return Err(ModelError::Unsupported(format!("token {t} (the vocabulary has {})", self.cfg.vocab_size)));
            }
            let (w, p) = (&self.word[t * d..(t + 1) * d], &self.position[pos * d..(pos + 1) * d]);
            x.extend(w.iter().zip(p).zip(&self.token_type).map(|((a, b), c)| a + b + c));
        }
        Ok(x)
    }

    /// The last layer's rows of every input, packed one after another ([sum of lengths, d]): the
    /// projections and the MLP run over all rows at once, attention per input over its own rows.
    fn hidden_batch(&self, inputs: &[&[u32]]) -> Result<Vec<f32>, ModelError> {
        let (d, c) = (self.cfg.hidden_size, &self.cfg);
        let n: usize = inputs.iter().map(|t| t.len()).sum();
        let mut rows = Vec::with_capacity(n * d);
        for t in inputs {
            rows.extend(self.embed_rows(t)?);
        }
        let g = self.exec.gpu();
        g.queue.write_buffer(&self.scratch.xb.buf, 0, bytemuck::cast_slice(&rows));
        let s = &self.scratch;
        let (x, xb, qkv, att, tmp) =
            (s.x.with_rows(n), s.xb.with_rows(n), s.qkv.with_rows(n), s.att.with_rows(n), s.tmp.with_rows(n));
        let (ff, ffg) = (s.ff.with_rows(n), s.ffg.with_rows(n));
        let eps = c.layer_norm_eps;
        let mut rec: Recorder = self.exec.recorder();
        rec.layer_norm(&xb, &self.ln_embed.w, &self.ln_embed.b, eps, &x);
        for l in &self.layers {
            // Post-norm: x = LN(x + attention(x)); x = LN(x + mlp(x)).
            rec.linear(&x, &l.qkv.w, Some(&l.qkv.b), &qkv);
            let mut r0 = 0;
            for t in inputs {
                let a = AttnArgs {
                    n_heads: c.num_attention_heads,
                    head_dim: c.head_dim(),
                    kv_len: t.len(),
                    q_stride: 3 * d,
                    kv_stride: 3 * d,
                    k_off: r0 * 3 * d + d,
                    v_off: r0 * 3 * d + 2 * d,
                    causal_from: None,
                    row_off: r0,
                };
                rec.attention_scratch(&s.qkv.with_rows(t.len()), &qkv, &qkv, a, &s.att.with_rows(t.len()), &s.scores);
                r0 += t.len();
            }
            rec.linear(&att, &l.o.w, Some(&l.o.b), &tmp);
            rec.add(&x, &tmp, &xb);
            rec.layer_norm(&xb, &l.ln_attn.w, &l.ln_attn.b, eps, &x);
            rec.linear(&x, &l.up.w, Some(&l.up.b), &ff);
            rec.gelu(&ff, &ffg);
            rec.linear(&ffg, &l.down.w, Some(&l.down.b), &tmp);
            rec.add(&x, &tmp, &xb);
            rec.layer_norm(&xb, &l.ln_out.w, &l.ln_out.b, eps, &x);
        }
        rec.submit();
        Ok(x.read(g)?)
    }

    fn check_input(&self, tokens: &[u32]) -> Result<(), ModelError> {
        if tokens.is_empty() {
            return Err(ModelError::Unsupported("an input of no tokens has no embedding".into()));
        }
        if tokens.len() > self.max_tokens {
            return Err(ModelError::ContextFull { need: tokens.len(), max: self.max_tokens });
        }
        Ok(())
    }
}

impl EmbeddingModel for BertEmbedder {
    fn embed(&mut self, tokens: &[u32]) -> Result<Vec<f32>, ModelError> {
        Ok(self.embed_batch(&[tokens])?.remove(0))
    }

    /// Consecutive inputs packed into submissions of at most `BATCH_ROWS` rows (an input longer than
    /// that alone).
    fn embed_batch(&mut self, inputs: &[&[u32]]) -> Result<Vec<Vec<f32>>, ModelError> {
        inputs.iter().try_for_each(|t| self.check_input(t))?;
        let (d, pooling) = (self.cfg.hidden_size, self.config.pooling);
        let mut out = Vec::with_capacity(inputs.len());
        let mut i = 0;
        while i < inputs.len() {
            let mut j = i + 1;
            let mut rows = inputs[i].len();
            while j < inputs.len() && rows + inputs[j].len() <= BATCH_ROWS {
                rows += inputs[j].len();
                j += 1;
            }
            let hidden = self.hidden_batch(&inputs[i..j])?;
            let mut r0 = 0;
            for t in &inputs[i..j] {
                let mut v = pool_rows(&hidden[r0 * d..(r0 + t.len()) * d], d, pooling);
                if self.config.normalize {
                    normalize(&mut v);
                }
                out.push(v);
                r0 += t.len();
            }
            i = j;
        }
        Ok(out)
    }

    fn dims(&self) -> usize {
        self.cfg.hidden_size
    }

    fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    fn vocab(&self) -> usize {
        self.cfg.vocab_size
    }

    fn config(&self) -> &EmbedConfig {
        &self.config
    }
}
