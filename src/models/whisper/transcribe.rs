//! The transcription loop (after OpenAI's `transcribe`): 30 s windows, each
//! encoded once and decoded with timestamp tokens; the next window starts at
//! the last complete timestamp pair (timestamp-driven seeking); previous text
//! conditions the next window; temperature fallback when a window's output
//! looks like a loop (compression ratio > 2.4) or is unlikely (avg logprob < -1).

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::model::{Decoder, Whisper};
use super::tokens::{log_probs, GenerationConfig, LogitFilter, Specials};
use crate::audio::mel::{LogMel, MelConfig};
use crate::gpu::Gpu;
use crate::models::speech::{compression_ratio, Segment, SpeechError, SpeechModel, TranscribeOptions, Transcript};
use crate::models::ModelError;

const FALLBACK: [f32; 6] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
const COMPRESSION_LIMIT: f64 = 2.4;
const LOGPROB_LIMIT: f64 = -1.0;
const NO_SPEECH_LIMIT: f64 = 0.6;
/// Seconds per timestamp token, and mel frames per timestamp token.
const TS_SECONDS: f64 = 0.02;
const FRAMES_PER_TS: usize = 2;

pub struct WhisperTranscriber {
    pub model: Whisper,
    tok: tokenizers::Tokenizer,
    mel: LogMel,
    filter: LogitFilter,
    multilingual: bool,
}

/// One decoded window.
struct Window {
    tokens: Vec<u32>,
    avg_logprob: f64,
    no_speech_prob: f64,
    compression_ratio: f64,
    temperature: f32,
}

impl WhisperTranscriber {
    pub fn load(gpu: &Arc<Gpu>, dir: &Path) -> Result<WhisperTranscriber, ModelError> {
        let model = Whisper::load(gpu, dir)?;
        let tpath = dir.join("tokenizer.json");
        let tok = tokenizers::Tokenizer::from_file(&tpath)
            .map_err(|e| ModelError::Config { path: tpath.clone(), msg: e.to_string() })?;
        let multilingual = model.cfg.vocab_size >= 51865;
        let sp = Specials::from_tokenizer(&tok, multilingual, &tpath)?;
        let gen = GenerationConfig::load(dir)?;
        let ids =
            |v: &Option<Vec<i64>>| -> Vec<u32> { v.iter().flatten().filter(|&&i| i >= 0).map(|&i| i as u32).collect() };
        let mut suppress = ids(&gen.suppress_tokens);
        if suppress.is_empty() {
            suppress = ids(&model.cfg.suppress_tokens);
        }
        suppress.extend(
            [sp.transcribe, sp.translate, Some(sp.sot), sp.sot_prev, sp.sot_lm, sp.no_speech].into_iter().flatten(),
        );
        let mut begin_suppress = ids(&gen.begin_suppress_tokens);
        if begin_suppress.is_empty() {
            begin_suppress = ids(&model.cfg.begin_suppress_tokens);
        }
        begin_suppress.push(sp.eot);
        let mel = LogMel::new(MelConfig::from_dir(dir, model.cfg.num_mel_bins));
        if mel.cfg.frames() != model.cfg.input_frames() || mel.cfg.feature_size != model.cfg.num_mel_bins {
            return Err(ModelError::Config {
                path: dir.join("preprocessor_config.json"),
                msg: format!("{} mel frames x {} bins do not fit the encoder", mel.cfg.frames(), mel.cfg.feature_size),
            });
        }
        let filter = LogitFilter {
            sp,
            suppress,
            begin_suppress,
            max_initial_timestamp: gen.max_initial_timestamp_index.unwrap_or(50),
            vocab: model.cfg.vocab_size,
        };
        Ok(WhisperTranscriber { model, tok, mel, filter, multilingual })
    }

    fn text_of(&self, tokens: &[u32]) -> Result<String, SpeechError> {
        let text: Vec<u32> = tokens.iter().copied().filter(|&t| t < self.filter.sp.eot).collect();
        self.tok.decode(&text, true).map_err(|e| SpeechError::Tokenizer(e.to_string()))
    }

    fn sot_sequence(&self, lang: Option<u32>) -> Vec<u32> {
        let sp = &self.filter.sp;
        let mut s = vec![sp.sot];
        if let (true, Some(l)) = (self.multilingual, lang) {
            s.push(l);
            s.extend(sp.transcribe);
        }
        s
    }

    /// Language token by code, or detected from the first window.
    fn language(&self, dec: &mut Decoder, code: Option<&str>) -> Result<(String, Option<u32>), SpeechError> {
        let sp = &self.filter.sp;
        if !self.multilingual {
            return match code {
                None | Some("en") => Ok(("en".into(), None)),
                Some(c) => Err(SpeechError::Language(c.into())),
            };
        }
        if let Some(c) = code {
            let c = c.to_lowercase();
            return sp
                .languages
                .iter()
                .find(|(l, _)| *l == c)
                .map(|(l, id)| (l.clone(), Some(*id)))
                .ok_or(SpeechError::Language(c));
        }
        dec.reset();
        let logits = dec.step(&[sp.sot], &[0])?;
        let best = sp.languages.iter().max_by(|a, b| logits[a.1 as usize].total_cmp(&logits[b.1 as usize]));
        Ok(best.map_or(("en".into(), None), |(l, id)| (l.clone(), Some(*id))))
    }

    fn decode_window(
        &self,
        dec: &mut Decoder,
        prompt: &[u32],
        sot_seq: &[u32],
        temperature: f32,
        rng: &mut StdRng,
    ) -> Result<Window, SpeechError> {
        let sp = &self.filter.sp;
        let vocab = self.model.cfg.vocab_size;
        let cap = dec.capacity();
        let sample_len = cap / 2;
        dec.reset();
        let mut input = Vec::new();
        if let (Some(prev), false) = (sp.sot_prev, prompt.is_empty()) {
            input.push(prev);
            input.extend_from_slice(&prompt[prompt.len().saturating_sub(cap / 2 - 1)..]);
        }
        let sot_index = input.len();
        input.extend_from_slice(sot_seq);
        let both = dec.step(&input, &[sot_index, input.len() - 1])?;
        let no_speech_prob = sp.no_speech.map_or(0.0, |ns| log_probs(&both[..vocab])[ns as usize].exp());
        let mut row = both[vocab..].to_vec();
        let mut tokens = Vec::new();
        let mut sum_logprob = 0.0;
        loop {
            self.filter.apply(&mut row, &tokens);
            let next = if temperature <= 0.0 {
                (0..vocab).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap_or(0) as u32
            } else {
                sample(&row, temperature, rng)
            };
            sum_logprob += log_probs(&row)[next as usize];
            if next == sp.eot || tokens.len() + 1 >= sample_len || dec.pos >= cap {
                if next != sp.eot {
                    tokens.push(next);
                }
                break;
            }
            tokens.push(next);
            row = dec.step(&[next], &[0])?;
        }
        let text = self.text_of(&tokens)?;
        Ok(Window {
            avg_logprob: sum_logprob / (tokens.len() + 1) as f64,
            no_speech_prob,
            compression_ratio: compression_ratio(&text),
            temperature,
            tokens,
        })
    }
}

/// Samples from softmax(logits / t).
fn sample(logits: &[f32], t: f32, rng: &mut StdRng) -> u32 {
    let scaled: Vec<f32> = logits.iter().map(|v| v / t).collect();
    let p: Vec<f64> = log_probs(&scaled).into_iter().map(f64::exp).collect();
    let mut u: f64 = rng.random_range(0.0..1.0);
    for (i, pi) in p.iter().enumerate() {
        if u < *pi {
            return i as u32;
        }
        u -= pi;
    }
    p.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |(i, _)| i as u32)
}

impl SpeechModel for WhisperTranscriber {
    fn languages(&self) -> Vec<String> {
        if self.multilingual {
            self.filter.sp.languages.iter().map(|(l, _)| l.clone()).collect()
        } else {
            vec!["en".into()]
        }
    }

    fn transcribe(
        &mut self,
        audio: &[f32],
        opts: &TranscribeOptions,
        on_segment: &mut dyn FnMut(&Segment) -> ControlFlow<()>,
    ) -> Result<Transcript, SpeechError> {
        let sr = self.mel.cfg.sampling_rate;
        let hop = self.mel.cfg.hop_length;
        let n_frames = self.mel.cfg.frames();
        let duration = audio.len() as f64 / sr as f64;
        let content_frames = audio.len().div_ceil(hop);
        let tb = self.filter.sp.ts_begin;
        let mut rng = StdRng::seed_from_u64(opts.seed.unwrap_or_else(rand::random));
        let mut all_tokens: Vec<u32> = Vec::new();
        if let Some(p) = opts.prompt.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            let enc = self.tok.encode(format!(" {p}"), false).map_err(|e| SpeechError::Tokenizer(e.to_string()))?;
            all_tokens.extend(enc.get_ids());
        }
        let mut prompt_since = 0;
        let mut segments: Vec<Segment> = Vec::new();
        let mut language: Option<(String, Option<u32>)> = None;
        let mut seek = 0usize;
        while seek < content_frames {
            let seg_frames = n_frames.min(content_frames - seek);
            let start = seek * hop;
            let end = (start + seg_frames * hop).min(audio.len());
            let feats = self.mel.window(&audio[start..end]);
            let enc = self.model.encode(&feats)?;
            let mut dec = self.model.decoder(&enc);
            let (lang_code, lang_id) = match &language {
                Some(l) => l.clone(),
                None => {
                    let l = self.language(&mut dec, opts.language.as_deref())?;
                    language = Some(l.clone());
                    l
                }
            };
            let _ = lang_code;
            let sot_seq = self.sot_sequence(lang_id);
            let temps: &[f32] = if opts.temperature > 0.0 { &[opts.temperature] } else { &FALLBACK };
            let mut win = None;
            for &t in temps {
                let w = self.decode_window(&mut dec, &all_tokens[prompt_since..], &sot_seq, t, &mut rng)?;
                let silent = w.no_speech_prob > NO_SPEECH_LIMIT && w.avg_logprob < LOGPROB_LIMIT;
                let failed = w.compression_ratio > COMPRESSION_LIMIT || w.avg_logprob < LOGPROB_LIMIT;
                win = Some(w);
                if silent || !failed {
                    break;
                }
            }
            let w = win.expect("at least one temperature");
            let time_offset = start as f64 / sr as f64;
            if w.no_speech_prob > NO_SPEECH_LIMIT && w.avg_logprob < LOGPROB_LIMIT {
                seek += seg_frames; // silence: skip the window
                continue;
            }
            let toks = &w.tokens;
            let is_ts = |t: u32| t >= tb;
            let single_ending = toks.len() >= 2 && !is_ts(toks[toks.len() - 2]) && is_ts(toks[toks.len() - 1]);
            let mut cuts: Vec<usize> = (1..toks.len()).filter(|&i| is_ts(toks[i - 1]) && is_ts(toks[i])).collect();
            let mut pieces: Vec<(f64, f64, Vec<u32>)> = Vec::new();
            if !cuts.is_empty() {
                if single_ending {
                    cuts.push(toks.len());
                }
                let mut last = 0;
                for &c in &cuts {
                    let s = &toks[last..c];
                    let t0 = time_offset + (s[0].saturating_sub(tb)) as f64 * TS_SECONDS;
                    let t1 = time_offset + (s[s.len() - 1].saturating_sub(tb)) as f64 * TS_SECONDS;
                    pieces.push((t0, t1, s.to_vec()));
                    last = c;
                }
                if single_ending {
                    seek += seg_frames;
                } else {
                    let last_ts = (toks[last - 1] - tb) as usize;
                    seek += (last_ts * FRAMES_PER_TS).max(1);
                }
            } else {
                let mut dur = seg_frames as f64 * hop as f64 / sr as f64;
                if let Some(&t) = toks.iter().rev().find(|&&t| is_ts(t)) {
                    if t != tb {
                        dur = (t - tb) as f64 * TS_SECONDS;
                    }
                }
                pieces.push((time_offset, time_offset + dur, toks.clone()));
                seek += seg_frames;
            }
            for (t0, t1, tokens) in pieces {
                let text = self.text_of(&tokens)?;
                let (t0, t1) = (t0.min(duration), t1.min(duration));
                if text.trim().is_empty() || t1 <= t0 && text.trim().is_empty() {
                    continue;
                }
                let seg = Segment {
                    id: segments.len(),
                    seek: start / hop,
                    start: t0,
                    end: t1.max(t0),
                    text,
                    tokens,
                    temperature: w.temperature,
                    avg_logprob: w.avg_logprob,
                    compression_ratio: w.compression_ratio,
                    no_speech_prob: w.no_speech_prob,
                };
                if on_segment(&seg).is_break() {
                    return Err(SpeechError::Cancelled);
                }
                segments.push(seg);
            }
            all_tokens.extend(&w.tokens);
            if w.temperature > 0.5 {
                prompt_since = all_tokens.len();
            }
        }
        let text = segments.iter().map(|s| s.text.as_str()).collect::<String>().trim().to_string();
        let language = language.map_or_else(|| opts.language.clone().unwrap_or_else(|| "en".into()), |l| l.0);
        Ok(Transcript { text, language, duration, segments })
    }
}
