//! Piper voices (VITS): text encoder and stochastic duration predictor on the CPU; the
//! reverse flow (WaveNet couplings) and the HiFi-GAN decoder, nearly all of the
//! arithmetic, on the GPU in one submission. Loaded from the
//! safetensors + config.json that tools/piper/convert_voice.py makes from a voice's
//! `.onnx` + `.onnx.json`.

pub mod config;
pub mod decoder;
pub mod duration;
pub mod encoder;
pub mod flow;
pub mod flow_gpu;
pub mod layers;

use std::path::Path;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use config::{DecoderArch, InferenceConfig, VoiceConfig};

use crate::gpu::Gpu;
use crate::models::ModelError;
use crate::weights::safetensors::Checkpoint;

pub struct PiperVoice {
    pub config: VoiceConfig,
    encoder: encoder::TextEncoder,
    duration: duration::DurationPredictor,
    flow: flow::Flow,
    /// The flow on the GPU (None: the CPU flow runs, see `GpuFlow::new`).
    gpu_flow: Option<flow_gpu::GpuFlow>,
    decoder: decoder::Decoder,
    gpu: Arc<Gpu>,
}

/// Per-request synthesis settings (Piper's `scales` input plus a noise seed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SynthParams {
    pub noise_scale: f32,
    pub length_scale: f32,
    pub noise_w: f32,
    pub seed: u64,
}

impl SynthParams {
    pub fn from_config(c: &InferenceConfig, seed: u64) -> Self {
        SynthParams { noise_scale: c.noise_scale, length_scale: c.length_scale, noise_w: c.noise_w, seed }
    }
}

/// What one synthesis produced, with the frame durations for inspection.
pub struct Synthesis {
    pub audio: Vec<f32>,
    pub durations: Vec<usize>,
    /// Seconds in text encoder + duration predictor, flow (0 when it runs on the GPU with the
    /// decoder) and decoder.
    pub timings: [f64; 3],
}

impl PiperVoice {
    /// Loads `dir/config.json` + `dir/*.safetensors`.
    pub fn load(gpu: Arc<Gpu>, dir: &Path) -> Result<Self, ModelError> {
        let config: VoiceConfig = crate::models::read_json(&dir.join("config.json"))?;
        let ck = Checkpoint::open(dir)?;
        let arch_json = ck.metadata("gerbil.piper").ok_or_else(|| {
            layers::bad(&ck, "no 'gerbil.piper' metadata: convert the voice with tools/piper/convert_voice.py")
        })?;
        let arch: DecoderArch =
            serde_json::from_str(&arch_json).map_err(|e| layers::bad(&ck, &format!("gerbil.piper metadata: {e}")))?;
        if config.num_speakers > 1 {
            return Err(layers::bad(&ck, "multi-speaker voices are not supported yet"));
        }
        let encoder = encoder::TextEncoder::load(&ck)?;
        let duration = duration::DurationPredictor::load(&ck, encoder.hidden)?;
        let flow = flow::Flow::load(&ck)?;
        let decoder = decoder::Decoder::load(gpu.clone(), &ck, &arch)?;
        let gpu_flow = flow_gpu::GpuFlow::new(&gpu, &flow).filter(|f| 2 * f.half == decoder.c_in);
        Ok(PiperVoice { config, encoder, duration, flow, gpu_flow, decoder, gpu })
    }

    pub fn sample_rate(&self) -> u32 {
        self.config.audio.sample_rate
    }

    /// Samples per latent frame.
    pub fn hop(&self) -> usize {
        self.decoder.hop
    }

    /// Frames per phoneme (encoder + duration predictor only, no audio): ceil(exp(logw) * length_scale).
    pub fn durations(&self, ids: &[i64], p: SynthParams) -> Vec<usize> {
        if ids.is_empty() {
            return vec![];
        }
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        let enc = self.encoder.forward(ids);
        self.frames(&enc, p, &mut rng)
    }

    fn frames(&self, enc: &encoder::Encoded, p: SynthParams, rng: &mut ChaCha8Rng) -> Vec<usize> {
        let noise: Vec<f32> = (0..2 * enc.t).map(|_| normal(rng) * p.noise_w).collect();
        let logw = self.duration.forward(&enc.x, enc.t, noise);
        logw.iter().map(|&l| (l.exp() * p.length_scale).ceil().max(0.0) as usize).collect()
    }

    /// Waveform in [-1, 1] for phoneme ids (with Piper's BOS/pad/EOS already in place).
    pub fn synthesize(&self, ids: &[i64], p: SynthParams) -> Result<Synthesis, ModelError> {
        if ids.is_empty() {
            return Ok(Synthesis { audio: vec![], durations: vec![], timings: [0.0; 3] });
        }
        let t0 = std::time::Instant::now();
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        let enc = self.encoder.forward(ids);
        let t = enc.t;
        let durations = self.frames(&enc, p, &mut rng);
        let frames = durations.iter().sum::<usize>().max(1);
        // Expand the prior to frames and sample z_p = m + eps * exp(logs) * noise_scale.
        let c = self.flow.channels;
        let mut z = vec![0f32; c * frames];
        let mut f = 0;
        for (j, &d) in durations.iter().enumerate() {
            for _ in 0..d {
                for ch in 0..c {
                    z[ch * frames + f] = enc.m[ch * t + j];
                }
                f += 1;
            }
        }
        if p.noise_scale != 0.0 {
            let mut f = 0;
            for (j, &d) in durations.iter().enumerate() {
                for _ in 0..d {
                    for ch in 0..c {
                        z[ch * frames + f] += normal(&mut rng) * enc.logs[ch * t + j].exp() * p.noise_scale;
                    }
                    f += 1;
                }
            }
        }
        let t1 = std::time::Instant::now();
        let audio = match &self.gpu_flow {
            Some(f) => {
                let g = &*self.gpu;
                let (a, b) = decoder::upload_halves(g, &z, f.half * frames);
                let mut rec = crate::gpu::conv::Recorder::new(g);
                f.record(&mut rec, frames, &a, &b);
                let (out, len) = self.decoder.record(&mut rec, &a, &b, frames)?;
                rec.submit(g);
                g.read_f32(&out, len)?
            }
            None => {
                self.flow.reverse(&mut z, frames);
                self.decoder.forward(&z, frames)?
            }
        };
        let timings = [(t1 - t0).as_secs_f64(), 0.0, t1.elapsed().as_secs_f64()];
        Ok(Synthesis { audio, durations, timings })
    }
}

/// Standard normal by Box-Muller (deterministic for a seeded generator).
fn normal(rng: &mut ChaCha8Rng) -> f32 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random::<f64>();
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

impl PiperVoice {
    /// The reverse flow alone, on the GPU when it runs there (else the CPU): `z: [channels, t]`
    /// in, f^-1(z) out. For tests of the GPU flow against the CPU one.
    pub fn flow_reverse(&self, z: &[f32], t: usize, on_gpu: bool) -> Result<Vec<f32>, ModelError> {
        match (&self.gpu_flow, on_gpu) {
            (Some(f), true) => {
                let g = &*self.gpu;
                let s = f.half * t;
                let (a, b) = decoder::upload_halves(g, z, s);
                let mut rec = crate::gpu::conv::Recorder::new(g);
                f.record(&mut rec, t, &a, &b);
                rec.submit(g);
                let mut out = g.read_f32(&a, s)?;
                out.extend(g.read_f32(&b, z.len() - s)?);
                Ok(out)
            }
            _ => {
                let mut z = z.to_vec();
                self.flow.reverse(&mut z, t);
                Ok(z)
            }
        }
    }

    /// Whether the flow runs on the GPU.
    pub fn flow_on_gpu(&self) -> bool {
        self.gpu_flow.is_some()
    }
}
