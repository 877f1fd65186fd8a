//! The DAC audio codec's decoder (transformers `DacModel`, model_type "dac"), as OuteTTS 1.0 uses it:
//! codes `[n_codebooks, frames]` -> per-codebook codebook lookup + `out_proj`, summed -> the decoder
//! (conv, blocks of Snake + ConvTranspose upsampling + three dilated residual units, Snake, conv, tanh)
//! on the GPU. Weight norm is folded at load, from either hub layout (`weight_g`/`weight_v` or
//! `parametrizations.weight.original0/1`). The encoder is not loaded: speech synthesis never needs it.

pub mod decoder;

use std::path::Path;

use crate::executor::Executor;
use crate::models::ModelError;
use crate::weights::safetensors::Checkpoint;

pub use decoder::DacDecoder;

/// The config.json fields the decoder needs (transformers `DacConfig` names).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct DacConfig {
    #[serde(default)]
    pub model_type: Option<String>,
    pub n_codebooks: usize,
    pub codebook_size: usize,
    pub codebook_dim: usize,
    pub decoder_hidden_size: usize,
    /// Older configs store only the encoder's ratios; the decoder's are their reverse.
    #[serde(default)]
    pub upsampling_ratios: Option<Vec<usize>>,
    #[serde(default)]
    pub downsampling_ratios: Vec<usize>,
    pub sampling_rate: u32,
}

impl DacConfig {
    pub fn upsampling(&self) -> Vec<usize> {
        self.upsampling_ratios.clone().unwrap_or_else(|| self.downsampling_ratios.iter().rev().copied().collect())
    }
}

/// A codec loaded for decoding.
pub struct Dac {
    pub config: DacConfig,
    /// Per codebook: `[codebook_size, codebook_dim]`.
    codebooks: Vec<Vec<f32>>,
    decoder: DacDecoder,
}

impl Dac {
    /// Loads `dir/config.json` + `dir/*.safetensors` (transformers layout).
    pub fn load(exec: &Executor, dir: &Path) -> Result<Self, ModelError> {
        let path = dir.join("config.json");
        let config: DacConfig = crate::models::read_json(&path)?;
        if config.model_type.as_deref().is_some_and(|t| t != "dac") {
            return Err(ModelError::Config { path, msg: "model_type is not 'dac'".into() });
        }
        if config.upsampling().is_empty() || config.n_codebooks == 0 {
            return Err(ModelError::Config { path, msg: "no upsampling ratios or no codebooks".into() });
        }
        let ck = Checkpoint::open(dir)?;
        let mut codebooks = Vec::new();
        for i in 0..config.n_codebooks {
            let name = format!("quantizer.quantizers.{i}.codebook.weight");
            codebooks.push(ck.f32(&name, &[config.codebook_size, config.codebook_dim])?);
        }
        let decoder = DacDecoder::load(exec, &ck, &config)?;
        ck.check_all_layers_read()?;
        Ok(Dac { config, codebooks, decoder })
    }

    pub fn sample_rate(&self) -> u32 {
        self.config.sampling_rate
    }

    /// Samples per frame (the product of the upsampling ratios; odd ratios lose a sample or so at the end).
    pub fn hop(&self) -> usize {
        self.config.upsampling().iter().product()
    }

    /// Waveform in [-1, 1] of `codes[codebook][frame]`, every codebook given (as OuteTTS decodes).
    pub fn decode(&self, codes: &[Vec<u32>]) -> Result<Vec<f32>, ModelError> {
        let frames = codes.first().map_or(0, |c| c.len());
        if codes.len() != self.config.n_codebooks || codes.iter().any(|c| c.len() != frames) {
            return Err(ModelError::Unsupported(format!(
                "{} codebooks of unequal lengths (the codec needs {})",
                codes.len(),
                self.config.n_codebooks
            )));
        }
        if frames == 0 {
            return Ok(Vec::new());
        }
        let d = self.config.codebook_dim;
        // Latents [n * d, frames], channel-major: the decoder's first conv sums the out_projs.
        let mut lat = vec![0f32; self.config.n_codebooks * d * frames];
        for (i, cb) in codes.iter().enumerate() {
            for (f, &c) in cb.iter().enumerate() {
                let c = c as usize;
                if c >= self.config.codebook_size {
                    return Err(ModelError::Unsupported(format!(
                        "code {c} (codebook size {})",
                        self.config.codebook_size
                    )));
                }
                for j in 0..d {
                    lat[(i * d + j) * frames + f] = self.codebooks[i][c * d + j];
                }
            }
        }
        Ok(self.decoder.forward(&lat, frames)?)
    }
}

/// A weight-normed layer's effective weight `g * v / ||v||` (norm over all but dim 0, PyTorch's
/// `weight_norm(dim=0)`), from whichever names the checkpoint uses; a plain `.weight` as is.
pub fn folded_weight(ck: &Checkpoint, prefix: &str) -> Result<(Vec<f32>, Vec<usize>), ModelError> {
    let plain = format!("{prefix}.weight");
    if ck.contains(&plain) {
        let s = ck.shape(&plain)?;
        return Ok((ck.f32(&plain, &s)?, s));
    }
    let (gn, vn) = if ck.contains(&format!("{prefix}.weight_g")) {
        (format!("{prefix}.weight_g"), format!("{prefix}.weight_v"))
    } else {
        (format!("{prefix}.parametrizations.weight.original0"), format!("{prefix}.parametrizations.weight.original1"))
    };
    let s = ck.shape(&vn)?;
    let mut v = ck.f32(&vn, &s)?;
    let gs = ck.shape(&gn)?;
    if gs.first() != s.first() || gs.iter().product::<usize>() != s[0] {
        return Err(ModelError::Config {
            path: ck.dir.clone(),
            msg: format!("{gn} has shape {gs:?}, expected [{}, 1, ..] for {vn} {s:?}", s[0]),
        });
    }
    let g = ck.f32(&gn, &gs)?;
    let row = v.len() / s[0];
    for (r, chunk) in v.chunks_mut(row).enumerate() {
        let norm = chunk.iter().map(|x| (*x as f64) * (*x as f64)).sum::<f64>().sqrt() as f32;
        let scale = g[r] / norm;
        chunk.iter_mut().for_each(|x| *x *= scale);
    }
    Ok((v, s))
}
