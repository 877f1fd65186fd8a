//! A Piper voice's `.onnx.json` (copied to `config.json` by tools/piper/convert_voice.py),
//! with the field names Piper uses, and the decoder numbers the converter stores in the
//! safetensors metadata (`gerbil.piper`).

use std::collections::HashMap;

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
pub struct VoiceConfig {
    pub audio: AudioConfig,
    #[serde(default)]
    pub espeak: EspeakConfig,
    #[serde(default)]
    pub inference: InferenceConfig,
    #[serde(default)]
    pub phoneme_type: Option<String>,
    pub phoneme_id_map: HashMap<String, Vec<i64>>,
    pub num_symbols: usize,
    #[serde(default = "one")]
    pub num_speakers: usize,
}

fn one() -> usize {
    1
}

impl VoiceConfig {
    /// Values that would load and then fail or misbehave on every request: a rate the encoders
    /// and resampler refuse, a zero or negative speaking-rate scale (no audio), an espeak-ng voice
    /// the phonemizer does not have.
    pub fn check(&self) -> Result<(), String> {
        let rate = self.audio.sample_rate;
        if !(8_000..=192_000).contains(&rate) {
            return Err(format!("audio.sample_rate {rate} is outside 8000..=192000"));
        }
        let i = &self.inference;
        if !(i.length_scale.is_finite() && i.length_scale > 0.0) {
            return Err(format!("inference.length_scale must be positive, got {}", i.length_scale));
        }
        if !(i.noise_scale.is_finite() && i.noise_scale >= 0.0 && i.noise_w.is_finite() && i.noise_w >= 0.0) {
            return Err(format!(
                "inference.noise_scale {} / noise_w {} must be non-negative",
                i.noise_scale, i.noise_w
            ));
        }
        crate::speech::espeak::phonemize("a", &self.espeak.voice)
            .map_err(|e| format!("espeak.voice '{}': {e}", self.espeak.voice))?;
        Ok(())
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct AudioConfig {
    pub sample_rate: u32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct EspeakConfig {
    pub voice: String,
}

impl Default for EspeakConfig {
    fn default() -> Self {
        EspeakConfig { voice: "en-us".into() }
    }
}

/// Piper's synthesis defaults: noise of the prior, speaking-rate scale, duration noise.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
pub struct InferenceConfig {
    pub noise_scale: f32,
    pub length_scale: f32,
    pub noise_w: f32,
}

impl Default for InferenceConfig {
    fn default() -> Self {
        InferenceConfig { noise_scale: 0.667, length_scale: 1.0, noise_w: 0.8 }
    }
}

/// HiFi-GAN numbers not visible from tensor shapes, read from the ONNX node attributes.
#[derive(Debug, Clone, Deserialize)]
pub struct DecoderArch {
    pub upsample_rates: Vec<usize>,
    pub upsample_kernels: Vec<usize>,
    pub upsample_pads: Vec<usize>,
    pub resblock_dilations: Vec<Vec<usize>>,
    pub lrelu_slope: f32,
    pub post_lrelu_slope: f32,
}
