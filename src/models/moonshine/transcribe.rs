//! Moonshine transcription: the clip is cut at silences into chunks
//! (`segment`), each chunk is encoded once and decoded greedily (or sampled at
//! temperature > 0) from the decoder start token to end-of-text, with a token
//! budget proportional to its duration (Moonshine's 6.5 tokens per second,
//! its guard against loops). Each chunk is one segment, timed by its samples.

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::model::{Moonshine, MIN_SAMPLES};
use super::segment::{self, RATE};
use crate::gpu::Gpu;
use crate::models::speech::{
    compression_ratio, Progress, Segment, SpeechError, SpeechModel, TranscribeOptions, Transcript,
};
use crate::models::ModelError;

/// Token budget per second of audio (as useful-moonshine / transformers' examples).
const TOKENS_PER_SECOND: f64 = 6.5;

pub struct MoonshineTranscriber {
    pub model: Moonshine,
    tok: tokenizers::Tokenizer,
}

/// log-softmax of one logits row.
fn log_probs(row: &[f32]) -> Vec<f64> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
    let lse = max + sum.ln();
    row.iter().map(|&v| v as f64 - lse).collect()
}

/// Samples from softmax(logits / t).
fn sample(logits: &[f32], t: f32, rng: &mut StdRng) -> u32 {
    let scaled: Vec<f32> = logits.iter().map(|v| v / t).collect();
    let mut u: f64 = rng.random_range(0.0..1.0);
    for (i, lp) in log_probs(&scaled).into_iter().enumerate() {
        let p = lp.exp();
        if u < p {
            return i as u32;
        }
        u -= p;
    }
    (logits.len() - 1) as u32
}

/// One decoded chunk.
pub struct Decoded {
    pub tokens: Vec<u32>,
    pub avg_logprob: f64,
}

impl MoonshineTranscriber {
    /// Loads for serving: decoder projections in INT4 (see `weights.rs`).
    pub fn load(gpu: &Arc<Gpu>, dir: &Path) -> Result<MoonshineTranscriber, ModelError> {
        Self::load_with(gpu, dir, true)
    }

    /// Loads with INT4 decoder projections or f32 everywhere.
    pub fn load_with(gpu: &Arc<Gpu>, dir: &Path, int4: bool) -> Result<MoonshineTranscriber, ModelError> {
        let model = Moonshine::load_with(gpu, dir, int4)?;
        let tpath = dir.join("tokenizer.json");
        let tok = tokenizers::Tokenizer::from_file(&tpath)
            .map_err(|e| ModelError::Config { path: tpath.clone(), msg: e.to_string() })?;
        if tok.get_vocab_size(true) > model.cfg.vocab_size {
            return Err(ModelError::Config {
                path: tpath,
                msg: format!("{} tokens do not fit a vocabulary of {}", tok.get_vocab_size(true), model.cfg.vocab_size),
            });
        }
        Ok(MoonshineTranscriber { model, tok })
    }

    fn text_of(&self, tokens: &[u32]) -> Result<String, SpeechError> {
        self.tok.decode(tokens, true).map_err(|e| SpeechError::Tokenizer(e.to_string()))
    }

    /// Encodes one chunk (zero-padded to the encoder's minimum) and decodes it.
    pub fn decode_chunk(&self, audio: &[f32], temperature: f32, rng: &mut StdRng) -> Result<Decoded, SpeechError> {
        let mut padded;
        let audio = if audio.len() < MIN_SAMPLES {
            padded = audio.to_vec();
            padded.resize(MIN_SAMPLES, 0.0);
            &padded[..]
        } else {
            audio
        };
        let c = &self.model.cfg;
        let budget = ((audio.len() as f64 / RATE as f64) * TOKENS_PER_SECOND).ceil() as usize + 1;
        let enc = self.model.encode(audio)?;
        let mut dec = self.model.decoder(&enc, budget + 1);
        let (eos, vocab) = (c.eos_token_id, c.vocab_size);
        let mut row = dec.step(&[c.decoder_start_token_id], &[0])?;
        let mut tokens = Vec::new();
        let mut sum_logprob = 0.0;
        loop {
            let next = if temperature <= 0.0 {
                (0..vocab).max_by(|&a, &b| row[a].total_cmp(&row[b]).then(b.cmp(&a))).unwrap_or(0) as u32
            } else {
                sample(&row, temperature, rng)
            };
            sum_logprob += log_probs(&row)[next as usize];
            if next == eos {
                break;
            }
            tokens.push(next);
            if tokens.len() >= budget {
                break;
            }
            row = dec.step(&[next], &[0])?;
        }
        Ok(Decoded { avg_logprob: sum_logprob / (tokens.len() + 1) as f64, tokens })
    }
}

impl SpeechModel for MoonshineTranscriber {
    fn languages(&self) -> Vec<String> {
        vec!["en".into()]
    }

    fn transcribe(
        &mut self,
        audio: &[f32],
        opts: &TranscribeOptions,
        on_progress: &mut dyn FnMut(Progress<'_>) -> ControlFlow<()>,
    ) -> Result<Transcript, SpeechError> {
        if let Some(l) = opts.language.as_deref().filter(|l| !l.eq_ignore_ascii_case("en")) {
            return Err(SpeechError::Language(l.to_lowercase()));
        }
        let duration = audio.len() as f64 / RATE as f64;
        let mut rng = StdRng::seed_from_u64(opts.seed.unwrap_or_else(rand::random));
        let mut segments: Vec<Segment> = Vec::new();
        for (i, (start, end)) in segment::chunks(audio).into_iter().enumerate() {
            if i > 0 && on_progress(Progress::Window).is_break() {
                return Err(SpeechError::Cancelled);
            }
            let d = self.decode_chunk(&audio[start..end], opts.temperature, &mut rng)?;
            let text = self.text_of(&d.tokens)?;
            if text.trim().is_empty() {
                continue;
            }
            // Segments concatenate into the transcript: each starts with a space, as Whisper's do.
            let text = if text.starts_with(char::is_whitespace) { text } else { format!(" {text}") };
            let seg = Segment {
                id: segments.len(),
                seek: start / segment::FRAME,
                start: start as f64 / RATE as f64,
                end: end as f64 / RATE as f64,
                compression_ratio: compression_ratio(&text),
                text,
                tokens: d.tokens,
                temperature: opts.temperature.max(0.0),
                avg_logprob: d.avg_logprob,
                no_speech_prob: 0.0,
                words: Vec::new(),
            };
            if on_progress(Progress::Segment(&seg)).is_break() {
                return Err(SpeechError::Cancelled);
            }
            segments.push(seg);
        }
        let text = segments.iter().map(|s| s.text.as_str()).collect::<String>().trim().to_string();
        Ok(Transcript { text, language: "en".into(), duration, segments })
    }
}
