//! Whisper's log-mel front end on the CPU, matching transformers'
//! `WhisperFeatureExtractor`: zero-pad/truncate to the window, periodic Hann
//! window, centred STFT with reflect padding, power spectrum, Slaney-scale and
//! Slaney-normalised mel filters up to 8 kHz, log10 with a 1e-10 floor, the
//! last frame dropped, an 8 (x10 dB) dynamic-range clamp, then (x + 4) / 4.
//! Computed in f64 so the result is at least as exact as the reference.

use std::path::Path;
use std::sync::Arc;

use realfft::{RealFftPlanner, RealToComplex};

/// The extractor's settings (`preprocessor_config.json` names).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct MelConfig {
    #[serde(default = "d_n_fft")]
    pub n_fft: usize,
    #[serde(default = "d_hop")]
    pub hop_length: usize,
    #[serde(default = "d_mels")]
    pub feature_size: usize,
    #[serde(default = "d_sr")]
    pub sampling_rate: usize,
    /// Samples per window (30 s).
    #[serde(default = "d_n_samples")]
    pub n_samples: usize,
}

fn d_n_fft() -> usize {
    400
}
fn d_hop() -> usize {
    160
}
fn d_mels() -> usize {
    80
}
fn d_sr() -> usize {
    16000
}
fn d_n_samples() -> usize {
    480_000
}

impl Default for MelConfig {
    fn default() -> Self {
        MelConfig {
            n_fft: d_n_fft(),
            hop_length: d_hop(),
            feature_size: d_mels(),
            sampling_rate: d_sr(),
            n_samples: d_n_samples(),
        }
    }
}

impl MelConfig {
    /// `dir/preprocessor_config.json` when present and readable, else Whisper's defaults with `n_mels`.
    pub fn from_dir(dir: &Path, n_mels: usize) -> MelConfig {
        let read = std::fs::read_to_string(dir.join("preprocessor_config.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<MelConfig>(&t).ok());
        read.unwrap_or(MelConfig { feature_size: n_mels, ..Default::default() })
    }

    /// Mel frames per window.
    pub fn frames(&self) -> usize {
        self.n_samples / self.hop_length
    }
}

fn hz_to_mel(f: f64) -> f64 {
    let logstep = 27.0 / 6.4f64.ln();
    if f >= 1000.0 {
        15.0 + (f / 1000.0).ln() * logstep
    } else {
        3.0 * f / 200.0
    }
}

fn mel_to_hz(m: f64) -> f64 {
    let logstep = 6.4f64.ln() / 27.0;
    if m >= 15.0 {
        1000.0 * (logstep * (m - 15.0)).exp()
    } else {
        200.0 * m / 3.0
    }
}

/// The [n_bins, n_mels] filter bank of transformers' `mel_filter_bank`
/// (triangles between Slaney-mel-spaced edges, area-normalised).
pub fn mel_filters(n_fft: usize, n_mels: usize, sampling_rate: usize) -> Vec<f64> {
    let n_bins = n_fft / 2 + 1;
    let (lo, hi) = (hz_to_mel(0.0), hz_to_mel(8000.0));
    let edges: Vec<f64> = (0..n_mels + 2).map(|i| mel_to_hz(lo + (hi - lo) * i as f64 / (n_mels + 1) as f64)).collect();
    let nyq = (sampling_rate / 2) as f64;
    let mut out = vec![0f64; n_bins * n_mels];
    for b in 0..n_bins {
        let f = nyq * b as f64 / (n_bins - 1) as f64;
        for m in 0..n_mels {
            let down = -(edges[m] - f) / (edges[m + 1] - edges[m]);
            let up = (edges[m + 2] - f) / (edges[m + 2] - edges[m + 1]);
            let enorm = 2.0 / (edges[m + 2] - edges[m]);
            out[b * n_mels + m] = down.min(up).max(0.0) * enorm;
        }
    }
    out
}

/// Computes log-mel windows; holds the FFT plan and filters.
pub struct LogMel {
    pub cfg: MelConfig,
    filters: Vec<f64>,
    window: Vec<f64>,
    fft: Arc<dyn RealToComplex<f64>>,
}

impl LogMel {
    pub fn new(cfg: MelConfig) -> LogMel {
        let filters = mel_filters(cfg.n_fft, cfg.feature_size, cfg.sampling_rate);
        let n = cfg.n_fft;
        let window = (0..n).map(|i| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / n as f64).cos()).collect();
        let fft = RealFftPlanner::<f64>::new().plan_fft_forward(n);
        LogMel { cfg, filters, window, fft }
    }

    /// The features of one window starting at `audio[0]`: [n_mels, frames]
    /// row-major, exactly as the extractor returns them.
    pub fn window(&self, audio: &[f32]) -> Vec<f32> {
        let c = &self.cfg;
        let mut x = vec![0f64; c.n_samples];
        for (d, s) in x.iter_mut().zip(audio) {
            *d = *s as f64;
        }
        // Centre: reflect-pad n_fft / 2 on each side (without repeating the edge sample).
        let half = c.n_fft / 2;
        let len = x.len();
        let at = |i: isize| -> f64 {
            let j = if i < 0 {
                -i
            } else if i as usize >= len {
                2 * (len as isize - 1) - i
            } else {
                i
            };
            x[j as usize]
        };
        let frames = c.frames(); // 1 + len / hop, minus the dropped last frame
        let n_bins = c.n_fft / 2 + 1;
        let n_mels = c.feature_size;
        let mut log = vec![0f64; n_mels * frames];
        let mut buf = self.fft.make_input_vec();
        let mut spec = self.fft.make_output_vec();
        let mut power = vec![0f64; n_bins];
        for t in 0..frames {
            let start = (t * c.hop_length) as isize - half as isize;
            for (i, b) in buf.iter_mut().enumerate() {
                *b = at(start + i as isize) * self.window[i];
            }
            self.fft.process(&mut buf, &mut spec).expect("FFT buffers sized by the plan");
            for (p, s) in power.iter_mut().zip(&spec) {
                *p = s.norm_sqr();
            }
            for m in 0..n_mels {
                let acc: f64 = (0..n_bins).map(|b| self.filters[b * n_mels + m] * power[b]).sum();
                log[m * frames + t] = acc.max(1e-10).log10();
            }
        }
        let max = log.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        log.iter().map(|v| ((v.max(max - 8.0) + 4.0) / 4.0) as f32).collect()
    }
}

/// [rows, cols] row-major -> [cols, rows].
pub fn transpose(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0f32; x.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = x[r * cols + c];
        }
    }
    out
}
