//! The transcription loop (after OpenAI's `transcribe`): 30 s windows, each
//! encoded once and decoded with timestamp tokens; the next window starts at
//! the last complete timestamp pair (timestamp-driven seeking); previous text
//! conditions the next window; temperature fallback when a window's output
//! looks like a loop (compression ratio > 2.4) or is unlikely (avg logprob < -1).

use std::ops::ControlFlow;
use std::path::Path;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::Rng;

use super::align;
use super::model::{Decoder, Whisper};
use super::tokens::{choose, GenerationConfig, LogitFilter, Specials};
use crate::audio::mel::{LogMel, MelConfig};
use crate::executor::Executor;
use crate::models::speech::{
    compression_ratio, Progress, SpeechError, SpeechModel, TranscribeOptions, Transcript, Word,
};
use crate::models::speech_runner::{decode_tokens, load_tokenizer, seeded_rng, text_of, DecodeStats, Segments};
use crate::models::ModelError;
use crate::nn::{LogitRules, LogitStats};

const FALLBACK: [f32; 6] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
const COMPRESSION_LIMIT: f64 = 2.4;
const LOGPROB_LIMIT: f64 = -1.0;
const NO_SPEECH_LIMIT: f64 = 0.6;
/// Seconds per timestamp token, and mel frames per timestamp token.
const TS_SECONDS: f64 = 0.02;
const FRAMES_PER_TS: usize = 2;
/// A window's token budget: MIN_TOKENS + TOKENS_PER_SECOND per second of real
/// audio in it (capped by Whisper's 224). Speech runs at ~3-5 tokens/s with
/// timestamps, so this only cuts loops short, e.g. on a short tail window.
const MIN_TOKENS: usize = 32;
const TOKENS_PER_SECOND: f64 = 12.0;
/// A final remainder shorter than this (in mel frames, 1 s) is not decoded as a window.
const MIN_TAIL_FRAMES: usize = 100;

pub struct WhisperTranscriber {
    pub model: Whisper,
    tok: tokenizers::Tokenizer,
    mel: LogMel,
    filter: LogitFilter,
    multilingual: bool,
    /// `filter.masks()` on the GPU.
    masks: wgpu::Buffer,
    mask_words: usize,
    /// (decoder layer, head) pairs whose cross-attention follows the audio.
    alignment_heads: Vec<[usize; 2]>,
}

/// A timed piece of a window: start and end in seconds, its tokens.
type Piece = (f64, f64, Vec<u32>);

/// One decoded window.
struct Window {
    tokens: Vec<u32>,
    stats: DecodeStats,
}

impl WhisperTranscriber {
    pub fn load(exec: &Executor, dir: &Path) -> Result<WhisperTranscriber, ModelError> {
        let model = Whisper::load(exec, dir)?;
        let (tok, tpath) = load_tokenizer(dir)?;
        let gen = GenerationConfig::load(dir)?;
        let multilingual = gen.is_multilingual.unwrap_or(model.cfg.vocab_size >= 51865);
        let sp = Specials::from_tokenizer(&tok, multilingual, &tpath)?;
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
        let mask_words = filter.vocab.div_ceil(32);
        let masks = exec.gpu().storage_from("whisper masks", &filter.masks());
        let (layers, heads) = (model.cfg.decoder_layers, model.cfg.decoder_attention_heads);
        // Without the model's list, OpenAI's default: every head of the second half of the layers.
        let alignment_heads = gen
            .alignment_heads
            .clone()
            .unwrap_or_else(|| (layers / 2..layers).flat_map(|l| (0..heads).map(move |h| [l, h])).collect());
        if let Some(bad) = alignment_heads.iter().find(|[l, h]| *l >= layers || *h >= heads) {
            return Err(ModelError::Config {
                path: dir.join("generation_config.json"),
                msg: format!("alignment head {bad:?} is outside {layers} layers x {heads} heads"),
            });
        }
        Ok(WhisperTranscriber { model, tok, mel, filter, multilingual, masks, mask_words, alignment_heads })
    }

    fn text_of(&self, tokens: &[u32]) -> Result<String, SpeechError> {
        let text: Vec<u32> = tokens.iter().copied().filter(|&t| t < self.filter.sp.eot).collect();
        text_of(&self.tok, &text)
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

    #[allow(clippy::too_many_arguments)]
    fn decode_window(
        &self,
        dec: &mut Decoder,
        prompt: &[u32],
        sot_seq: &[u32],
        temperature: f32,
        max_tokens: usize,
        rng: &mut StdRng,
    ) -> Result<Window, SpeechError> {
        let sp = &self.filter.sp;
        let cap = dec.capacity();
        let sample_len = (cap / 2).min(max_tokens);
        dec.reset();
        let mut input = Vec::new();
        if let (Some(prev), false) = (sp.sot_prev, prompt.is_empty()) {
            input.push(prev);
            input.extend_from_slice(&prompt[prompt.len().saturating_sub(cap / 2 - 1)..]);
        }
        let sot_index = input.len();
        input.extend_from_slice(sot_seq);
        let sampling = temperature > 0.0;
        let mut seed = || sampling.then(|| (temperature, rng.random::<u32>()));
        let vocab = self.model.cfg.vocab_size;
        // The start-of-transcript row, unfiltered: P(<|nospeech|>).
        let sot_rules = LogitRules::all(vocab, sp.no_speech.unwrap_or(0));
        let first = self.filter.rules(&[], seed());
        let both =
            dec.step_select(&input, &[(sot_index, sot_rules), (input.len() - 1, first)], &self.masks, self.mask_words)?;
        let no_speech_prob =
            if sp.no_speech.is_some() { (both[0].probe as f64 - both[0].lse_all()).exp() } else { 0.0 };
        let pick = |st: &LogitStats| choose(st, sampling);
        let (tokens, avg_logprob) = decode_tokens(both[1], sp.eot, pick, |tokens| {
            if tokens.len() >= sample_len || dec.pos >= cap {
                return Ok(None);
            }
            let rules = self.filter.rules(tokens, seed());
            Ok(Some(dec.step_select(&tokens[tokens.len() - 1..], &[(0, rules)], &self.masks, self.mask_words)?[0]))
        })?;
        let text = self.text_of(&tokens)?;
        let stats =
            DecodeStats { temperature, avg_logprob, compression_ratio: compression_ratio(&text), no_speech_prob };
        Ok(Window { tokens, stats })
    }
}

impl WhisperTranscriber {
    /// Word timestamps for a window's pieces (OpenAI's `add_word_timestamps`):
    /// a teacher-forced pass of the window's text, the alignment heads'
    /// attention, DTW; then the boundary rules that keep the first and last
    /// words of a piece from swallowing a pause (may move a piece's start / end).
    fn align_words(
        &self,
        dec: &mut Decoder,
        sot_seq: &[u32],
        pieces: &mut [Piece],
        seg_frames: usize,
        time_offset: f64,
        last_speech: &mut f64,
    ) -> Result<Vec<Vec<Word>>, SpeechError> {
        let sp = &self.filter.sp;
        let texts: Vec<Vec<u32>> =
            pieces.iter().map(|p| p.2.iter().copied().filter(|&t| t < sp.eot).collect()).collect();
        let text = texts.concat();
        let mut out = vec![Vec::new(); pieces.len()];
        if text.is_empty() {
            return Ok(out);
        }
        let mut forced = sot_seq.to_vec();
        forced.push(sp.no_timestamps);
        forced.extend(&text);
        forced.push(sp.eot);
        let mut layers: Vec<usize> = self.alignment_heads.iter().map(|h| h[0]).collect();
        layers.sort_unstable();
        layers.dedup();
        let queries = dec.cross_queries(&forced, &layers)?;
        let c = &self.model.cfg;
        let (d, rows) = (c.d_model, forced.len());
        let hd = d / c.decoder_attention_heads;
        let frames = (seg_frames / 2).min(c.max_source_positions);
        let scale = 1.0 / (hd as f32).sqrt();
        let mut weights = Vec::with_capacity(self.alignment_heads.len());
        for (q, &l) in queries.iter().zip(&layers) {
            let k = dec.cross_keys(l)?;
            for &[_, h] in self.alignment_heads.iter().filter(|a| a[0] == l) {
                let cols = h * hd..(h + 1) * hd;
                let mut w = Vec::with_capacity(rows * frames);
                for r in 0..rows {
                    let qr = &q[r * d..][cols.clone()];
                    w.extend(
                        (0..frames)
                            .map(|f| qr.iter().zip(&k[f * d..][cols.clone()]).map(|(a, b)| a * b).sum::<f32>() * scale),
                    );
                }
                weights.push(w);
            }
        }
        let decode = |ids: &[u32]| self.tok.decode(ids, false).unwrap_or_default();
        let mut words = align::find_alignment(weights, frames, sot_seq.len(), &text, sp.eot, &decode);
        let (median, max) = align::clamp_long_words(&mut words);
        align::merge_punctuation(&mut words);
        let round = |t: f64| (t * 100.0).round() / 100.0;
        let mut next = words.iter();
        for ((piece, toks), out) in pieces.iter_mut().zip(&texts).zip(out.iter_mut()) {
            let mut saved = 0;
            let mut ws: Vec<Word> = Vec::new();
            while saved < toks.len() {
                let Some(w) = next.next() else { break };
                if !w.word.is_empty() {
                    let (start, end) = (round(time_offset + w.start), round(time_offset + w.end));
                    ws.push(Word { word: w.word.trim().to_string(), start, end });
                }
                saved += w.tokens.len();
            }
            if ws.is_empty() {
                continue;
            }
            // The first word after a pause is no longer than twice the median word.
            let long = |w: &Word| w.end - w.start > max;
            if ws[0].end - *last_speech > median * 4.0
                && (long(&ws[0]) || ws.len() > 1 && ws[1].end - ws[0].start > max * 2.0)
            {
                if ws.len() > 1 && long(&ws[1]) {
                    let boundary = (ws[1].end / 2.0).max(ws[1].end - max);
                    ws[0].end = boundary;
                    ws[1].start = boundary;
                }
                ws[0].start = (ws[0].end - max).max(0.0);
            }
            // Prefer the piece's own start / end where the first / last word runs past it by > 0.5 s.
            let last = ws.len() - 1;
            if piece.0 < ws[0].end && piece.0 - 0.5 > ws[0].start {
                ws[0].start = (ws[0].end - median).min(piece.0).max(0.0);
            } else {
                piece.0 = ws[0].start;
            }
            if piece.1 > ws[last].start && piece.1 + 0.5 < ws[last].end {
                ws[last].end = (ws[last].start + median).max(piece.1);
            } else {
                piece.1 = ws[last].end;
            }
            *last_speech = piece.1;
            *out = ws;
        }
        Ok(out)
    }
}

impl SpeechModel for WhisperTranscriber {
    fn word_timestamps(&self) -> bool {
        true
    }

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
        on_progress: &mut dyn FnMut(Progress<'_>) -> ControlFlow<()>,
    ) -> Result<Transcript, SpeechError> {
        let sr = self.mel.cfg.sampling_rate;
        let hop = self.mel.cfg.hop_length;
        let n_frames = self.mel.cfg.frames();
        let duration = audio.len() as f64 / sr as f64;
        let content_frames = audio.len().div_ceil(hop);
        let tb = self.filter.sp.ts_begin;
        let mut rng = seeded_rng(opts);
        let mut all_tokens: Vec<u32> = Vec::new();
        if let Some(p) = opts.prompt.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            let enc = self.tok.encode(format!(" {p}"), false).map_err(|e| SpeechError::Tokenizer(e.to_string()))?;
            all_tokens.extend(enc.get_ids());
        }
        if !self.multilingual {
            // Refused before any GPU work.
            if let Some(c) = opts.language.as_deref().filter(|c| !c.eq_ignore_ascii_case("en")) {
                return Err(SpeechError::Language(c.into()));
            }
        }
        let mut prompt_since = 0;
        let mut segments = Segments::new(on_progress);
        let mut language: Option<(String, Option<u32>)> = None;
        let mut seek = 0usize;
        let mut last_speech = 0.0;
        while seek < content_frames {
            if seek > 0 {
                segments.window_done()?;
            }
            let seg_frames = n_frames.min(content_frames - seek);
            let start = seek * hop;
            let end = (start + seg_frames * hop).min(audio.len());
            let t_win = Instant::now();
            let feats = self.mel.window(&audio[start..end]);
            let mel_s = t_win.elapsed().as_secs_f64();
            let enc = self.model.encode(&feats)?;
            // Wait for the encoder so the timing log splits encoder from decoder.
            self.model.exec.wait_idle();
            let enc_s = t_win.elapsed().as_secs_f64() - mel_s;
            tracing::debug!(seek, mel_ms = mel_s * 1e3, encoder_ms = enc_s * 1e3, "whisper window encoded");
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
            let (t_dec, mut attempts, mut steps) = (Instant::now(), 0, 0);
            let window_s = seg_frames as f64 * hop as f64 / sr as f64;
            let max_tokens = MIN_TOKENS + (window_s * TOKENS_PER_SECOND) as usize;
            for &t in temps {
                let prompt = &all_tokens[prompt_since..];
                let w = self.decode_window(&mut dec, prompt, &sot_seq, t, max_tokens, &mut rng)?;
                attempts += 1;
                steps += w.tokens.len() + 1;
                let st = &w.stats;
                tracing::debug!(
                    temperature = t,
                    tokens = w.tokens.len(),
                    elapsed_ms = t_dec.elapsed().as_secs_f64() * 1e3,
                    avg_logprob = st.avg_logprob,
                    compression_ratio = st.compression_ratio,
                    no_speech_prob = st.no_speech_prob,
                    "whisper decode attempt"
                );
                let failed = st.compression_ratio > COMPRESSION_LIMIT || st.avg_logprob < LOGPROB_LIMIT;
                // OpenAI's rule: a window judged silent is not retried, whatever its text looked like.
                let silent = st.no_speech_prob > NO_SPEECH_LIMIT;
                win = Some(w);
                if silent || !failed {
                    break;
                }
            }
            let w = win.expect("at least one temperature");
            let st = w.stats;
            let dec_s = t_dec.elapsed().as_secs_f64();
            tracing::debug!(
                seek,
                window_s,
                mel_ms = mel_s * 1e3,
                encoder_ms = enc_s * 1e3,
                decode_ms = dec_s * 1e3,
                attempts,
                steps,
                ms_per_step = dec_s * 1e3 / steps.max(1) as f64,
                temperature = st.temperature,
                avg_logprob = st.avg_logprob,
                no_speech_prob = st.no_speech_prob,
                "whisper window"
            );
            let time_offset = start as f64 / sr as f64;
            if st.no_speech_prob > NO_SPEECH_LIMIT && st.avg_logprob < LOGPROB_LIMIT {
                seek += seg_frames; // silence: skip the window
                continue;
            }
            let toks = &w.tokens;
            let is_ts = |t: u32| t >= tb;
            let single_ending = toks.len() >= 2 && !is_ts(toks[toks.len() - 2]) && is_ts(toks[toks.len() - 1]);
            let mut cuts: Vec<usize> = (1..toks.len()).filter(|&i| is_ts(toks[i - 1]) && is_ts(toks[i])).collect();
            let mut pieces: Vec<Piece> = Vec::new();
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
            // The window saw the end of the audio and left less than MIN_TAIL
            // after its last timestamp: that rest was heard and judged empty, so
            // decoding it again as a window of its own (mostly padding) would only
            // invite hallucinations and fallback retries.
            if start / hop + seg_frames >= content_frames && content_frames.saturating_sub(seek) < MIN_TAIL_FRAMES {
                seek = content_frames;
            }
            let mut words = vec![Vec::new(); pieces.len()];
            if opts.word_timestamps {
                words = self.align_words(&mut dec, &sot_seq, &mut pieces, seg_frames, time_offset, &mut last_speech)?;
            }
            for ((t0, t1, tokens), words) in pieces.into_iter().zip(words) {
                let text = self.text_of(&tokens)?;
                let (t0, t1) = (t0.min(duration), t1.min(duration));
                if text.trim().is_empty() || t1 <= t0 && text.trim().is_empty() {
                    continue;
                }
                segments.push(start / hop, (t0, t1.max(t0)), (text, tokens), &st, words)?;
            }
            all_tokens.extend(&w.tokens);
            if st.temperature > 0.5 {
                prompt_since = all_tokens.len();
            }
        }
        let language = language.map_or_else(|| opts.language.clone().unwrap_or_else(|| "en".into()), |l| l.0);
        Ok(segments.finish(language, duration))
    }
}
