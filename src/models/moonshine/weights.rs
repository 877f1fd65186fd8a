//! Moonshine weights on the GPU, by transformers tensor name. With `int4`, the
//! decoder's per-token projections (self- and cross-attention q/o, k/v, MLP
//! up/gate/fc2) are INT4 groups: a decode step reads them once per token, so
//! their bytes are the step's cost. f32 stays where a step is compute-bound or
//! sensitive: the encoder (all frames at once), the cross-attention K/V
//! projection (once per chunk), the conv stem (127 raw-sample taps feeding
//! tanh + GroupNorm), the norms and the tied embedding / logits matrix (argmax
//! margins between close tokens). Norms
//! have no bias (a shared zero vector is bound); the decoder MLP's fc1
//! ([2F, D]: the up half then the gate half, chunk(2) order) is split into
//! two [F, D] matrices for `silu(gate) * up`; cross-attention k/v are fused
//! into one [2D, D] matrix (computed once per clip). Conv weights
//! [c_out, c_in, k] are used as [c_out, c_in * k] by the im2col matmul.

use super::config::MoonshineConfig;
use crate::gpu::Gpu;
use crate::models::ModelError;
use crate::nn::{Mat, Weight};
use crate::weights::TensorSource;

pub struct Linear {
    pub w: Weight,
    pub b: Option<Mat>,
}

/// A conv weight [c_out, c_in * k] for the im2col matmul.
pub struct Conv {
    pub w: Mat,
    pub b: Option<Mat>,
}

pub struct EncLayer {
    pub ln1: Mat,
    pub q: Linear,
    pub k: Linear,
    pub v: Linear,
    pub o: Linear,
    pub ln2: Mat,
    pub fc1: Linear,
    pub fc2: Linear,
}

pub struct DecLayer {
    pub ln1: Mat,
    pub q: Linear,
    pub k: Linear,
    pub v: Linear,
    pub o: Linear,
    pub ln_x: Mat,
    pub xq: Linear,
    pub xkv: Linear,
    pub xo: Linear,
    pub ln2: Mat,
    pub up: Linear,
    pub gate: Linear,
    pub fc2: Linear,
}

pub struct MoonshineWeights {
    pub conv1: Conv,
    pub conv2: Conv,
    pub conv3: Conv,
    pub gn_w: Mat,
    pub gn_b: Mat,
    pub enc_layers: Vec<EncLayer>,
    pub enc_ln: Mat,
    /// Token embedding [vocab, D] on the CPU (decoder input) and on the GPU (logits, tied).
    pub embed: Vec<f32>,
    pub lm_head: Mat,
    pub dec_layers: Vec<DecLayer>,
    pub dec_ln: Mat,
    /// Zeros [max(D, 2D)]: the bias of the bias-free LayerNorms.
    pub zeros: Mat,
}

struct Loader<'a> {
    gpu: &'a Gpu,
    src: &'a dyn TensorSource,
    int4: bool,
}

impl Loader<'_> {
    fn vec(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
        Ok(self.src.f32(name, shape)?)
    }
    fn norm(&self, name: &str, d: usize) -> Result<Mat, ModelError> {
        Ok(Mat::from_data(self.gpu, name, &self.vec(name, &[d])?, d))
    }
    /// An f32 projection (encoder).
    fn linear(&self, p: &str, n: usize, k: usize, bias: bool) -> Result<Linear, ModelError> {
        self.linear_as(p, n, k, bias, false)
    }
    /// A decoder projection: INT4 when the model loads so.
    fn linear_dec(&self, p: &str, n: usize, k: usize, bias: bool) -> Result<Linear, ModelError> {
        self.linear_as(p, n, k, bias, self.int4)
    }
    fn linear_as(&self, p: &str, n: usize, k: usize, bias: bool, int4: bool) -> Result<Linear, ModelError> {
        let w = Weight::new(self.gpu, p, &self.vec(&format!("{p}.weight"), &[n, k])?, n, k, int4);
        let b = if bias { Some(Mat::from_data(self.gpu, p, &self.vec(&format!("{p}.bias"), &[n])?, n)) } else { None };
        Ok(Linear { w, b })
    }
    fn conv(&self, p: &str, c_out: usize, c_in: usize, kernel: usize, bias: bool) -> Result<Conv, ModelError> {
        let w = self.vec(&format!("{p}.weight"), &[c_out, c_in, kernel])?;
        let b = if bias { Some(self.norm(&format!("{p}.bias"), c_out)?) } else { None };
        Ok(Conv { w: Mat::from_data(self.gpu, p, &w, c_in * kernel), b })
    }
}

impl MoonshineWeights {
    pub fn load(
        gpu: &Gpu,
        src: &dyn TensorSource,
        c: &MoonshineConfig,
        int4: bool,
    ) -> Result<MoonshineWeights, ModelError> {
        let l = Loader { gpu, src, int4 };
        let (d, f) = (c.hidden_size, c.intermediate_size);
        let e = "model.encoder";
        let enc_layers = (0..c.encoder_num_hidden_layers)
            .map(|i| {
                let p = format!("{e}.layers.{i}");
                Ok(EncLayer {
                    ln1: l.norm(&format!("{p}.input_layernorm.weight"), d)?,
                    q: l.linear(&format!("{p}.self_attn.q_proj"), d, d, false)?,
                    k: l.linear(&format!("{p}.self_attn.k_proj"), d, d, false)?,
                    v: l.linear(&format!("{p}.self_attn.v_proj"), d, d, false)?,
                    o: l.linear(&format!("{p}.self_attn.o_proj"), d, d, false)?,
                    ln2: l.norm(&format!("{p}.post_attention_layernorm.weight"), d)?,
                    fc1: l.linear(&format!("{p}.mlp.fc1"), f, d, true)?,
                    fc2: l.linear(&format!("{p}.mlp.fc2"), d, f, true)?,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        let dd = "model.decoder";
        let int4 = l.int4;
        let dec_layers = (0..c.decoder_num_hidden_layers)
            .map(|i| {
                let p = format!("{dd}.layers.{i}");
                let fc1 = l.vec(&format!("{p}.mlp.fc1.weight"), &[2 * f, d])?;
                let fc1_b = l.vec(&format!("{p}.mlp.fc1.bias"), &[2 * f])?;
                let half = |w: &[f32], b: &[f32], name: &str| Linear {
                    w: Weight::new(gpu, name, w, f, d, int4),
                    b: Some(Mat::from_data(gpu, name, b, f)),
                };
                let mut xkv = l.vec(&format!("{p}.encoder_attn.k_proj.weight"), &[d, d])?;
                xkv.extend(l.vec(&format!("{p}.encoder_attn.v_proj.weight"), &[d, d])?);
                Ok(DecLayer {
                    ln1: l.norm(&format!("{p}.input_layernorm.weight"), d)?,
                    q: l.linear_dec(&format!("{p}.self_attn.q_proj"), d, d, false)?,
                    k: l.linear_dec(&format!("{p}.self_attn.k_proj"), d, d, false)?,
                    v: l.linear_dec(&format!("{p}.self_attn.v_proj"), d, d, false)?,
                    o: l.linear_dec(&format!("{p}.self_attn.o_proj"), d, d, false)?,
                    ln_x: l.norm(&format!("{p}.post_attention_layernorm.weight"), d)?,
                    xq: l.linear_dec(&format!("{p}.encoder_attn.q_proj"), d, d, false)?,
                    xkv: Linear { w: Weight::F32(Mat::from_data(gpu, "cross kv", &xkv, d)), b: None },
                    xo: l.linear_dec(&format!("{p}.encoder_attn.o_proj"), d, d, false)?,
                    ln2: l.norm(&format!("{p}.final_layernorm.weight"), d)?,
                    up: half(&fc1[..f * d], &fc1_b[..f], "fc1 up"),
                    gate: half(&fc1[f * d..], &fc1_b[f..], "fc1 gate"),
                    fc2: l.linear_dec(&format!("{p}.mlp.fc2"), d, f, true)?,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        let embed = l.vec(&format!("{dd}.embed_tokens.weight"), &[c.vocab_size, d])?;
        let lm_head = if !c.tie_word_embeddings && src.contains("proj_out.weight") {
            Mat::from_data(gpu, "lm_head", &l.vec("proj_out.weight", &[c.vocab_size, d])?, d)
        } else {
            Mat::from_data(gpu, "lm_head", &embed, d)
        };
        Ok(MoonshineWeights {
            conv1: l.conv(&format!("{e}.conv1"), d, 1, 127, false)?,
            conv2: l.conv(&format!("{e}.conv2"), 2 * d, d, 7, true)?,
            conv3: l.conv(&format!("{e}.conv3"), d, 2 * d, 3, true)?,
            gn_w: l.norm(&format!("{e}.groupnorm.weight"), d)?,
            gn_b: l.norm(&format!("{e}.groupnorm.bias"), d)?,
            enc_layers,
            enc_ln: l.norm(&format!("{e}.layer_norm.weight"), d)?,
            embed,
            lm_head,
            dec_layers,
            dec_ln: l.norm(&format!("{dd}.norm.weight"), d)?,
            zeros: Mat::from_data(gpu, "zeros", &vec![0.0; 2 * d], 2 * d),
        })
    }
}
