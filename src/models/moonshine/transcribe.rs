//! Moonshine transcription: the clip is cut at silences into chunks
//! (`segment`), each chunk is encoded once and decoded greedily (or sampled at
//! temperature > 0) from the decoder start token to end-of-text, with a token
//! budget proportional to its duration (Moonshine's 6.5 tokens per second,
//! its guard against loops). Each chunk is one segment, timed by its samples.

use std::ops::ControlFlow;
use std::path::Path;

use rand::rngs::StdRng;
use rand::Rng;

use super::model::{Moonshine, MIN_SAMPLES};
use super::segment::{self, RATE};
use crate::executor::Executor;
use crate::models::speech::{compression_ratio, Progress, SpeechError, SpeechModel, TranscribeOptions, Transcript};
use crate::models::speech_runner::{decode_tokens, load_tokenizer, seeded_rng, text_of, DecodeStats, Segments};
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
    pub fn load(exec: &Executor, dir: &Path) -> Result<MoonshineTranscriber, ModelError> {
        Self::load_with(exec, dir, true)
    }

    /// Loads with INT4 decoder projections or f32 everywhere.
    pub fn load_with(exec: &Executor, dir: &Path, int4: bool) -> Result<MoonshineTranscriber, ModelError> {
        let model = Moonshine::load_with(exec, dir, int4)?;
        let (tok, tpath) = load_tokenizer(dir)?;
        if tok.get_vocab_size(true) > model.cfg.vocab_size {
            return Err(ModelError::Config {
                path: tpath,
                msg: format!("{} tokens do not fit a vocabulary of {}", tok.get_vocab_size(true), model.cfg.vocab_size),
            });
        }
        Ok(MoonshineTranscriber { model, tok })
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
        let first = dec.step(&[c.decoder_start_token_id], &[0])?;
        let pick = |row: &Vec<f32>| {
            let next = if temperature <= 0.0 {
                (0..vocab).max_by(|&a, &b| row[a].total_cmp(&row[b]).then(b.cmp(&a))).unwrap_or(0) as u32
            } else {
                sample(row, temperature, rng)
            };
            (next, log_probs(row)[next as usize])
        };
        let (tokens, avg_logprob) = decode_tokens(first, eos, pick, |tokens| {
            if tokens.len() >= budget {
                return Ok(None);
            }
            Ok(Some(dec.step(&tokens[tokens.len() - 1..], &[0])?))
        })?;
        Ok(Decoded { avg_logprob, tokens })
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
        let mut rng = seeded_rng(opts);
        let mut segments = Segments::new(on_progress);
        for (i, (start, end)) in segment::chunks(audio).into_iter().enumerate() {
            if i > 0 {
                segments.window_done()?;
            }
            let d = self.decode_chunk(&audio[start..end], opts.temperature, &mut rng)?;
            let text = text_of(&self.tok, &d.tokens)?;
            if text.trim().is_empty() {
                continue;
            }
            // Segments concatenate into the transcript: each starts with a space, as Whisper's do.
            let text = if text.starts_with(char::is_whitespace) { text } else { format!(" {text}") };
            let stats = DecodeStats {
                temperature: opts.temperature.max(0.0),
                avg_logprob: d.avg_logprob,
                compression_ratio: compression_ratio(&text),
                no_speech_prob: 0.0,
            };
            let span = (start as f64 / RATE as f64, end as f64 / RATE as f64);
            segments.push(start / segment::FRAME, span, (text, d.tokens), &stats, Vec::new())?;
        }
        Ok(segments.finish("en".into(), duration))
    }
}
