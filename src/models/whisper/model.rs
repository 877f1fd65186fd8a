//! Whisper's encoder and KV-cached decoder on the GPU (f32), driven through
//! `nn::Recorder`: one submission per encoder window and per decoder step.

use std::path::Path;

use super::config::WhisperConfig;
use super::weights::{Linear, WhisperWeights};
use crate::audio::mel::transpose;
use crate::executor::Executor;
pub use crate::models::speech_runner::Encoded;
use crate::models::speech_runner::{check_room, embed_tokens, record_logits};
use crate::models::ModelError;
use crate::nn::{AttnArgs, Conv1d, LogitRules, LogitStats, Mat, Recorder, STATS_WORDS};
use crate::weights::{Checkpoint, TensorSource};

const LN_EPS: f32 = 1e-5;

pub struct Whisper {
    pub exec: Executor,
    pub cfg: WhisperConfig,
    pub w: WhisperWeights,
}

fn linear(rec: &mut Recorder, x: &Mat, l: &Linear, out: &Mat) {
    rec.linear(x, &l.w, l.b.as_ref(), out);
}

impl Whisper {
    pub fn load(exec: &Executor, dir: &Path) -> Result<Whisper, ModelError> {
        let cfg = WhisperConfig::load(dir)?;
        let ckpt = Checkpoint::open(dir)?;
        let model = Self::from_source(exec, cfg, &ckpt)?;
        ckpt.check_all_layers_read()?;
        Ok(model)
    }

    pub fn from_source(exec: &Executor, cfg: WhisperConfig, src: &dyn TensorSource) -> Result<Whisper, ModelError> {
        let w = WhisperWeights::load(exec.gpu(), src, &cfg)?;
        Ok(Whisper { exec: exec.clone(), cfg, w })
    }

    /// Runs the encoder on one window of features, [n_mels, input_frames]
    /// row-major as the feature extractor returns them.
    pub fn encode(&self, features: &[f32]) -> Result<Encoded, ModelError> {
        let c = &self.cfg;
        let (d, mels, frames) = (c.d_model, c.num_mel_bins, c.input_frames());
        if features.len() != mels * frames {
            return Err(ModelError::Config {
                path: "features".into(),
                msg: format!("expected {mels} x {frames} mel features, got {} values", features.len()),
            });
        }
        let g = self.exec.gpu();
        let t = c.max_source_positions;
        let x0 = Mat::from_data(g, "mel", &transpose(features, mels, frames), mels);
        let conv1 = Conv1d { c_in: mels, kernel: 3, stride: 1, pad: 1 };
        let conv2 = Conv1d { c_in: d, kernel: 3, stride: 2, pad: 1 };
        let scratch = Mat::new(g, "im2col", frames, 3 * mels.max(d));
        let h1 = Mat::new(g, "conv1", frames, d);
        let h1g = Mat::new(g, "conv1 gelu", frames, d);
        let h2 = Mat::new(g, "conv2", t, d);
        let mut rec = self.exec.recorder();
        rec.conv1d(&x0, conv1, &self.w.conv1.w, self.w.conv1.b.as_ref(), &scratch, &h1);
        rec.gelu(&h1, &h1g);
        rec.conv1d(&h1g, conv2, &self.w.conv2.w, self.w.conv2.b.as_ref(), &scratch, &h2);
        let h2g = Mat::new(g, "conv2 gelu", t, d);
        rec.gelu(&h2, &h2g);
        let xa = Mat::new(g, "enc x", t, d);
        let xb = Mat::new(g, "enc x2", t, d);
        rec.add(&h2g, &self.w.enc_pos, &xa);
        let xn = Mat::new(g, "enc ln", t, d);
        let qkv = Mat::new(g, "enc qkv", t, 3 * d);
        let att = Mat::new(g, "enc att", t, d);
        let tmp = Mat::new(g, "enc tmp", t, d);
        let ff = Mat::new(g, "enc ff", t, c.encoder_ffn_dim);
        let ffg = Mat::new(g, "enc ff gelu", t, c.encoder_ffn_dim);
        let hd = d / c.encoder_attention_heads;
        let scores = rec.attention_scores(c.encoder_attention_heads, t);
        for l in &self.w.enc_layers {
            rec.layer_norm(&xa, &l.ln1.w, &l.ln1.b, LN_EPS, &xn);
            linear(&mut rec, &xn, &l.qkv, &qkv);
            let a = AttnArgs {
                n_heads: c.encoder_attention_heads,
                head_dim: hd,
                kv_len: t,
                q_stride: 3 * d,
                kv_stride: 3 * d,
                k_off: d,
                v_off: 2 * d,
                causal_from: None,
                row_off: 0,
            };
            rec.attention_scratch(&qkv, &qkv, &qkv, a, &att, &scores);
            linear(&mut rec, &att, &l.o, &tmp);
            rec.add(&xa, &tmp, &xb);
            rec.layer_norm(&xb, &l.ln2.w, &l.ln2.b, LN_EPS, &xn);
            linear(&mut rec, &xn, &l.fc1, &ff);
            rec.gelu(&ff, &ffg);
            linear(&mut rec, &ffg, &l.fc2, &tmp);
            rec.add(&xb, &tmp, &xa);
        }
        let out = Mat::new(g, "enc out", t, d);
        rec.layer_norm(&xa, &self.w.enc_ln.w, &self.w.enc_ln.b, LN_EPS, &out);
        let layers = &self.w.dec_layers;
        Ok(Encoded::finish(rec, out, d, layers.len(), |rec, l, out, kv| linear(rec, out, &layers[l].xkv, kv)))
    }

    /// A decoder over one encoded window, with an empty KV cache.
    pub fn decoder<'a>(&'a self, enc: &'a Encoded) -> Decoder<'a> {
        let (g, c) = (self.exec.gpu(), &self.cfg);
        let (d, n) = (c.d_model, c.max_target_positions);
        Decoder {
            m: self,
            enc,
            cache: (0..c.decoder_layers).map(|_| Mat::new(g, "self kv", n, 3 * d)).collect(),
            pos: 0,
            xa: Mat::new(g, "dec x", n, d),
            xb: Mat::new(g, "dec x2", n, d),
            xn: Mat::new(g, "dec ln", n, d),
            qkv: Mat::new(g, "dec qkv", n, 3 * d),
            q: Mat::new(g, "dec q", n, d),
            att: Mat::new(g, "dec att", n, d),
            tmp: Mat::new(g, "dec tmp", n, d),
            ff: Mat::new(g, "dec ff", n, c.decoder_ffn_dim),
            ffg: Mat::new(g, "dec ff gelu", n, c.decoder_ffn_dim),
            rows: Mat::new(g, "dec rows", n, d),
            logits: Mat::new(g, "logits", n, c.vocab_size),
            stats: g.storage("logit stats", (2 * STATS_WORDS * 4) as u64),
        }
    }
}

/// Decoder state for one window: the self-attention KV cache ([max_target, 3D]
/// per layer: whole fused q|k|v rows are cached so a step's rows are one copy)
/// and activation buffers sized for the longest sequence.
pub struct Decoder<'a> {
    m: &'a Whisper,
    enc: &'a Encoded,
    cache: Vec<Mat>,
    pub pos: usize,
    xa: Mat,
    xb: Mat,
    xn: Mat,
    qkv: Mat,
    q: Mat,
    att: Mat,
    tmp: Mat,
    ff: Mat,
    ffg: Mat,
    rows: Mat,
    logits: Mat,
    stats: wgpu::Buffer,
}

impl Decoder<'_> {
    /// Forgets the cache (a new decode of the same window).
    pub fn reset(&mut self) {
        self.pos = 0;
    }

    pub fn capacity(&self) -> usize {
        self.m.cfg.max_target_positions
    }

    /// Feeds `tokens` at positions pos..pos + n and returns the logits of the
    /// step-relative rows `want` ([want.len(), vocab], row-major).
    pub fn step(&mut self, tokens: &[u32], want: &[usize]) -> Result<Vec<f32>, ModelError> {
        let mut rec = self.m.exec.recorder();
        let logits = self.record(&mut rec, tokens, want)?;
        rec.submit();
        Ok(logits.read(self.m.exec.gpu())?)
    }

    /// Feeds `tokens` like [`Decoder::step`], but reads back only the
    /// selection statistics of each wanted row under its rules
    /// (`masks`: the always- and begin-masks, `mask_words` each): 64 bytes a
    /// row instead of the vocabulary.
    pub fn step_select(
        &mut self,
        tokens: &[u32],
        want: &[(usize, LogitRules)],
        masks: &wgpu::Buffer,
        mask_words: usize,
    ) -> Result<Vec<LogitStats>, ModelError> {
        let g = self.m.exec.gpu().clone();
        let rows: Vec<usize> = want.iter().map(|w| w.0).collect();
        let bytes = (want.len() * STATS_WORDS * 4) as u64;
        if self.stats.size() < bytes {
            self.stats = g.storage("logit stats", bytes);
        }
        let mut rec = self.m.exec.recorder();
        let logits = self.record(&mut rec, tokens, &rows)?;
        for (i, (_, rules)) in want.iter().enumerate() {
            rec.logit_stats(&logits, i, masks, mask_words, rules, &self.stats, i);
        }
        rec.submit();
        let words = g.read_u32(&self.stats, want.len() * STATS_WORDS)?;
        Ok(words.chunks_exact(STATS_WORDS).map(LogitStats::from_words).collect())
    }

    /// A teacher-forced pass over `tokens` from position 0 (the cache is
    /// overwritten) that returns, per layer of `layers`, the cross-attention
    /// queries ([tokens.len(), d_model], before the 1/sqrt(head_dim) scale):
    /// with [`Decoder::cross_keys`] the attention word timestamps align on.
    pub fn cross_queries(&mut self, tokens: &[u32], layers: &[usize]) -> Result<Vec<Vec<f32>>, ModelError> {
        let (g, d, n) = (self.m.exec.gpu().clone(), self.m.cfg.d_model, tokens.len());
        let out = Mat::new(&g, "cross queries", (layers.len() * n).max(1), d);
        self.reset();
        let mut rec = self.m.exec.recorder();
        self.record_with(&mut rec, tokens, &[n - 1], Some((layers, &out)))?;
        rec.submit();
        let all = out.read(&g)?;
        Ok(all.chunks(n * d).take(layers.len()).map(<[f32]>::to_vec).collect())
    }

    /// Layer `l`'s cross-attention keys over the encoded window ([frames, d_model]).
    pub fn cross_keys(&self, l: usize) -> Result<Vec<f32>, ModelError> {
        let kv = self.enc.cross_kv[l].read(self.m.exec.gpu())?;
        let d = self.m.cfg.d_model;
        Ok(kv.chunks(2 * d).flat_map(|row| row[..d].iter().copied()).collect())
    }

    /// Records one decoder step into `rec`; returns the logits matrix of the wanted rows.
    fn record(&mut self, rec: &mut Recorder, tokens: &[u32], want: &[usize]) -> Result<Mat, ModelError> {
        self.record_with(rec, tokens, want, None)
    }

    /// [`Decoder::record`], also copying the cross-attention queries of the
    /// layers in `capture.0` into `capture.1` (n rows per listed layer).
    fn record_with(
        &mut self,
        rec: &mut Recorder,
        tokens: &[u32],
        want: &[usize],
        capture: Option<(&[usize], &Mat)>,
    ) -> Result<Mat, ModelError> {
        let (c, w, g) = (&self.m.cfg, &self.m.w, self.m.exec.gpu());
        let (d, n, pos0) = (c.d_model, tokens.len(), self.pos);
        check_room(pos0, n, c.max_target_positions)?;
        // Token + position embeddings on the CPU: a gather of n rows.
        let x = embed_tokens(&w.embed, d, tokens, Some(&w.dec_pos[pos0 * d..(pos0 + n) * d]));
        g.queue.write_buffer(&self.xa.buf, 0, bytemuck::cast_slice(&x));
        let v = |m: &Mat| m.with_rows(n);
        let (xa, xb, xn, qkv, q, att, tmp, ff, ffg) = (
            v(&self.xa),
            v(&self.xb),
            v(&self.xn),
            v(&self.qkv),
            v(&self.q),
            v(&self.att),
            v(&self.tmp),
            v(&self.ff),
            v(&self.ffg),
        );
        let hd = d / c.decoder_attention_heads;
        let t_enc = c.max_source_positions;
        for (l, (lw, cache)) in w.dec_layers.iter().zip(&self.cache).enumerate() {
            rec.layer_norm(&xa, &lw.ln1.w, &lw.ln1.b, LN_EPS, &xn);
            linear(rec, &xn, &lw.qkv, &qkv);
            rec.copy_rows(&qkv, cache, pos0);
            let self_args = AttnArgs {
                n_heads: c.decoder_attention_heads,
                head_dim: hd,
                kv_len: pos0 + n,
                q_stride: 3 * d,
                kv_stride: 3 * d,
                k_off: d,
                v_off: 2 * d,
                causal_from: Some(pos0),
                row_off: 0,
            };
            rec.attention(&qkv, cache, cache, self_args, &att);
            linear(rec, &att, &lw.o, &tmp);
            rec.add(&xa, &tmp, &xb);
            rec.layer_norm(&xb, &lw.ln_x.w, &lw.ln_x.b, LN_EPS, &xn);
            linear(rec, &xn, &lw.xq, &q);
            if let Some((layers, out)) = capture {
                if let Some(i) = layers.iter().position(|&x| x == l) {
                    rec.copy_rows(&q, out, i * n);
                }
            }
            let kv = &self.enc.cross_kv[l];
            let cross_args = AttnArgs {
                n_heads: c.decoder_attention_heads,
                head_dim: hd,
                kv_len: t_enc,
                q_stride: d,
                kv_stride: 2 * d,
                k_off: 0,
                v_off: d,
                causal_from: None,
                row_off: 0,
            };
            rec.attention(&q, kv, kv, cross_args, &att);
            linear(rec, &att, &lw.xo, &tmp);
            rec.add(&xb, &tmp, &xa);
            rec.layer_norm(&xa, &lw.ln2.w, &lw.ln2.b, LN_EPS, &xn);
            linear(rec, &xn, &lw.fc1, &ff);
            rec.gelu(&ff, &ffg);
            linear(rec, &ffg, &lw.fc2, &tmp);
            rec.add(&xa, &tmp, &xb);
            // The layer's output is in xb; the next layer reads xa.
            rec.copy_rows(&xb, &self.xa, 0);
        }
        rec.layer_norm(&xa, &w.dec_ln.w, &w.dec_ln.b, LN_EPS, &xn);
        // Gather the wanted rows, then one matmul against the (tied) embedding.
        let logits = record_logits(rec, &xn, want, &self.rows, &self.logits, &w.lm_head);
        self.pos += n;
        Ok(logits)
    }
}
