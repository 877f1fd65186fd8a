//! Piper voices (VITS) on the GPU in two submissions per sentence: the text encoder
//! and the stochastic duration predictor (whose frame counts come back to size the
//! rest), then the prior's expansion to frames, the reverse flow (WaveNet couplings)
//! and the HiFi-GAN decoder. The CPU modules are the reference the GPU is tested
//! against, and run a voice whose shapes the kernels do not take. Loaded from the
//! safetensors + config.json that tools/piper/convert_voice.py makes from a voice's
//! `.onnx` + `.onnx.json`.

pub mod config;
pub mod cpu_ops;
pub mod decoder;
pub mod duration;
pub mod duration_gpu;
pub mod encoder;
pub mod encoder_gpu;
pub mod flow;
pub mod flow_gpu;
pub mod gpu_ops;
pub mod layers;
pub mod voice;

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use config::{DecoderArch, InferenceConfig, VoiceConfig};

use crate::executor::Executor;
use crate::gpu::Gpu;
use crate::models::ModelError;
use crate::nn::Recorder;
use crate::weights::safetensors::Checkpoint;

pub struct PiperVoice {
    pub config: VoiceConfig,
    encoder: encoder::TextEncoder,
    duration: duration::DurationPredictor,
    flow: flow::Flow,
    /// The flow on the GPU (None: the CPU flow runs, see `GpuFlow::new`).
    gpu_flow: Option<flow_gpu::GpuFlow>,
    /// Text encoder + duration predictor on the GPU (None: the CPU modules run).
    gpu_front: Option<(encoder_gpu::GpuTextEncoder, duration_gpu::GpuDurationPredictor)>,
    decoder: decoder::Decoder,
    exec: Executor,
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
    /// decoder) and decoder (with the prior's expansion).
    pub timings: [f64; 3],
}

impl PiperVoice {
    /// Loads `dir/config.json` + `dir/*.safetensors`.
    pub fn load(exec: &Executor, dir: &Path) -> Result<Self, ModelError> {
        let gpu = exec.gpu();
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
        config.check().map_err(|e| layers::bad(&ck, &format!("config.json: {e}")))?;
        let encoder = encoder::TextEncoder::load(&ck)?;
        let duration = duration::DurationPredictor::load(&ck, encoder.hidden)?;
        let flow = flow::Flow::load(&ck)?;
        let decoder = decoder::Decoder::load(exec, &ck, &arch)?;
        ck.check_all_layers_read()?;
        let gpu_flow = flow_gpu::GpuFlow::new(gpu, &flow).filter(|f| 2 * f.half == decoder.c_in);
        let gpu_front = encoder_gpu::GpuTextEncoder::new(gpu, &encoder)
            .filter(|e| e.stats_channels == flow.channels * 2)
            .zip(duration_gpu::GpuDurationPredictor::new(gpu, &duration));
        Ok(PiperVoice { config, encoder, duration, flow, gpu_flow, gpu_front, decoder, exec: exec.clone() })
    }

    pub fn sample_rate(&self) -> u32 {
        self.config.audio.sample_rate
    }

    /// Samples per latent frame.
    pub fn hop(&self) -> usize {
        self.decoder.hop
    }

    /// Frames per phoneme (encoder + duration predictor only, no audio): ceil(exp(logw) * length_scale).
    pub fn durations(&self, ids: &[i64], p: SynthParams) -> Result<Vec<usize>, ModelError> {
        if ids.is_empty() {
            return Ok(vec![]);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        Ok(self.front(ids, p, &mut rng, true)?.0)
    }

    /// Text encoder + duration predictor: the frames per phoneme and the prior, on the GPU
    /// when `on_gpu` and the voice runs there. Draws the predictor's noise from `rng`.
    fn front(
        &self,
        ids: &[i64],
        p: SynthParams,
        rng: &mut ChaCha8Rng,
        on_gpu: bool,
    ) -> Result<(Vec<usize>, Prior), ModelError> {
        let (logw, prior) = self.log_durations(ids, p.noise_w, rng, on_gpu)?;
        let frames = logw.iter().map(|&l| (l.exp() * p.length_scale).ceil().max(0.0) as usize).collect();
        Ok((frames, prior))
    }

    fn log_durations(
        &self,
        ids: &[i64],
        noise_w: f32,
        rng: &mut ChaCha8Rng,
        on_gpu: bool,
    ) -> Result<(Vec<f32>, Prior), ModelError> {
        let t = ids.len();
        let noise: Vec<f32> = (0..2 * t).map(|_| normal(rng) * noise_w).collect();
        match (&self.gpu_front, on_gpu) {
            (Some((enc, dp)), true) => {
                let g = &**self.exec.gpu();
                let mut rec = self.exec.recorder();
                let encoded = enc.record(&mut rec, &self.encoder.embed(ids))?;
                let z = dp.record(&mut rec, t, &encoded.x, &noise);
                rec.submit();
                let mut logw = g.read_f32(&z, t)?;
                self.duration.affine_reverse(&mut logw);
                Ok((logw, Prior::Gpu(encoded.stats)))
            }
            _ => {
                let enc = self.encoder.forward(ids);
                let logw = self.duration.forward(&enc.x, t, noise);
                Ok((logw, Prior::Cpu(enc)))
            }
        }
    }

    /// Waveform in [-1, 1] for phoneme ids (with Piper's BOS/pad/EOS already in place).
    pub fn synthesize(&self, ids: &[i64], p: SynthParams) -> Result<Synthesis, ModelError> {
        if ids.is_empty() {
            return Ok(Synthesis { audio: vec![], durations: vec![], timings: [0.0; 3] });
        }
        let t0 = std::time::Instant::now();
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        let on_gpu = self.gpu_flow.is_some();
        let (durations, prior) = self.front(ids, p, &mut rng, on_gpu)?;
        let spoken: usize = durations.iter().sum();
        let frames = spoken.max(1);
        // Noise of z_p = m + eps * exp(logs) * noise_scale, drawn frame by frame, channel-major.
        let c = self.flow.channels;
        let mut eps = vec![0f32; c * frames];
        if p.noise_scale != 0.0 {
            for f in 0..spoken {
                for ch in 0..c {
                    eps[ch * frames + f] = normal(&mut rng) * p.noise_scale;
                }
            }
        }
        let t1 = std::time::Instant::now();
        let audio = match (prior, &self.gpu_flow) {
            (Prior::Gpu(stats), Some(f)) => self.flow_and_decode_on_gpu(f, frames, |g, rec| {
                let idx: Vec<u32> =
                    durations.iter().enumerate().flat_map(|(j, &d)| std::iter::repeat_n(j as u32, d)).collect();
                let idx = g.storage_from("piper.frame_phoneme", if idx.is_empty() { &[0u32][..] } else { &idx });
                let eps = g.storage_from("piper.eps", &eps);
                let (h, t) = (f.half, ids.len());
                let a = g.storage("z", (h * frames * 4) as u64);
                let b = g.storage("z", ((c - h) * frames * 4) as u64);
                gpu_ops::record_expand_prior(rec, frames, (0, h, c, t), &stats, &idx, &eps, &a);
                gpu_ops::record_expand_prior(rec, frames, (h, c - h, c, t), &stats, &idx, &eps, &b);
                (a, b)
            })?,
            (Prior::Cpu(enc), Some(f)) => self.flow_and_decode_on_gpu(f, frames, |g, _| {
                decoder::upload_halves(g, &expand_prior(&enc, &durations, frames, &eps), f.half * frames)
            })?,
            (Prior::Cpu(enc), None) => {
                let mut z = expand_prior(&enc, &durations, frames, &eps);
                self.flow.reverse(&mut z, frames);
                self.decoder.forward(&z, frames)?
            }
            (Prior::Gpu(_), None) => unreachable!("the front end runs on the GPU only with the flow there"),
        };
        let timings = [(t1 - t0).as_secs_f64(), 0.0, t1.elapsed().as_secs_f64()];
        Ok(Synthesis { audio, durations, timings })
    }
}

impl PiperVoice {
    /// One submission (two where the generator decodes in windows): what `z_halves` records
    /// (leaving z's channel halves in two buffers), the reverse flow and the decoder; returns
    /// the waveform.
    fn flow_and_decode_on_gpu(
        &self,
        f: &flow_gpu::GpuFlow,
        frames: usize,
        z_halves: impl FnOnce(&Gpu, &mut Recorder) -> (wgpu::Buffer, wgpu::Buffer),
    ) -> Result<Vec<f32>, ModelError> {
        let g = &**self.exec.gpu();
        let mut rec = self.exec.recorder();
        let (a, b) = z_halves(g, &mut rec);
        f.record(&mut rec, frames, &a, &b);
        if !self.decoder.fits(frames) {
            // Too long for one pass of the generator: it decodes z in windows.
            rec.submit();
            let mut z = g.read_f32(&a, f.half * frames)?;
            z.extend(g.read_f32(&b, (self.decoder.c_in - f.half) * frames)?);
            return Ok(self.decoder.forward(&z, frames)?);
        }
        let (out, len) = self.decoder.record(&mut rec, &a, &b, frames)?;
        rec.submit();
        Ok(g.read_f32(&out, len)?)
    }
}

/// The prior where the encoder left it.
enum Prior {
    Gpu(wgpu::Buffer),
    Cpu(encoder::Encoded),
}

/// z_p at frame rate on the CPU: each frame copies its phoneme's mean and adds `eps * exp(logs)`.
fn expand_prior(enc: &encoder::Encoded, durations: &[usize], frames: usize, eps: &[f32]) -> Vec<f32> {
    let (t, c) = (enc.t, enc.m.len() / enc.t);
    let mut z = vec![0f32; c * frames];
    let mut f = 0;
    for (j, &d) in durations.iter().enumerate() {
        for _ in 0..d {
            for ch in 0..c {
                z[ch * frames + f] = enc.m[ch * t + j] + eps[ch * frames + f] * enc.logs[ch * t + j].exp();
            }
            f += 1;
        }
    }
    z
}

/// Standard normal by Box-Muller (deterministic for a seeded generator).
fn normal(rng: &mut ChaCha8Rng) -> f32 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random::<f64>();
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

impl PiperVoice {
    /// The HiFi-GAN generator (for tests of its windowed decoding).
    pub fn decoder(&self) -> &decoder::Decoder {
        &self.decoder
    }

    /// The reverse flow alone, on the GPU when it runs there (else the CPU): `z: [channels, t]`
    /// in, f^-1(z) out. For tests of the GPU flow against the CPU one.
    pub fn flow_reverse(&self, z: &[f32], t: usize, on_gpu: bool) -> Result<Vec<f32>, ModelError> {
        match (&self.gpu_flow, on_gpu) {
            (Some(f), true) => {
                let g = &**self.exec.gpu();
                let s = f.half * t;
                let (a, b) = decoder::upload_halves(g, z, s);
                let mut rec = self.exec.recorder();
                f.record(&mut rec, t, &a, &b);
                rec.submit();
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

    /// Whether the text encoder and duration predictor run on the GPU.
    pub fn front_on_gpu(&self) -> bool {
        self.gpu_front.is_some() && self.gpu_flow.is_some()
    }

    /// Log-durations `[t]` and the prior `[2 * channels, t]` (means, then log-stds) of the text
    /// encoder + duration predictor, on the GPU or the CPU modules, with the predictor's noise
    /// drawn from `seed` times `noise_w`. For tests of the GPU front end against the CPU one.
    pub fn front_reference(
        &self,
        ids: &[i64],
        noise_w: f32,
        seed: u64,
        on_gpu: bool,
    ) -> Result<(Vec<f32>, Vec<f32>), ModelError> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (logw, prior) = self.log_durations(ids, noise_w, &mut rng, on_gpu)?;
        let stats = match prior {
            Prior::Gpu(b) => self.exec.gpu().read_f32(&b, 2 * self.flow.channels * ids.len())?,
            Prior::Cpu(enc) => [enc.m, enc.logs].concat(),
        };
        Ok((logw, stats))
    }
}
