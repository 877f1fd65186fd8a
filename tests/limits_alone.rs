//! Each limit that ends a generation, tested where it is the ONLY thing that can end it, so that
//! losing one check is not hidden by another stopping the same request:
//! - max_tokens alone: a context far larger, no stop strings, and no end-of-sequence (ignore_eos,
//!   or a model that never produces it);
//! - the context window alone: max_tokens absent or far larger;
//! - a stop string completed by the very token the limit ends on, and characters whose bytes are
//!   still held back (split over tokens) when the limit comes.
//!
//! The lowest layer first: the worker's `Scheduler` (where max_tokens and the context end a
//! sequence, src/worker/scheduler.rs) over a fake `TextBackend` that checks the context itself and
//! counts what it was fed, on both of its decode paths (chained greedy steps, and one step at a time
//! with CPU sampling). Then over HTTP against the tiny fixture model: the server caps max_tokens by
//! the context left (src/server/validate.rs `fit_max_tokens`), and turns the worker's events into
//! text and a finish_reason (src/server/generation.rs).

mod http_support;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use gerbil::text::sampling::SamplingParams;
use gerbil::worker::backend::{BackendError, Slot, TextBackend};
use gerbil::worker::handle::QueueCounter;
use gerbil::worker::msg::{FinishReason, SeqEvent, ValidGenerate, ValidSequence};
use gerbil::worker::scheduler::Scheduler;
use gerbil::worker::Metrics;
use http_support::*;
use serde_json::{json, Value};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

// ---------------------------------------------------------------------------------------------
// The scheduler over a fake backend.

const VOCAB: usize = 50;
const EOS: u32 = 0;

/// What the fake backend saw.
#[derive(Default, Debug, Clone)]
struct Seen {
    /// The most tokens (prompt + fed back) any slot ever held.
    peak: usize,
    /// Steps submitted through `decode_chained`.
    chained: usize,
}

/// A backend whose "model" always prefers one token (EOS, or a non-EOS token that depends on the
/// position), holds at most `context` tokens per slot, and fails like the real one past it.
struct Fake {
    context: usize,
    lens: Vec<usize>,
    eos_always: bool,
    chain: bool,
    seen: Arc<Mutex<Seen>>,
}

impl Fake {
    fn favourite(&self, slot: Slot) -> u32 {
        if self.eos_always {
            EOS
        } else {
            1 + (self.lens[slot] % (VOCAB - 1)) as u32
        }
    }

    fn feed(&mut self, slot: Slot, n: usize) -> Result<(), BackendError> {
        let len = self.lens.get_mut(slot).ok_or(BackendError::NoSlot(slot))?;
        *len += n;
        let mut seen = self.seen.lock().unwrap();
        seen.peak = seen.peak.max(*len);
        if *len > self.context {
            return Err(BackendError::Batch(format!(
                "slot {slot} holds {len} tokens, past the context {}",
                self.context
            )));
        }
        Ok(())
    }
}

impl TextBackend for Fake {
    fn max_slots(&self) -> usize {
        self.lens.len()
    }

    fn max_context(&self) -> usize {
        self.context
    }

    fn prefill(&mut self, slot: Slot, tokens: &[u32]) -> Result<(), BackendError> {
        self.feed(slot, tokens.len())
    }

    fn prefill_all_logits(&mut self, _slot: Slot, _tokens: &[u32]) -> Result<Vec<f32>, BackendError> {
        Err(BackendError::Batch("no prompt logprobs in these tests".into()))
    }

    fn decode(&mut self, batch: &[(Slot, u32)]) -> Result<(), BackendError> {
        batch.iter().try_for_each(|&(slot, _)| self.feed(slot, 1))
    }

    fn logits(&mut self, slot: Slot) -> Result<Vec<f32>, BackendError> {
        // Sampling picks the favourite too (the others are e^-40 behind), through the CPU path.
        let mut l = vec![-40.0; VOCAB];
        l[self.favourite(slot) as usize] = 0.0;
        Ok(l)
    }

    fn greedy_tokens(&mut self, slots: &[Slot]) -> Vec<Result<u32, BackendError>> {
        slots.iter().map(|&s| Ok(self.favourite(s))).collect()
    }

    fn release(&mut self, slot: Slot) {
        self.lens[slot] = 0;
    }

    fn decode_chained(&mut self, slots: &[Slot]) -> Result<Option<Vec<u32>>, BackendError> {
        if !self.chain {
            return Ok(None);
        }
        self.seen.lock().unwrap().chained += 1;
        let ids: Vec<u32> = slots.iter().map(|&s| self.favourite(s)).collect();
        for &s in slots {
            self.feed(s, 1)?;
        }
        Ok(Some(ids))
    }
}

struct Setup {
    context: usize,
    slots: usize,
    eos_always: bool,
    chain: bool,
}

struct Seq {
    prompt: usize,
    max_tokens: usize,
    sampled: bool,
    ignore_eos: bool,
}

#[derive(Debug, PartialEq)]
struct Outcome {
    tokens: Vec<u32>,
    finish: Option<FinishReason>,
    failed: Option<String>,
}

/// Runs every sequence to its end (queued together) and returns each one's events, plus what
/// the backend saw.
fn run(setup: Setup, seqs: &[Seq]) -> (Vec<Outcome>, Seen) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let fake = Fake {
        context: setup.context,
        lens: vec![0; setup.slots],
        eos_always: setup.eos_always,
        chain: setup.chain,
        seen: seen.clone(),
    };
    let metrics = Arc::new(Metrics::new());
    let queue = Arc::new(QueueCounter::new(64, metrics.clone()));
    let mut sched = Scheduler::new("fake".into(), Box::new(fake), vec![EOS], 512, queue, metrics);
    let mut rxs: Vec<UnboundedReceiver<SeqEvent>> = Vec::new();
    let sequences = seqs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (tx, rx) = unbounded_channel();
            rxs.push(rx);
            let sampling = if s.sampled {
                SamplingParams { temperature: 1.0, seed: Some(i as u64 + 1), ..Default::default() }
            } else {
                SamplingParams::greedy()
            };
            ValidSequence {
                prompt: (0..s.prompt).map(|t| 1 + (t % (VOCAB - 1)) as u32).collect(),
                sampling,
                max_tokens: s.max_tokens,
                logprobs: None,
                prompt_logprobs: false,
                ignore_eos: s.ignore_eos,
                cache_prompt: true,
                events: tx,
                stopped: Arc::new(AtomicBool::new(false)),
                constraint: None,
            }
        })
        .collect();
    sched.enqueue(ValidGenerate { model: 0, sequences, received: Instant::now() });
    let mut steps = 0;
    while !sched.is_idle() {
        sched.step();
        steps += 1;
        assert!(steps < 10_000, "the scheduler never went idle");
    }
    let outcomes = rxs
        .iter_mut()
        .map(|rx| {
            let mut o = Outcome { tokens: Vec::new(), finish: None, failed: None };
            while let Ok(ev) = rx.try_recv() {
                assert!(o.finish.is_none() && o.failed.is_none(), "an event after the end: {ev:?}");
                match ev {
                    SeqEvent::Token { id, .. } => o.tokens.push(id),
                    SeqEvent::Finished { reason } => o.finish = Some(reason),
                    SeqEvent::Failed(e) => o.failed = Some(e.to_string()),
                    SeqEvent::PromptLogprobs(_) => panic!("no prompt logprobs were asked for"),
                    SeqEvent::PromptCached { tokens } => assert_eq!(tokens, 0, "this backend reuses nothing"),
                }
            }
            o
        })
        .collect();
    let seen = seen.lock().unwrap().clone();
    (outcomes, seen)
}

/// Both decode paths: chained greedy steps, and greedy one step at a time (a backend that cannot
/// chain); plus CPU sampling (never chained).
const PATHS: [(bool, bool, &str); 3] =
    [(true, false, "chained greedy"), (false, false, "greedy"), (false, true, "sampled")];

#[test]
fn max_tokens_alone_ends_the_sequence() {
    for (chain, sampled, path) in PATHS {
        for max_tokens in [1, 2, 3, 9] {
            let setup = Setup { context: 4096, slots: 1, eos_always: false, chain };
            let (out, seen) = run(setup, &[Seq { prompt: 5, max_tokens, sampled, ignore_eos: false }]);
            let o = &out[0];
            assert_eq!(o.failed, None, "{path}");
            assert_eq!(o.tokens.len(), max_tokens, "{path}, max_tokens {max_tokens}: tokens generated");
            assert_eq!(o.finish, Some(FinishReason::Length), "{path}, max_tokens {max_tokens}");
            assert!(o.tokens.iter().all(|&t| t != EOS));
            // Every generated token but the last was fed back; the last one never is (no decode
            // step is spent past max_tokens, chained or not).
            assert_eq!(seen.peak, 5 + max_tokens - 1, "{path}, max_tokens {max_tokens}: tokens the backend held");
            if chain && max_tokens == 9 {
                assert!(seen.chained >= 5, "the greedy steps were not chained ({})", seen.chained);
            }
        }
    }
}

/// ignore_eos with a model that produces nothing but EOS: only max_tokens ends it, and the EOS
/// tokens are output like any other.
#[test]
fn max_tokens_alone_ends_a_sequence_ignoring_eos() {
    for (chain, sampled, path) in PATHS {
        let setup = Setup { context: 4096, slots: 1, eos_always: true, chain };
        let (out, seen) = run(setup, &[Seq { prompt: 4, max_tokens: 7, sampled, ignore_eos: true }]);
        assert_eq!(
            out[0],
            Outcome { tokens: vec![EOS; 7], finish: Some(FinishReason::Length), failed: None },
            "{path}"
        );
        assert_eq!(seen.peak, 4 + 6, "{path}");
        // The same without ignore_eos: the first token ends it, and is not output.
        let setup = Setup { context: 4096, slots: 1, eos_always: true, chain };
        let (out, _) = run(setup, &[Seq { prompt: 4, max_tokens: 7, sampled, ignore_eos: false }]);
        assert_eq!(out[0], Outcome { tokens: vec![], finish: Some(FinishReason::Eos), failed: None }, "{path}");
    }
}

/// max_tokens far beyond the context: the context ends the sequence once its KV cache is full.
/// The last generated token needs no room (it is never fed back), so a prompt of P tokens in a
/// context of C gets C - P + 1 tokens, and the backend holds exactly C at the end, never more.
/// (The HTTP layer is stricter: it caps max_tokens at C - P; see the HTTP tests below.)
#[test]
fn the_context_alone_ends_the_sequence() {
    for (chain, sampled, path) in PATHS {
        for (context, prompt) in [(20, 5), (8, 7), (9, 1)] {
            let setup = Setup { context, slots: 1, eos_always: false, chain };
            let (out, seen) = run(setup, &[Seq { prompt, max_tokens: 10_000, sampled, ignore_eos: false }]);
            let o = &out[0];
            assert_eq!(o.failed, None, "{path}, context {context}, prompt {prompt}");
            assert_eq!(o.tokens.len(), context - prompt + 1, "{path}, context {context}, prompt {prompt}: tokens");
            assert_eq!(o.finish, Some(FinishReason::Length), "{path}, context {context}, prompt {prompt}");
            assert_eq!(seen.peak, context, "{path}: tokens the backend held at most");
        }
    }
}

/// Two sequences decoded together, each ended by its own limit while the other goes on.
#[test]
fn each_sequence_of_a_batch_ends_at_its_own_limit() {
    for (chain, sampled, path) in PATHS {
        let setup = Setup { context: 30, slots: 2, eos_always: false, chain };
        let seqs = [
            Seq { prompt: 6, max_tokens: 4, sampled, ignore_eos: false },
            Seq { prompt: 10, max_tokens: 10_000, sampled, ignore_eos: false },
        ];
        let (out, seen) = run(setup, &seqs);
        assert_eq!(
            (out[0].tokens.len(), out[0].finish, &out[0].failed),
            (4, Some(FinishReason::Length), &None),
            "{path}"
        );
        assert_eq!(
            (out[1].tokens.len(), out[1].finish, &out[1].failed),
            (21, Some(FinishReason::Length), &None),
            "{path}"
        );
        assert_eq!(seen.peak, 30, "{path}");
    }
}

// ---------------------------------------------------------------------------------------------
// Over HTTP, against the fixture model (context 256).

/// `config()` with a server max_tokens above the context, so the context is what caps a request.
fn server() -> &'static TestServer {
    static S: OnceLock<TestServer> = OnceLock::new();
    S.get_or_init(|| {
        let mut cfg = config();
        cfg.limits.max_tokens = 4096;
        start(cfg)
    })
}

fn ok(path: &str, body: &Value) -> Value {
    let (status, v) = server().post(path, body);
    assert_eq!(status, 200, "{v}");
    v
}

fn finish_reason(v: &Value) -> &str {
    v["choices"][0]["finish_reason"].as_str().expect("finish_reason")
}

fn completion_tokens(v: &Value) -> u64 {
    v["usage"]["completion_tokens"].as_u64().expect("completion_tokens")
}

/// Streamed: (text, finish_reason, completion_tokens from the usage chunk).
fn streamed(path: &str, body: &Value) -> (String, String, u64) {
    let mut body = body.clone();
    body["stream"] = json!(true);
    body["stream_options"] = json!({"include_usage": true});
    let chunks = server().stream(path, &body);
    let usage = chunks.iter().rev().find(|c| c.get("usage").is_some_and(|u| u.is_object())).expect("usage chunk");
    let n = completion_tokens(usage);
    let (texts, reasons) = stream_texts(&chunks);
    assert_eq!((texts.len(), reasons.len()), (1, 1), "{chunks:?}");
    (texts[0].clone(), reasons[0].clone(), n)
}

/// The fixture's greedy continuation of PROMPT, EOS ignored: (ids, text of the first k ids).
fn greedy_ids(n: usize) -> (Vec<u32>, impl Fn(usize) -> String) {
    let r = Reference::get();
    let ids = r.greedy(&r.encode(PROMPT, true), n, true);
    assert_eq!(ids.len(), n);
    let prefix = ids.clone();
    (ids, move |k: usize| r.decode(&prefix[..k]))
}

#[test]
fn http_max_tokens_alone_ends_the_completion() {
    let (_, text) = greedy_ids(7);
    for max_tokens in [1usize, 7] {
        // Greedy: the engine's own first max_tokens tokens, to the character.
        let body =
            json!({"model": MODEL, "prompt": PROMPT, "max_tokens": max_tokens, "temperature": 0, "ignore_eos": true});
        let v = ok("/v1/completions", &body);
        assert_eq!(completion_tokens(&v), max_tokens as u64, "{v}");
        assert_eq!(finish_reason(&v), "length");
        assert_eq!(texts(&v), vec![text(max_tokens)]);
        assert_eq!(streamed("/v1/completions", &body), (text(max_tokens), "length".into(), max_tokens as u64));
        // Sampled (the CPU path), two choices: each exactly max_tokens.
        let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": max_tokens, "temperature": 1.0, "seed": 4, "n": 2, "ignore_eos": true});
        let v = ok("/v1/completions", &body);
        assert_eq!(completion_tokens(&v), 2 * max_tokens as u64, "{v}");
        for c in v["choices"].as_array().unwrap() {
            assert_eq!(c["finish_reason"], "length", "{v}");
        }
    }
    // Chat, through max_completion_tokens.
    let body = json!({"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "max_completion_tokens": 5, "temperature": 0, "ignore_eos": true});
    let v = ok("/v1/chat/completions", &body);
    assert_eq!((completion_tokens(&v), finish_reason(&v)), (5, "length"), "{v}");
    let (_, reason, n) = streamed("/v1/chat/completions", &body);
    assert_eq!((n, reason.as_str()), (5, "length"));
}

/// A chat request that does not say max_tokens, on a server whose max_tokens is above the
/// context: the context left after the prompt is what it gets, to the token.
#[test]
fn http_context_alone_ends_the_completion() {
    // A long prompt, so the context fills in a few steps.
    let content = [PROMPT; 14].join(" ");
    let body = json!({"model": MODEL, "messages": [{"role": "user", "content": content}], "temperature": 0, "ignore_eos": true});
    let v = ok("/v1/chat/completions", &body);
    let prompt = v["usage"]["prompt_tokens"].as_u64().unwrap();
    assert!((150..250).contains(&prompt), "prompt of {prompt} tokens: adjust the test");
    assert_eq!(completion_tokens(&v), CONTEXT as u64 - prompt, "{v}");
    assert_eq!(finish_reason(&v), "length");
    let (_, reason, n) = streamed("/v1/chat/completions", &body);
    assert_eq!((n, reason.as_str()), (CONTEXT as u64 - prompt, "length"));
    // max_tokens exactly the room left: all of it; one more: refused, naming the context.
    let r = Reference::get();
    let ids: Vec<u32> = r.encode(&content, true);
    let room = CONTEXT - ids.len();
    assert!(room > 1 && room < 100, "room {room}");
    let body = json!({"model": MODEL, "prompt": ids, "max_tokens": room, "temperature": 0, "ignore_eos": true});
    let v = ok("/v1/completions", &body);
    assert_eq!((completion_tokens(&v), finish_reason(&v)), (room as u64, "length"), "{v}");
    for (path, ask, field, prompt_field) in [
        ("/v1/completions", room + 1, "max_tokens", json!({"prompt": ids})),
        ("/v1/completions", 4000, "max_tokens", json!({"prompt": ids})),
        ("/v1/chat/completions", 4000, "max_tokens", json!({"messages": [{"role": "user", "content": content}]})),
        (
            "/v1/chat/completions",
            4000,
            "max_completion_tokens",
            json!({"messages": [{"role": "user", "content": content}]}),
        ),
    ] {
        let mut body = json!({"model": MODEL, field: ask, "ignore_eos": true});
        for (k, v) in prompt_field.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, v) = server().post(path, &body);
        assert_eq!(status, 400, "{path} {field} {ask}: {v}");
        assert_eq!(v["error"]["type"], "invalid_request_error", "{v}");
        assert_eq!(v["error"]["param"], field, "{v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(msg.contains(&format!("context holds {CONTEXT} tokens")), "{msg}");
        assert!(msg.contains(&format!("asks for {ask} more")), "{msg}");
    }
    // A prompt that fills the context by itself.
    let full: Vec<u32> = (0..CONTEXT as u32).map(|i| 3 + i % 300).collect();
    let (status, v) = server().post("/v1/completions", &json!({"model": MODEL, "prompt": full, "max_tokens": 1}));
    assert_eq!(status, 400, "{v}");
    assert_eq!((&v["error"]["type"], &v["error"]["param"]), (&json!("invalid_request_error"), &json!("prompt")));
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains(&format!("context holds {CONTEXT}")) && msg.contains(&format!("{CONTEXT} tokens")), "{msg}");
}

fn completion(max_tokens: usize, stop: &[&str]) -> Value {
    json!({"model": MODEL, "prompt": PROMPT, "max_tokens": max_tokens, "temperature": 0, "ignore_eos": true, "stop": stop})
}

/// Both the whole and the streamed response: (text, finish_reason, completion_tokens).
fn both(body: &Value) -> [(String, String, u64); 2] {
    let v = ok("/v1/completions", body);
    let whole = (texts(&v)[0].clone(), finish_reason(&v).to_string(), completion_tokens(&v));
    [whole, streamed("/v1/completions", body)]
}

/// A stop string spanning the last two tokens that max_tokens allows: it is a stop (not the
/// length), and its text is cut; one token fewer and the part of it already seen is output.
#[test]
fn http_stop_string_completed_on_the_last_allowed_token() {
    let (ids, text) = greedy_ids(40);
    let k = (3..=ids.len())
        .find(|&k| {
            let (before, now) = (text(k - 1), text(k));
            let added = now.strip_prefix(before.as_str()).unwrap_or_default();
            let Some(last) = before.chars().last() else { return false };
            let stop = format!("{last}{added}");
            !added.is_empty()
                && !stop.contains('\u{FFFD}')
                && now.find(stop.as_str()) == Some(before.len() - last.len_utf8())
        })
        .expect("a token that completes a 2-token stop string in the greedy text");
    let (before, now) = (text(k - 1), text(k));
    let last = before.chars().last().unwrap();
    let stop = format!("{last}{}", &now[before.len()..]);
    let cut = now[..before.len() - last.len_utf8()].to_string();
    eprintln!("stop {stop:?} completed by token {k} of {:?}", now);
    let want = (cut, "stop".to_string(), k as u64);
    assert_eq!(both(&completion(k, &[&stop, "\u{1F600}never"])), [want.clone(), want]);
    // Ended by the length one token earlier: the held first character of the stop string is output.
    let want = (before.clone(), "length".to_string(), k as u64 - 1);
    assert_eq!(both(&completion(k - 1, &[&stop])), [want.clone(), want]);
}

/// The last token max_tokens allows leaves a character incomplete: its bytes, held back while
/// the next token might complete them, are output at the end as the full decode has them (U+FFFD,
/// as a lossy UTF-8 decode gives), not dropped. A stop string completed only by those held bytes
/// still ends the choice as a stop, without its text.
#[test]
fn http_utf8_bytes_held_back_at_the_limit() {
    let (ids, text) = greedy_ids(200);
    let bytes = |k: usize| Reference::get().tokenizer().token_bytes(ids[k - 1]).expect("token bytes").1;
    let k = (2..=ids.len())
        .find(|&k| {
            let (before, now) = (text(k - 1), text(k));
            let held = now.strip_prefix(before.as_str()).unwrap_or_default();
            let Some(last) = before.chars().last() else { return false };
            let stop = format!("{last}{held}");
            // The token's bytes start a character that more bytes would complete (a lead byte,
            // not a stray continuation byte).
            let incomplete = std::str::from_utf8(&bytes(k)).err().is_some_and(|e| e.error_len().is_none());
            incomplete
                && last != '\u{FFFD}'
                && held.ends_with('\u{FFFD}')
                && now.find(stop.as_str()) == Some(before.len() - last.len_utf8())
        })
        .expect("a greedy token that leaves a character incomplete after a complete one");
    let (before, now) = (text(k - 1), text(k));
    let held = now[before.len()..].to_string();
    let last = before.chars().last().unwrap();
    eprintln!("token {k} (bytes {:x?}) leaves {held:?} held after {before:?}", bytes(k));
    // No stop string: the held bytes are output at the end.
    let want = (now.clone(), "length".to_string(), k as u64);
    assert_eq!(both(&completion(k, &[])), [want.clone(), want]);
    // A stop string that is not completed: what it held is output too.
    let never = format!("{last}{held}\u{1F600}");
    let want = (now.clone(), "length".to_string(), k as u64);
    assert_eq!(both(&completion(k, &[&never])), [want.clone(), want]);
    // A stop string completed by the held bytes, at the limit: a stop, and its text is cut.
    let stop = format!("{last}{held}");
    let want = (now[..before.len() - last.len_utf8()].to_string(), "stop".to_string(), k as u64);
    assert_eq!(both(&completion(k, &[&stop])), [want.clone(), want]);
}
