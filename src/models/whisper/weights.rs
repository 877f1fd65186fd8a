//! Whisper weights on the GPU, by transformers tensor name. Self-attention
//! q/k/v are fused into one [3D, D] matrix (k has no bias: a zero is stored),
//! cross-attention k/v into [2D, D]; conv weights [c_out, c_in, k] are used
//! as [c_out, c_in * k] by the im2col matmul.

use super::config::WhisperConfig;
use crate::gpu::Gpu;
use crate::models::ModelError;
use crate::nn::Mat;
use crate::weights::TensorSource;

pub struct Ln {
    pub w: Mat,
    pub b: Mat,
}

pub struct Linear {
    pub w: Mat,
    pub b: Option<Mat>,
}

pub struct EncLayer {
    pub ln1: Ln,
    pub qkv: Linear,
    pub o: Linear,
    pub ln2: Ln,
    pub fc1: Linear,
    pub fc2: Linear,
}

pub struct DecLayer {
    pub ln1: Ln,
    pub qkv: Linear,
    pub o: Linear,
    pub ln_x: Ln,
    pub xq: Linear,
    pub xkv: Linear,
    pub xo: Linear,
    pub ln2: Ln,
    pub fc1: Linear,
    pub fc2: Linear,
}

pub struct WhisperWeights {
    pub conv1: Linear,
    pub conv2: Linear,
    pub enc_pos: Mat,
    pub enc_layers: Vec<EncLayer>,
    pub enc_ln: Ln,
    /// Token embedding [vocab, D] on the CPU (decoder input) and on the GPU (logits, tied).
    pub embed: Vec<f32>,
    pub dec_pos: Vec<f32>,
    pub lm_head: Mat,
    pub dec_layers: Vec<DecLayer>,
    pub dec_ln: Ln,
}

struct Loader<'a> {
    gpu: &'a Gpu,
    src: &'a dyn TensorSource,
}

impl Loader<'_> {
    fn vec(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
        Ok(self.src.f32(name, shape)?)
    }
    fn mat(&self, name: &str, shape: &[usize]) -> Result<Mat, ModelError> {
        let cols = shape[1..].iter().product::<usize>().max(1);
        let cols = if shape.len() == 1 { shape[0] } else { cols };
        Ok(Mat::from_data(self.gpu, name, &self.vec(name, shape)?, cols))
    }
    fn ln(&self, p: &str, d: usize) -> Result<Ln, ModelError> {
        Ok(Ln { w: self.mat(&format!("{p}.weight"), &[d])?, b: self.mat(&format!("{p}.bias"), &[d])? })
    }
    fn linear(&self, p: &str, n: usize, k: usize) -> Result<Linear, ModelError> {
        Ok(Linear { w: self.mat(&format!("{p}.weight"), &[n, k])?, b: Some(self.mat(&format!("{p}.bias"), &[n])?) })
    }
    /// Fuses projections `names` (each [d, d]) row-wise; a missing bias is zero.
    fn fused(&self, p: &str, names: &[&str], d: usize) -> Result<Linear, ModelError> {
        let (mut w, mut b) = (Vec::with_capacity(names.len() * d * d), Vec::with_capacity(names.len() * d));
        for n in names {
            w.extend(self.vec(&format!("{p}.{n}.weight"), &[d, d])?);
            let bias = format!("{p}.{n}.bias");
            if self.src.contains(&bias) {
                b.extend(self.vec(&bias, &[d])?);
            } else {
                b.extend(std::iter::repeat_n(0.0, d));
            }
        }
        Ok(Linear { w: Mat::from_data(self.gpu, p, &w, d), b: Some(Mat::from_data(self.gpu, p, &b, names.len() * d)) })
    }
}

impl WhisperWeights {
    pub fn load(gpu: &Gpu, src: &dyn TensorSource, c: &WhisperConfig) -> Result<WhisperWeights, ModelError> {
        let l = Loader { gpu, src };
        let d = c.d_model;
        let conv = |p: &str, c_in: usize| -> Result<Linear, ModelError> {
            let w = l.vec(&format!("{p}.weight"), &[d, c_in, 3])?;
            Ok(Linear { w: Mat::from_data(gpu, p, &w, c_in * 3), b: Some(l.mat(&format!("{p}.bias"), &[d])?) })
        };
        let e = "model.encoder";
        let enc_layers = (0..c.encoder_layers)
            .map(|i| {
                let p = format!("{e}.layers.{i}");
                Ok(EncLayer {
                    ln1: l.ln(&format!("{p}.self_attn_layer_norm"), d)?,
                    qkv: l.fused(&format!("{p}.self_attn"), &["q_proj", "k_proj", "v_proj"], d)?,
                    o: l.linear(&format!("{p}.self_attn.out_proj"), d, d)?,
                    ln2: l.ln(&format!("{p}.final_layer_norm"), d)?,
                    fc1: l.linear(&format!("{p}.fc1"), c.encoder_ffn_dim, d)?,
                    fc2: l.linear(&format!("{p}.fc2"), d, c.encoder_ffn_dim)?,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        let dd = "model.decoder";
        let dec_layers = (0..c.decoder_layers)
            .map(|i| {
                let p = format!("{dd}.layers.{i}");
                Ok(DecLayer {
                    ln1: l.ln(&format!("{p}.self_attn_layer_norm"), d)?,
                    qkv: l.fused(&format!("{p}.self_attn"), &["q_proj", "k_proj", "v_proj"], d)?,
                    o: l.linear(&format!("{p}.self_attn.out_proj"), d, d)?,
                    ln_x: l.ln(&format!("{p}.encoder_attn_layer_norm"), d)?,
                    xq: l.linear(&format!("{p}.encoder_attn.q_proj"), d, d)?,
                    xkv: l.fused(&format!("{p}.encoder_attn"), &["k_proj", "v_proj"], d)?,
                    xo: l.linear(&format!("{p}.encoder_attn.out_proj"), d, d)?,
                    ln2: l.ln(&format!("{p}.final_layer_norm"), d)?,
                    fc1: l.linear(&format!("{p}.fc1"), c.decoder_ffn_dim, d)?,
                    fc2: l.linear(&format!("{p}.fc2"), d, c.decoder_ffn_dim)?,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        let embed = l.vec(&format!("{dd}.embed_tokens.weight"), &[c.vocab_size, d])?;
        let lm_head = if src.contains("proj_out.weight") {
            l.mat("proj_out.weight", &[c.vocab_size, d])?
        } else {
            Mat::from_data(gpu, "lm_head", &embed, d)
        };
        Ok(WhisperWeights {
            conv1: conv(&format!("{e}.conv1"), c.num_mel_bins)?,
            conv2: conv(&format!("{e}.conv2"), d)?,
            enc_pos: l.mat(&format!("{e}.embed_positions.weight"), &[c.max_source_positions, d])?,
            enc_layers,
            enc_ln: l.ln(&format!("{e}.layer_norm"), d)?,
            dec_pos: l.vec(&format!("{dd}.embed_positions.weight"), &[c.max_target_positions, d])?,
            embed,
            lm_head,
            dec_layers,
            dec_ln: l.ln(&format!("{dd}.layer_norm"), d)?,
        })
    }
}
