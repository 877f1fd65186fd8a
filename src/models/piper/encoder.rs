//! VITS text encoder: embedding * sqrt(hidden), `n_layers` of (relative-position windowed
//! multi-head attention, LayerNorm, conv FFN, LayerNorm), then a 1x1 projection to the
//! prior's mean and log-std. Batch 1 without padding, so every mask is all ones.

use super::cpu_ops::rel_attention;
use super::layers::{add_in_place, bad, count, Conv, LayerNorm};
use crate::models::ModelError;
use crate::weights::safetensors::Checkpoint;

pub(super) struct Attention {
    pub(super) q: Conv,
    pub(super) k: Conv,
    pub(super) v: Conv,
    pub(super) o: Conv,
    /// `[2 * window + 1, head_dim]`, shared by the heads.
    pub(super) rel_k: Vec<f32>,
    pub(super) rel_v: Vec<f32>,
    pub(super) window: usize,
    pub(super) head_dim: usize,
}

pub(super) struct Layer {
    pub(super) attn: Attention,
    pub(super) norm1: LayerNorm,
    pub(super) ffn1: Conv,
    pub(super) ffn2: Conv,
    pub(super) norm2: LayerNorm,
}

pub struct TextEncoder {
    pub hidden: usize,
    pub n_symbols: usize,
    pub(super) emb: Vec<f32>,
    pub(super) layers: Vec<Layer>,
    pub(super) proj: Conv,
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

    /// The embedded ids times sqrt(hidden), channel-major `[hidden, t]` (a table lookup;
    /// ids out of range are clamped to the table rather than rejected).
    pub fn embed(&self, ids: &[i64]) -> Vec<f32> {
        let (h, t) = (self.hidden, ids.len());
        let scale = (h as f32).sqrt();
        let mut x = vec![0f32; h * t];
        for (j, &id) in ids.iter().enumerate() {
            let id = (id.max(0) as usize).min(self.n_symbols - 1);
            for c in 0..h {
                x[c * t + j] = self.emb[id * h + c] * scale;
            }
        }
        x
    }

    pub fn forward(&self, ids: &[i64]) -> Encoded {
        let t = ids.len();
        let mut x = self.embed(ids);
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
        let (q, k, v) = (self.q.forward(x, t), self.k.forward(x, t), self.v.forward(x, t));
        let out = rel_attention(&q, &k, &v, t, self.head_dim, self.window, &self.rel_k, &self.rel_v);
        self.o.forward(&out, t)
    }
}
