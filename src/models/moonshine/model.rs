//! Moonshine's encoder (conv stem on raw 16 kHz samples, rotary
//! self-attention) and KV-cached decoder (rotary self-attention, cross-attention
//! over K/V computed once per clip, SwiGLU MLP) on the GPU in f32, driven
//! through `nn::Recorder`: one submission per clip and per decoder step.

use std::path::Path;

use super::config::MoonshineConfig;
use super::weights::{Linear, MoonshineWeights};
use crate::executor::Executor;
pub use crate::models::speech_runner::Encoded;
use crate::models::speech_runner::{check_room, embed_tokens, record_logits};
use crate::models::ModelError;
use crate::nn::{AttnArgs, Conv1d, Mat, Recorder, RopeArgs};
use crate::weights::{Checkpoint, TensorSource};

const LN_EPS: f32 = 1e-5;
const GN_EPS: f32 = 1e-5;
/// Shortest clip the conv stem turns into one encoder frame (127 + 12 * 64 samples).
pub const MIN_SAMPLES: usize = 895;

pub struct Moonshine {
    pub exec: Executor,
    pub cfg: MoonshineConfig,
    pub w: MoonshineWeights,
    enc_freq: Vec<f32>,
    dec_freq: Vec<f32>,
}

fn linear(rec: &mut Recorder, x: &Mat, l: &Linear, out: &Mat) {
    rec.linear_w(x, &l.w, l.b.as_ref(), out);
}

/// (cos, sin) of positions pos0..pos0 + n, [n, 2 * freqs] row-major.
fn cos_sin(freq: &[f32], pos0: usize, n: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(n * freq.len() * 2);
    for p in pos0..pos0 + n {
        for f in freq {
            // f32 product as torch computes `position_ids.float() * inv_freq`.
            let a = p as f32 * f;
            out.push(a.cos());
            out.push(a.sin());
        }
    }
    out
}

impl Moonshine {
    /// Loads with f32 weights everywhere (the transformers-parity path).
    pub fn load(exec: &Executor, dir: &Path) -> Result<Moonshine, ModelError> {
        Self::load_with(exec, dir, false)
    }

    /// Loads with the decoder projections in INT4 when `int4` (see `weights.rs`).
    pub fn load_with(exec: &Executor, dir: &Path, int4: bool) -> Result<Moonshine, ModelError> {
        let cfg = MoonshineConfig::load(dir)?;
        let ckpt = Checkpoint::open(dir)?;
        let model = Self::from_source(exec, cfg, &ckpt, int4)?;
        ckpt.check_all_layers_read()?;
        Ok(model)
    }

    pub fn from_source(
        exec: &Executor,
        cfg: MoonshineConfig,
        src: &dyn TensorSource,
        int4: bool,
    ) -> Result<Moonshine, ModelError> {
        let w = MoonshineWeights::load(exec.gpu(), src, &cfg, int4)?;
        let enc_freq = cfg.inv_freq(cfg.encoder_num_attention_heads);
        let dec_freq = cfg.inv_freq(cfg.decoder_num_attention_heads);
        Ok(Moonshine { exec: exec.clone(), cfg, w, enc_freq, dec_freq })
    }

    /// Runs the encoder on raw 16 kHz samples (at least `MIN_SAMPLES`).
    pub fn encode(&self, audio: &[f32]) -> Result<Encoded, ModelError> {
        let c = &self.cfg;
        let d = c.hidden_size;
        let t = MoonshineConfig::encoder_frames(audio.len());
        if t == 0 {
            return Err(ModelError::Config {
                path: "audio".into(),
                msg: format!("{} samples are fewer than the {MIN_SAMPLES} the encoder needs", audio.len()),
            });
        }
        let g = self.exec.gpu();
        let conv1 = Conv1d { c_in: 1, kernel: 127, stride: 64, pad: 0 };
        let conv2 = Conv1d { c_in: d, kernel: 7, stride: 3, pad: 0 };
        let conv3 = Conv1d { c_in: 2 * d, kernel: 3, stride: 2, pad: 0 };
        let (t1, t2) = (conv1.out_len(audio.len()), conv2.out_len(conv1.out_len(audio.len())));
        let x0 = Mat::from_data(g, "audio", audio, 1);
        let scratch = Mat::new(g, "im2col", 1, (t1 * 127).max(t2 * 7 * d).max(t * 6 * d));
        let h1 = Mat::new(g, "conv1", t1, d);
        let h1n = Mat::new(g, "groupnorm", t1, d);
        let stats = Mat::new(g, "gn stats", 1, 4);
        let h2 = Mat::new(g, "conv2", t2, 2 * d);
        let h2g = Mat::new(g, "conv2 gelu", t2, 2 * d);
        let h3 = Mat::new(g, "conv3", t, d);
        let mut rec = self.exec.recorder();
        rec.conv1d(&x0, conv1, &self.w.conv1.w, None, &scratch, &h1);
        rec.group_norm(&h1, &self.w.gn_w, &self.w.gn_b, GN_EPS, true, &stats, &h1n);
        rec.conv1d(&h1n, conv2, &self.w.conv2.w, self.w.conv2.b.as_ref(), &scratch, &h2);
        rec.gelu(&h2, &h2g);
        rec.conv1d(&h2g, conv3, &self.w.conv3.w, self.w.conv3.b.as_ref(), &scratch, &h3);
        let xa = Mat::new(g, "enc x", t, d);
        rec.gelu(&h3, &xa);
        let xb = Mat::new(g, "enc x2", t, d);
        let xn = Mat::new(g, "enc ln", t, d);
        let (q, k, v) = (Mat::new(g, "enc q", t, d), Mat::new(g, "enc k", t, d), Mat::new(g, "enc v", t, d));
        let (qr, kr) = (Mat::new(g, "enc q rot", t, d), Mat::new(g, "enc k rot", t, d));
        let att = Mat::new(g, "enc att", t, d);
        let tmp = Mat::new(g, "enc tmp", t, d);
        let ff = Mat::new(g, "enc ff", t, c.intermediate_size);
        let ffg = Mat::new(g, "enc ff gelu", t, c.intermediate_size);
        let heads = c.encoder_num_attention_heads;
        let cs = Mat::from_data(g, "enc rope", &cos_sin(&self.enc_freq, 0, t), 2 * self.enc_freq.len());
        let rope =
            RopeArgs { n_heads: heads, head_dim: d / heads, rotary_dim: 2 * self.enc_freq.len(), interleaved: true };
        let args = AttnArgs {
            n_heads: heads,
            head_dim: d / heads,
            kv_len: t,
            q_stride: d,
            kv_stride: d,
            k_off: 0,
            v_off: 0,
            causal_from: None,
            row_off: 0,
        };
        let z = &self.w.zeros;
        let scores = rec.attention_scores(heads, t);
        for l in &self.w.enc_layers {
            rec.layer_norm(&xa, &l.ln1, z, LN_EPS, &xn);
            linear(&mut rec, &xn, &l.q, &q);
            linear(&mut rec, &xn, &l.k, &k);
            linear(&mut rec, &xn, &l.v, &v);
            rec.rope(&q, &k, &cs, rope, &qr, &kr);
            rec.attention_scratch(&qr, &kr, &v, args, &att, &scores);
            linear(&mut rec, &att, &l.o, &tmp);
            rec.add(&xa, &tmp, &xb);
            rec.layer_norm(&xb, &l.ln2, z, LN_EPS, &xn);
            linear(&mut rec, &xn, &l.fc1, &ff);
            rec.gelu(&ff, &ffg);
            linear(&mut rec, &ffg, &l.fc2, &tmp);
            rec.add(&xb, &tmp, &xa);
        }
        let out = Mat::new(g, "enc out", t, d);
        rec.layer_norm(&xa, &self.w.enc_ln, z, LN_EPS, &out);
        let layers = &self.w.dec_layers;
        Ok(Encoded::finish(rec, out, d, layers.len(), |rec, l, out, kv| linear(rec, out, &layers[l].xkv, kv)))
    }

    /// A decoder over one encoded clip with room for `capacity` tokens.
    pub fn decoder<'a>(&'a self, enc: &'a Encoded, capacity: usize) -> Decoder<'a> {
        let (g, c) = (self.exec.gpu(), &self.cfg);
        let (d, n, f) = (c.hidden_size, capacity.max(1), c.intermediate_size);
        let m = |label: &str, cols: usize| Mat::new(g, label, n, cols);
        Decoder {
            m: self,
            enc,
            k_cache: (0..c.decoder_num_hidden_layers).map(|_| m("self k", d)).collect(),
            v_cache: (0..c.decoder_num_hidden_layers).map(|_| m("self v", d)).collect(),
            capacity: n,
            pos: 0,
            xa: m("dec x", d),
            xb: m("dec x2", d),
            xn: m("dec ln", d),
            q: m("dec q", d),
            k: m("dec k", d),
            v: m("dec v", d),
            qr: m("dec q rot", d),
            kr: m("dec k rot", d),
            att: m("dec att", d),
            tmp: m("dec tmp", d),
            up: m("dec up", f),
            gate: m("dec gate", f),
            act: m("dec swiglu", f),
            cs: m("dec rope", 2 * self.dec_freq.len()),
            rows: m("dec rows", d),
            logits: m("logits", c.vocab_size),
        }
    }
}

/// Decoder state for one clip: per-layer self-attention K and V caches
/// ([capacity, D], keys stored rotated) and activation buffers.
pub struct Decoder<'a> {
    m: &'a Moonshine,
    enc: &'a Encoded,
    k_cache: Vec<Mat>,
    v_cache: Vec<Mat>,
    capacity: usize,
    pub pos: usize,
    xa: Mat,
    xb: Mat,
    xn: Mat,
    q: Mat,
    k: Mat,
    v: Mat,
    qr: Mat,
    kr: Mat,
    att: Mat,
    tmp: Mat,
    up: Mat,
    gate: Mat,
    act: Mat,
    cs: Mat,
    rows: Mat,
    logits: Mat,
}

impl Decoder<'_> {
    /// Forgets the cache (a new decode of the same clip).
    pub fn reset(&mut self) {
        self.pos = 0;
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Feeds `tokens` at positions pos..pos + n and returns the logits of the
    /// step-relative rows `want` ([want.len(), vocab], row-major).
    pub fn step(&mut self, tokens: &[u32], want: &[usize]) -> Result<Vec<f32>, ModelError> {
        let (c, w, g) = (&self.m.cfg, &self.m.w, self.m.exec.gpu());
        let (d, n, pos0) = (c.hidden_size, tokens.len(), self.pos);
        check_room(pos0, n, self.capacity)?;
        // Token embeddings on the CPU: a gather of n rows.
        let x = embed_tokens(&w.embed, d, tokens, None);
        g.queue.write_buffer(&self.xa.buf, 0, bytemuck::cast_slice(&x));
        g.queue.write_buffer(&self.cs.buf, 0, bytemuck::cast_slice(&cos_sin(&self.m.dec_freq, pos0, n)));
        let v = |m: &Mat| m.with_rows(n);
        let (xa, xb, xn, q, k, vv, qr, kr, att, tmp) = (
            v(&self.xa),
            v(&self.xb),
            v(&self.xn),
            v(&self.q),
            v(&self.k),
            v(&self.v),
            v(&self.qr),
            v(&self.kr),
            v(&self.att),
            v(&self.tmp),
        );
        let (up, gate, act) = (v(&self.up), v(&self.gate), v(&self.act));
        let heads = c.decoder_num_attention_heads;
        let hd = d / heads;
        let rope = RopeArgs { n_heads: heads, head_dim: hd, rotary_dim: self.cs.cols, interleaved: true };
        let z = &w.zeros;
        let mut rec = self.m.exec.recorder();
        for (l, lw) in w.dec_layers.iter().enumerate() {
            rec.layer_norm(&xa, &lw.ln1, z, LN_EPS, &xn);
            linear(&mut rec, &xn, &lw.q, &q);
            linear(&mut rec, &xn, &lw.k, &k);
            linear(&mut rec, &xn, &lw.v, &vv);
            rec.rope(&q, &k, &self.cs, rope, &qr, &kr);
            rec.copy_rows(&kr, &self.k_cache[l], pos0);
            rec.copy_rows(&vv, &self.v_cache[l], pos0);
            let self_args = AttnArgs {
                n_heads: heads,
                head_dim: hd,
                kv_len: pos0 + n,
                q_stride: d,
                kv_stride: d,
                k_off: 0,
                v_off: 0,
                causal_from: Some(pos0),
                row_off: 0,
            };
            rec.attention(&qr, &self.k_cache[l], &self.v_cache[l], self_args, &att);
            linear(&mut rec, &att, &lw.o, &tmp);
            rec.add(&xa, &tmp, &xb);
            rec.layer_norm(&xb, &lw.ln_x, z, LN_EPS, &xn);
            linear(&mut rec, &xn, &lw.xq, &q);
            let kv = &self.enc.cross_kv[l];
            let cross_args = AttnArgs {
                n_heads: heads,
                head_dim: hd,
                kv_len: self.enc.frames,
                q_stride: d,
                kv_stride: 2 * d,
                k_off: 0,
                v_off: d,
                causal_from: None,
                row_off: 0,
            };
            rec.attention(&q, kv, kv, cross_args, &att);
            linear(&mut rec, &att, &lw.xo, &tmp);
            rec.add(&xb, &tmp, &xa);
            rec.layer_norm(&xa, &lw.ln2, z, LN_EPS, &xn);
            linear(&mut rec, &xn, &lw.up, &up);
            linear(&mut rec, &xn, &lw.gate, &gate);
            rec.swiglu(&gate, &up, &act);
            linear(&mut rec, &act, &lw.fc2, &tmp);
            rec.add(&xa, &tmp, &xb);
            // The layer's output is in xb; the next layer reads xa.
            rec.copy_rows(&xb, &self.xa, 0);
        }
        rec.layer_norm(&xa, &w.dec_ln, z, LN_EPS, &xn);
        // Gather the wanted rows, then one matmul against the (tied) embedding.
        let logits = record_logits(&mut rec, &xn, want, &self.rows, &self.logits, &w.lm_head);
        rec.submit();
        self.pos += n;
        Ok(logits.read(g)?)
    }
}
