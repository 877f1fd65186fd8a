//! VITS text encoder: embedding * sqrt(hidden), `n_layers` of (relative-position windowed
//! multi-head attention, LayerNorm, conv FFN, LayerNorm), then a 1x1 projection to the
//! prior's mean and log-std. Batch 1 without padding, so every mask is all ones.

use super::layers::{add_in_place, bad, count, rows, Conv, LayerNorm};
use crate::models::ModelError;
use crate::reference::conv::conv1d;
use crate::weights::safetensors::Checkpoint;

struct Attention {
    q: Conv,
    k: Conv,
    v: Conv,
    o: Conv,
    /// `[2 * window + 1, head_dim]`, shared by the heads.
    rel_k: Vec<f32>,
    rel_v: Vec<f32>,
    window: usize,
    head_dim: usize,
}

struct Layer {
    attn: Attention,
    norm1: LayerNorm,
    ffn1: Conv,
    ffn2: Conv,
    norm2: LayerNorm,
}

pub struct TextEncoder {
    pub hidden: usize,
    pub n_symbols: usize,
    emb: Vec<f32>,
    layers: Vec<Layer>,
    proj: Conv,
}

/// Encoder output: the hidden states (input of the duration predictor) and the prior.
pub struct Encoded {
    pub t: usize,
    pub x: Vec<f32>,
    pub m: Vec<f32>,
    pub logs: Vec<f32>,
}

impl TextEncoder {
    pub fn load(ck: &Checkpoint) -> Result<Self, ModelError> {
        let es = ck.shape("enc_p.emb.weight")?;
        let (n_symbols, hidden) = (es[0], es[1]);
        let n_layers = count(ck, "enc_p.encoder.attn_layers", "conv_q.weight");
        if n_layers == 0 {
            return Err(bad(ck, "no enc_p.encoder.attn_layers"));
        }
        let mut layers = Vec::new();
        for i in 0..n_layers {
            let p = format!("enc_p.encoder.attn_layers.{i}");
            let rs = ck.shape(&format!("{p}.emb_rel_k"))?;
            let (n_rel, head_dim) = (rs[1], rs[2]);
            if rs[0] != 1 || n_rel % 2 == 0 || hidden % head_dim != 0 {
                return Err(bad(
                    ck,
                    &format!("{p}.emb_rel_k has shape {rs:?} (per-head embeddings are not supported)"),
                ));
            }
            let attn = Attention {
                q: Conv::load(ck, &format!("{p}.conv_q"), 1, 1)?,
                k: Conv::load(ck, &format!("{p}.conv_k"), 1, 1)?,
                v: Conv::load(ck, &format!("{p}.conv_v"), 1, 1)?,
                o: Conv::load(ck, &format!("{p}.conv_o"), 1, 1)?,
                rel_k: ck.f32(&format!("{p}.emb_rel_k"), &rs)?,
                rel_v: ck.f32(&format!("{p}.emb_rel_v"), &rs)?,
                window: (n_rel - 1) / 2,
                head_dim,
            };
            layers.push(Layer {
                attn,
                norm1: LayerNorm::load(ck, &format!("enc_p.encoder.norm_layers_1.{i}"), hidden)?,
                ffn1: Conv::load(ck, &format!("enc_p.encoder.ffn_layers.{i}.conv_1"), 1, 1)?,
                ffn2: Conv::load(ck, &format!("enc_p.encoder.ffn_layers.{i}.conv_2"), 1, 1)?,
                norm2: LayerNorm::load(ck, &format!("enc_p.encoder.norm_layers_2.{i}"), hidden)?,
            });
        }
        Ok(TextEncoder {
            hidden,
            n_symbols,
            emb: ck.f32("enc_p.emb.weight", &es)?,
            layers,
            proj: Conv::load(ck, "enc_p.proj", 1, 1)?,
        })
    }

    pub fn forward(&self, ids: &[i64]) -> Encoded {
        let (h, t) = (self.hidden, ids.len());
        let scale = (h as f32).sqrt();
        let mut x = vec![0f32; h * t];
        for (j, &id) in ids.iter().enumerate() {
            let id = (id.max(0) as usize).min(self.n_symbols - 1);
            for c in 0..h {
                x[c * t + j] = self.emb[id * h + c] * scale;
            }
        }
        for l in &self.layers {
            let y = l.attn.forward(&x, t);
            add_in_place(&mut x, &y);
            l.norm1.apply(&mut x);
            let y = relu(l.ffn1.forward(&x, t));
            let y = l.ffn2.forward(&y, t);
            add_in_place(&mut x, &y);
            l.norm2.apply(&mut x);
        }
        let stats = self.proj.forward(&x, t);
        let half = stats.len() / 2;
        Encoded { t, m: stats[..half].to_vec(), logs: stats[half..].to_vec(), x }
    }
}

fn relu(mut v: Vec<f32>) -> Vec<f32> {
    v.iter_mut().for_each(|a| *a = a.max(0.0));
    v
}

impl Attention {
    fn forward(&self, x: &[f32], t: usize) -> Vec<f32> {
        let q = self.q.forward(x, t);
        let k = self.k.forward(x, t);
        let v = self.v.forward(x, t);
        let d = self.head_dim;
        let heads = q.len() / t / d;
        let w = self.window as isize;
        let scale = 1.0 / (d as f32).sqrt();
        let mut out = vec![0f32; q.len()];
        let mut scores = vec![0f32; t];
        for h in 0..heads {
            let (qh, kh, vh) =
                (rows(&q, t, h * d, (h + 1) * d), rows(&k, t, h * d, (h + 1) * d), rows(&v, t, h * d, (h + 1) * d));
            for i in 0..t {
                // Absolute scores plus the windowed relative-key term, as VITS adds them.
                for (j, s) in scores.iter_mut().enumerate() {
                    let rel = j as isize - i as isize;
                    let mut acc = 0f32;
                    for c in 0..d {
                        acc += qh[c * t + i] * scale * kh[c * t + j];
                    }
                    if rel.abs() <= w {
                        let r = (rel + w) as usize;
                        let mut rk = 0f32;
                        for c in 0..d {
                            rk += qh[c * t + i] * scale * self.rel_k[r * d + c];
                        }
                        acc += rk;
                    }
                    *s = acc;
                }
                let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let mut sum = 0f32;
                for s in scores.iter_mut() {
                    *s = (*s - max).exp();
                    sum += *s;
                }
                for s in scores.iter_mut() {
                    *s /= sum;
                }
                for c in 0..d {
                    let mut acc = 0f32;
                    for (j, p) in scores.iter().enumerate() {
                        acc += p * vh[c * t + j];
                    }
                    let lo = (i as isize - w).max(0) as usize;
                    let hi = ((i as isize + w) as usize).min(t - 1);
                    for (j, p) in scores.iter().enumerate().take(hi + 1).skip(lo) {
                        let r = (j as isize - i as isize + w) as usize;
                        acc += p * self.rel_v[r * d + c];
                    }
                    out[(h * d + c) * t + i] = acc;
                }
            }
        }
        conv1d(&out, t, &self.o.w, self.o.b.as_deref(), self.o.shape, None)
    }
}
