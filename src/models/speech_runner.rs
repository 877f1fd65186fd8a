//! What the encoder-decoder speech models (Whisper, Moonshine) share around their own networks:
//! the encoded audio with every decoder layer's cross-attention K/V, the two ends of a decoder step
//! (token embeddings gathered on the CPU; the wanted rows' logits against the lm_head), the token
//! loop of one decode, and the assembly of a transcript from segments with cancellation. Each
//! model keeps its own front end, layers, audio windowing and token selection.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::models::speech::{Progress, Segment, SpeechError, TranscribeOptions, Transcript, Word};
use crate::models::ModelError;
use crate::nn::{Mat, Recorder};

/// The encoder's output for one window or clip ([frames, D]), with every decoder layer's
/// cross-attention K/V ([frames, 2D], computed once).
pub struct Encoded {
    pub out: Mat,
    pub cross_kv: Vec<Mat>,
    pub frames: usize,
}

impl Encoded {
    /// Ends an encoder pass recorded in `rec` whose output is `out` ([frames, d]): records the
    /// cross-attention K/V of each of `layers` decoder layers (`project(rec, layer, out, kv)` writes
    /// layer `layer`'s [frames, 2d] `kv`), then submits.
    pub fn finish(
        mut rec: Recorder,
        out: Mat,
        d: usize,
        layers: usize,
        mut project: impl FnMut(&mut Recorder, usize, &Mat, &Mat),
    ) -> Encoded {
        let frames = out.rows;
        let g = rec.gpu().clone();
        let cross_kv = (0..layers)
            .map(|l| {
                let kv = Mat::new(&g, "cross kv", frames, 2 * d);
                project(&mut rec, l, &out, &kv);
                kv
            })
            .collect();
        rec.submit();
        Encoded { out, cross_kv, frames }
    }
}

/// The input rows of a decoder step of `tokens` ([n, d]), gathered on the CPU from `embed`
/// ([vocab, d]; ids past it read the last row), plus `positions` ([n, d]) where the model adds
/// learned position embeddings.
pub fn embed_tokens(embed: &[f32], d: usize, tokens: &[u32], positions: Option<&[f32]>) -> Vec<f32> {
    let vocab = embed.len() / d;
    let mut x = Vec::with_capacity(tokens.len() * d);
    for (r, &t) in tokens.iter().enumerate() {
        let t = (t as usize).min(vocab - 1);
        let e = &embed[t * d..(t + 1) * d];
        match positions {
            Some(p) => x.extend(e.iter().zip(&p[r * d..(r + 1) * d]).map(|(a, b)| a + b)),
            None => x.extend_from_slice(e),
        }
    }
    x
}

/// Refuses a step of `n` tokens at `pos` that would not fit a cache of `capacity`.
pub fn check_room(pos: usize, n: usize, capacity: usize) -> Result<(), ModelError> {
    if n == 0 || pos + n > capacity {
        return Err(ModelError::ContextFull { need: pos + n, max: capacity });
    }
    Ok(())
}

/// Records the logits of a decoder step's wanted rows: row `want[i]` of the final-normed `xn` (the
/// step's `n` rows) is copied into row i of `rows`, then one matmul against `lm_head`. Returns the
/// [want.len(), vocab] view of `logits`.
pub fn record_logits(rec: &mut Recorder, xn: &Mat, want: &[usize], rows: &Mat, logits: &Mat, lm_head: &Mat) -> Mat {
    let (n, row_bytes) = (xn.rows, (xn.cols * 4) as u64);
    for (i, &r) in want.iter().enumerate() {
        assert!(r < n, "logit row {r} of a {n}-token step");
        rec.copy(&xn.buf, r as u64 * row_bytes, &rows.buf, i as u64 * row_bytes, row_bytes);
    }
    let k = want.len();
    let out = logits.with_rows(k);
    rec.linear(&rows.with_rows(k), lm_head, None, &out);
    out
}

/// `dir/tokenizer.json`, and its path (for errors about it).
pub fn load_tokenizer(dir: &Path) -> Result<(tokenizers::Tokenizer, PathBuf), ModelError> {
    let path = dir.join("tokenizer.json");
    let tok = tokenizers::Tokenizer::from_file(&path)
        .map_err(|e| ModelError::Config { path: path.clone(), msg: e.to_string() })?;
    Ok((tok, path))
}

/// The text of `tokens`, special tokens skipped.
pub fn text_of(tok: &tokenizers::Tokenizer, tokens: &[u32]) -> Result<String, SpeechError> {
    tok.decode(tokens, true).map_err(|e| SpeechError::Tokenizer(e.to_string()))
}

/// The random source of a transcription: the asked-for seed, else a fresh one.
pub fn seeded_rng(opts: &TranscribeOptions) -> StdRng {
    StdRng::seed_from_u64(opts.seed.unwrap_or_else(rand::random))
}

/// The token loop of one decode, from the scores `first` of the prompt's last row: `pick` chooses
/// a token and its log-probability from a step's scores; the loop ends at `end` (not kept), or
/// when `step` (given the tokens so far, the last one new) returns no further scores (the budget
/// or the cache is full). Returns the tokens and the average log-probability over every pick
/// (the end token's included).
pub fn decode_tokens<S>(
    first: S,
    end: u32,
    mut pick: impl FnMut(&S) -> (u32, f64),
    mut step: impl FnMut(&[u32]) -> Result<Option<S>, SpeechError>,
) -> Result<(Vec<u32>, f64), SpeechError> {
    let mut scores = first;
    let mut tokens = Vec::new();
    let mut sum_logprob = 0.0;
    loop {
        let (next, logprob) = pick(&scores);
        sum_logprob += logprob;
        if next == end {
            break;
        }
        tokens.push(next);
        match step(&tokens)? {
            Some(s) => scores = s,
            None => break,
        }
    }
    let avg = sum_logprob / (tokens.len() + 1) as f64;
    Ok((tokens, avg))
}

/// How the window or chunk a segment was cut from decoded: what the segment reports.
#[derive(Debug, Clone, Copy)]
pub struct DecodeStats {
    pub temperature: f32,
    pub avg_logprob: f64,
    pub compression_ratio: f64,
    pub no_speech_prob: f64,
}

/// A transcription's segments as they are made, each reported to `on_progress` as it is added,
/// and the end of each window but the last; either report may cancel the transcription.
pub struct Segments<'a> {
    list: Vec<Segment>,
    on_progress: &'a mut dyn FnMut(Progress<'_>) -> ControlFlow<()>,
}

impl<'a> Segments<'a> {
    pub fn new(on_progress: &'a mut dyn FnMut(Progress<'_>) -> ControlFlow<()>) -> Self {
        Segments { list: Vec::new(), on_progress }
    }

    /// A window is done and another follows.
    pub fn window_done(&mut self) -> Result<(), SpeechError> {
        match (self.on_progress)(Progress::Window) {
            ControlFlow::Break(()) => Err(SpeechError::Cancelled),
            ControlFlow::Continue(()) => Ok(()),
        }
    }

    /// Adds (numbered in order) and reports a segment of `text` / `tokens` from `start` to `end`
    /// seconds, cut from the window at mel frame `seek`.
    pub fn push(
        &mut self,
        seek: usize,
        (start, end): (f64, f64),
        (text, tokens): (String, Vec<u32>),
        stats: &DecodeStats,
        words: Vec<Word>,
    ) -> Result<(), SpeechError> {
        let seg = Segment {
            id: self.list.len(),
            seek,
            start,
            end,
            text,
            tokens,
            temperature: stats.temperature,
            avg_logprob: stats.avg_logprob,
            compression_ratio: stats.compression_ratio,
            no_speech_prob: stats.no_speech_prob,
            words,
        };
        if (self.on_progress)(Progress::Segment(&seg)).is_break() {
            return Err(SpeechError::Cancelled);
        }
        self.list.push(seg);
        Ok(())
    }

    /// The transcript: the segments' texts joined (each starts with its own space) and trimmed.
    pub fn finish(self, language: String, duration: f64) -> Transcript {
        let text = self.list.iter().map(|s| s.text.as_str()).collect::<String>().trim().to_string();
        Transcript { text, language, duration, segments: self.list }
    }
}
