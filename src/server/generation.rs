//! One request's generation, as the handlers see it: submits its sequences
//! (n per prompt) to the worker, then turns their token events into text
//! deltas per choice: incremental detokenization, stop strings (text that could
//! start one is held back; a match ends the choice and cancels its sequence by
//! dropping the receiver), echo, logprobs with text offsets, usage.
//! Streaming and non-streaming responses are both built from `next()`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::unbounded_channel;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::{StreamExt, StreamMap};

use super::api::Usage;
use super::error::ApiError;
use super::validate::Checked;
use crate::text::grammar::Constraint;
use crate::text::stop::StopMatcher;
use crate::text::tokenizer::StreamDecoder;
use crate::text::{TextTokenizer, TokenizerError};
use crate::worker::msg::{FinishReason, SeqEvent, TokenLogprob, ValidGenerate, ValidSequence};
use crate::worker::{ModelEntry, WorkerHandle};

pub struct Prompt {
    pub tokens: Vec<u32>,
    /// The text echoed back (`echo`): the prompt as sent, or decoded from ids.
    pub text: String,
    pub max_tokens: usize,
}

pub struct GenerationSpec {
    pub prompts: Vec<Prompt>,
    pub checked: Checked,
    /// Alternatives per token when logprobs are requested.
    pub logprobs: Option<usize>,
    pub echo: bool,
    pub received: Instant,
    pub timeout: Duration,
    /// The grammar every choice is held to (structured output), at its start.
    pub constraint: Option<Constraint>,
}

/// One token of output with its logprob details.
#[derive(Debug, Clone)]
pub struct TokenInfo {
    /// The token's bytes as text (`TextTokenizer::token_bytes`: escaped where not whole UTF-8).
    pub text: String,
    pub bytes: Vec<u8>,
    /// None for the first prompt token (nothing predicts it).
    pub logprob: Option<f32>,
    /// The alternatives: text, bytes, logprob.
    pub top: Vec<(String, Vec<u8>, f32)>,
    /// Characters before this token in the choice's text (echo included).
    pub offset: usize,
}

#[derive(Debug)]
pub enum GenEvent {
    Delta { index: usize, text: String, tokens: Vec<TokenInfo> },
    Finish { index: usize, reason: &'static str },
}

struct Choice {
    decoder: StreamDecoder,
    ids: Vec<u32>,
    /// Everything the decoder released, before stop-string handling.
    decoded: String,
    decoded_chars: usize,
    /// Characters of echoed prompt text in front of the output.
    base_chars: usize,
    stop: StopMatcher,
    finished: bool,
    /// Echo text waiting for the prompt logprobs to arrive.
    echo: Option<(String, Vec<u32>)>,
    /// Shared with the worker's sequence (`ValidSequence::stopped`).
    stopped: Arc<AtomicBool>,
}

pub struct Generation {
    tokenizer: Arc<TextTokenizer>,
    streams: StreamMap<usize, UnboundedReceiverStream<SeqEvent>>,
    choices: Vec<Choice>,
    queued: VecDeque<GenEvent>,
    deadline: tokio::time::Instant,
    prompt_tokens: usize,
    completion_tokens: usize,
    /// Prompt tokens the worker took from its prefix cache.
    cached_tokens: usize,
}

fn tokenizer_error(e: TokenizerError) -> ApiError {
    ApiError::Internal(format!("detokenization failed: {e}"))
}

impl Generation {
    /// Queues every sequence at once (all or nothing: 429 when they don't fit).
    pub fn start(handle: &WorkerHandle, entry: &ModelEntry, spec: GenerationSpec) -> Result<Self, ApiError> {
        let n = spec.checked.n;
        let mut sequences = Vec::with_capacity(spec.prompts.len() * n);
        let mut streams = StreamMap::new();
        let mut choices = Vec::new();
        let mut queued = VecDeque::new();
        let prompt_logprobs = spec.echo && spec.logprobs.is_some();
        for prompt in &spec.prompts {
            for j in 0..n {
                let index = choices.len();
                let (tx, rx) = unbounded_channel();
                let stopped = Arc::new(AtomicBool::new(false));
                let mut sampling = spec.checked.sampling.clone();
                // The n choices of a seeded request differ from each other, yet repeat across runs;
                // choice 0 keeps the seed itself, the others a mix of it (seed + j would make
                // seed 43's first choice seed 42's second).
                sampling.seed = sampling.seed.map(|s| if j == 0 { s } else { choice_seed(s, j as u64) });
                sequences.push(ValidSequence {
                    prompt: prompt.tokens.clone(),
                    sampling,
                    max_tokens: prompt.max_tokens,
                    logprobs: spec.logprobs,
                    prompt_logprobs,
                    ignore_eos: spec.checked.ignore_eos,
                    cache_prompt: spec.checked.cache_prompt,
                    events: tx,
                    stopped: stopped.clone(),
                    constraint: spec.constraint.as_ref().map(Constraint::fork),
                });
                streams.insert(index, UnboundedReceiverStream::new(rx));
                let mut choice = Choice {
                    decoder: StreamDecoder::default(),
                    ids: Vec::new(),
                    decoded: String::new(),
                    decoded_chars: 0,
                    base_chars: 0,
                    stop: StopMatcher::new(spec.checked.stop.clone()),
                    finished: false,
                    echo: None,
                    stopped,
                };
                if spec.echo {
                    choice.base_chars = prompt.text.chars().count();
                    if prompt_logprobs {
                        choice.echo = Some((prompt.text.clone(), prompt.tokens.clone()));
                    } else {
                        queued.push_back(GenEvent::Delta { index, text: prompt.text.clone(), tokens: Vec::new() });
                    }
                }
                choices.push(choice);
            }
        }
        handle.submit(ValidGenerate { model: entry.index, sequences, received: spec.received })?;
        Ok(Generation {
            tokenizer: entry.tokenizer.clone(),
            streams,
            choices,
            queued,
            deadline: tokio::time::Instant::now() + spec.timeout,
            prompt_tokens: spec.prompts.iter().map(|p| p.tokens.len()).sum(),
            completion_tokens: 0,
            cached_tokens: 0,
        })
    }

    pub fn choices(&self) -> usize {
        self.choices.len()
    }

    pub fn usage(&self) -> Usage {
        Usage::new(self.prompt_tokens, self.completion_tokens, self.cached_tokens)
    }

    /// The next delta or finish; None when every choice finished. After an
    /// error every sequence is cancelled.
    pub async fn next(&mut self) -> Option<Result<GenEvent, ApiError>> {
        loop {
            if let Some(ev) = self.queued.pop_front() {
                return Some(Ok(ev));
            }
            if self.streams.is_empty() {
                return self.choices.iter().any(|c| !c.finished).then(|| {
                    self.choices.iter_mut().for_each(|c| c.finished = true);
                    Err(ApiError::Internal("the worker dropped a sequence without finishing it".into()))
                });
            }
            let item = match tokio::time::timeout_at(self.deadline, self.streams.next()).await {
                Ok(item) => item,
                Err(_) => return Some(Err(self.abort(ApiError::Timeout))),
            };
            let Some((index, event)) = item else { continue };
            if let Err(e) = self.on_event(index, event) {
                return Some(Err(self.abort(e)));
            }
        }
    }

    /// Runs to the end; returns each choice's text, tokens and finish reason.
    pub async fn collect(mut self) -> Result<(Vec<ChoiceResult>, Usage), ApiError> {
        let mut out: Vec<ChoiceResult> = (0..self.choices.len()).map(|_| ChoiceResult::default()).collect();
        while let Some(ev) = self.next().await {
            match ev? {
                GenEvent::Delta { index, text, tokens } => {
                    out[index].text.push_str(&text);
                    out[index].tokens.extend(tokens);
                }
                GenEvent::Finish { index, reason } => out[index].finish_reason = reason,
            }
        }
        Ok((out, self.usage()))
    }

    fn abort(&mut self, e: ApiError) -> ApiError {
        // Dropping the receivers cancels the sequences in the worker.
        self.streams = StreamMap::new();
        self.queued.clear();
        self.choices.iter_mut().for_each(|c| c.finished = true);
        e
    }

    fn on_event(&mut self, index: usize, event: SeqEvent) -> Result<(), ApiError> {
        let tok = self.tokenizer.clone();
        let Some(c) = self.choices.get_mut(index) else { return Ok(()) };
        if c.finished {
            return Ok(());
        }
        match event {
            SeqEvent::PromptCached { tokens } => self.cached_tokens += tokens,
            SeqEvent::PromptLogprobs(lps) => {
                if let Some((text, ids)) = c.echo.take() {
                    let tokens = prompt_token_infos(&tok, &ids, &lps).map_err(tokenizer_error)?;
                    self.queued.push_back(GenEvent::Delta { index, text, tokens });
                }
            }
            SeqEvent::Token { id, logprob } => {
                self.completion_tokens += 1;
                c.ids.push(id);
                let piece = c.decoder.push(&tok, id).map_err(tokenizer_error)?;
                let offset = c.base_chars + c.decoded_chars;
                c.decoded.push_str(&piece);
                c.decoded_chars += piece.chars().count();
                let released = c.stop.push(&piece);
                let tokens = match logprob {
                    Some(lp) => vec![token_info(&tok, id, &lp, offset).map_err(tokenizer_error)?],
                    None => Vec::new(),
                };
                if !released.text.is_empty() || !tokens.is_empty() {
                    self.queued.push_back(GenEvent::Delta { index, text: released.text, tokens });
                }
                if released.stopped {
                    c.stopped.store(true, Ordering::Release);
                    self.finish(index, "stop");
                }
            }
            SeqEvent::Finished { reason } => {
                // The stream decoder holds back text that may be an incomplete
                // character; at the end the full decode says what it was.
                let full = tok.decode(&c.ids).map_err(tokenizer_error)?;
                let tail = full.strip_prefix(c.decoded.as_str()).unwrap_or_default();
                let released = c.stop.push(tail);
                let mut text = released.text;
                if !released.stopped {
                    text.push_str(&c.stop.finish());
                }
                if !text.is_empty() {
                    self.queued.push_back(GenEvent::Delta { index, text, tokens: Vec::new() });
                }
                let reason = match (released.stopped, reason) {
                    (true, _) | (false, FinishReason::Eos | FinishReason::Complete) => "stop",
                    (false, FinishReason::Length) => "length",
                };
                self.finish(index, reason);
            }
            SeqEvent::Failed(e) => return Err(e.into()),
        }
        Ok(())
    }

    fn finish(&mut self, index: usize, reason: &'static str) {
        self.choices[index].finished = true;
        self.streams.remove(&index);
        self.queued.push_back(GenEvent::Finish { index, reason });
    }
}

#[derive(Debug, Default)]
pub struct ChoiceResult {
    pub text: String,
    pub tokens: Vec<TokenInfo>,
    pub finish_reason: &'static str,
}

/// SplitMix64's finalizer over (seed, choice): unrelated streams for neighbouring seeds.
fn choice_seed(seed: u64, choice: u64) -> u64 {
    let mut z = seed ^ choice.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn token_info(tok: &TextTokenizer, id: u32, lp: &TokenLogprob, offset: usize) -> Result<TokenInfo, TokenizerError> {
    let top = lp
        .top
        .iter()
        .map(|&(t, l)| tok.token_bytes(t).map(|(text, bytes)| (text, bytes, l)))
        .collect::<Result<_, TokenizerError>>()?;
    let (text, bytes) = tok.token_bytes(id)?;
    Ok(TokenInfo { text, bytes, logprob: Some(lp.logprob), top, offset })
}

/// Token infos of an echoed prompt; offsets follow the incremental decode.
fn prompt_token_infos(
    tok: &TextTokenizer,
    ids: &[u32],
    lps: &[Option<TokenLogprob>],
) -> Result<Vec<TokenInfo>, TokenizerError> {
    let mut decoder = StreamDecoder::default();
    let mut chars = 0;
    let mut out = Vec::with_capacity(ids.len());
    for (i, &id) in ids.iter().enumerate() {
        let info = match lps.get(i).and_then(Option::as_ref) {
            Some(lp) => token_info(tok, id, lp, chars)?,
            None => {
                let (text, bytes) = tok.token_bytes(id)?;
                TokenInfo { text, bytes, logprob: None, top: Vec::new(), offset: chars }
            }
        };
        out.push(info);
        chars += decoder.push(tok, id)?.chars().count();
    }
    Ok(out)
}
