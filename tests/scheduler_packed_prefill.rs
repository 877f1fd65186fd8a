//! The scheduler's packed prefill (src/worker/scheduler.rs `prefill_packed`): where the backend packs
//! prompts, the prompts waiting together go in one step within the step's budget, the backend's rows
//! and its sequences, shortest rest first; every first token reaches its own client; what does not
//! fit is prefilled on later steps; prompt scoring and single prompts keep one sequence a call; a
//! failed packed step fails exactly its sequences. Over a fake `TextBackend` that logs every call.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use gerbil::text::sampling::SamplingParams;
use gerbil::worker::backend::{BackendError, Slot, TextBackend};
use gerbil::worker::handle::QueueCounter;
use gerbil::worker::msg::{FinishReason, SeqEvent, ValidGenerate, ValidSequence};
use gerbil::worker::scheduler::Scheduler;
use gerbil::worker::Metrics;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

const VOCAB: usize = 16;

#[derive(Debug, Clone, PartialEq)]
enum Call {
    Packed(Vec<(Slot, Vec<u32>)>),
    Single(Slot, Vec<u32>),
    Scoring(Slot, Vec<u32>),
}

/// Slot s's model always prefers token s + 1 (a token delivered to the wrong client shows).
struct Fake {
    log: Arc<Mutex<Vec<Call>>>,
    capacity: Option<(usize, usize)>,
    fail_packed: bool,
    context: usize,
}

impl TextBackend for Fake {
    fn max_slots(&self) -> usize {
        6
    }

    fn max_context(&self) -> usize {
        self.context
    }

    fn packed_prefill_capacity(&self) -> Option<(usize, usize)> {
        self.capacity
    }

    fn prefill_packed(&mut self, seqs: &[(Slot, &[u32])]) -> Result<(), BackendError> {
        self.log.lock().unwrap().push(Call::Packed(seqs.iter().map(|(s, t)| (*s, t.to_vec())).collect()));
        if self.fail_packed {
            return Err(BackendError::Batch("the packed step failed".into()));
        }
        Ok(())
    }

    fn prefill(&mut self, slot: Slot, tokens: &[u32]) -> Result<(), BackendError> {
        self.log.lock().unwrap().push(Call::Single(slot, tokens.to_vec()));
        Ok(())
    }

    fn prefill_all_logits(&mut self, slot: Slot, tokens: &[u32]) -> Result<Vec<f32>, BackendError> {
        self.log.lock().unwrap().push(Call::Scoring(slot, tokens.to_vec()));
        Ok(vec![0.0; tokens.len() * VOCAB])
    }

    fn decode(&mut self, _batch: &[(Slot, u32)]) -> Result<(), BackendError> {
        Ok(())
    }

    fn logits(&mut self, slot: Slot) -> Result<Vec<f32>, BackendError> {
        let mut l = vec![-40.0; VOCAB];
        l[slot + 1] = 0.0;
        Ok(l)
    }

    fn greedy_tokens(&mut self, slots: &[Slot]) -> Vec<Result<u32, BackendError>> {
        slots.iter().map(|&s| Ok(s as u32 + 1)).collect()
    }

    fn release(&mut self, _slot: Slot) {}
}

struct Request {
    prompt: Vec<u32>,
    max_tokens: usize,
    prompt_logprobs: bool,
}

fn req(prompt_len: usize, first: u32) -> Request {
    Request { prompt: (first..first + prompt_len as u32).collect(), max_tokens: 2, prompt_logprobs: false }
}

/// What each client received: its tokens, how it finished, and whether it failed.
#[derive(Debug, Default, Clone, PartialEq)]
struct Outcome {
    tokens: Vec<u32>,
    finished: Option<FinishReason>,
    failed: bool,
}

/// Runs `requests` (queued together, slots taken in order) to the end with `budget` prefill tokens a
/// step; returns the backend's prefill calls and each client's outcome.
fn serve(
    requests: Vec<Request>,
    budget: usize,
    capacity: Option<(usize, usize)>,
    fail_packed: bool,
) -> (Vec<Call>, Vec<Outcome>) {
    serve_in(requests, budget, capacity, fail_packed, 1024)
}

/// `serve` with a context window of `context` tokens.
fn serve_in(
    requests: Vec<Request>,
    budget: usize,
    capacity: Option<(usize, usize)>,
    fail_packed: bool,
    context: usize,
) -> (Vec<Call>, Vec<Outcome>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let fake = Fake { log: log.clone(), capacity, fail_packed, context };
    let metrics = Arc::new(Metrics::new());
    let queue = Arc::new(QueueCounter::new(64, metrics.clone()));
    let mut sched = Scheduler::new("fake".into(), Box::new(fake), vec![0], budget, queue, metrics);
    let mut rxs: Vec<UnboundedReceiver<SeqEvent>> = Vec::new();
    let sequences = requests
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let (tx, rx) = unbounded_channel();
            rxs.push(rx);
            ValidSequence {
                prompt: r.prompt,
                // One client samples on the CPU, the others take the GPU argmax: both paths deliver.
                sampling: if i == 1 {
                    SamplingParams { temperature: 0.5, seed: Some(7), ..Default::default() }
                } else {
                    SamplingParams::greedy()
                },
                max_tokens: r.max_tokens,
                logprobs: None,
                prompt_logprobs: r.prompt_logprobs,
                ignore_eos: false,
                cache_prompt: false,
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
        assert!(steps < 100, "the scheduler never went idle");
    }
    let outcomes = rxs
        .iter_mut()
        .map(|rx| {
            let mut o = Outcome::default();
            while let Ok(ev) = rx.try_recv() {
                match ev {
                    SeqEvent::Token { id, .. } => o.tokens.push(id),
                    SeqEvent::Finished { reason } => o.finished = Some(reason),
                    SeqEvent::Failed(_) => o.failed = true,
                    _ => {}
                }
            }
            o
        })
        .collect();
    let calls = log.lock().unwrap().clone();
    (calls, outcomes)
}

/// Every slot's prompt arrives whole, in order, over all its calls.
fn assert_prompts_whole(calls: &[Call], prompts: &[Vec<u32>]) {
    let mut got: Vec<Vec<u32>> = vec![Vec::new(); prompts.len()];
    for c in calls {
        match c {
            Call::Packed(seqs) => seqs.iter().for_each(|(s, t)| got[*s].extend(t)),
            Call::Single(s, t) | Call::Scoring(s, t) => got[*s].extend(t),
        }
    }
    assert_eq!(&got, prompts, "each prompt prefilled whole and in order");
}

fn delivered(outcomes: &[Outcome]) {
    for (s, o) in outcomes.iter().enumerate() {
        assert_eq!(o.tokens, vec![s as u32 + 1; 2], "client {s}'s tokens");
        assert_eq!(o.finished, Some(FinishReason::Length), "client {s} finished by length");
    }
}

/// Prompts of 3, 10, 1 and 6 tokens with a budget of 12: the first step packs all four, shortest rest
/// first (1, 3, 6, then 2 of the 10); the 10-token prompt's remaining 8 come alone on the next step.
#[test]
fn the_budget_alone_limits_a_packed_step() {
    let requests = vec![req(3, 100), req(10, 200), req(1, 300), req(6, 400)];
    let prompts: Vec<Vec<u32>> = requests.iter().map(|r| r.prompt.clone()).collect();
    let (calls, outcomes) = serve(requests, 12, Some((64, 8)), false);
    assert_eq!(
        calls,
        [
            Call::Packed(vec![
                (2, vec![300]),
                (0, vec![100, 101, 102]),
                (3, (400..406).collect()),
                (1, vec![200, 201])
            ]),
            Call::Single(1, (202..210).collect()),
        ]
    );
    assert_prompts_whole(&calls, &prompts);
    delivered(&outcomes);
}

/// The same prompts where the backend takes at most 5 rows a step: 1 + 3 + 1 of the 6 in the packed
/// step, then the rest of the budget (7) to the 10-token prompt alone; the next step packs what is left
/// (5 of the 6-token prompt and 3 of the 10), each within 5 rows.
#[test]
fn the_backends_rows_alone_limit_a_packed_step() {
    let requests = vec![req(3, 100), req(10, 200), req(1, 300), req(6, 400)];
    let prompts: Vec<Vec<u32>> = requests.iter().map(|r| r.prompt.clone()).collect();
    let (calls, outcomes) = serve(requests, 12, Some((5, 8)), false);
    assert_eq!(
        calls,
        [
            Call::Packed(vec![(2, vec![300]), (0, vec![100, 101, 102]), (3, vec![400])]),
            Call::Single(1, (200..207).collect()),
            Call::Packed(vec![(1, vec![207, 208, 209]), (3, vec![401, 402])]),
            Call::Single(3, vec![403, 404, 405]),
        ]
    );
    assert_prompts_whole(&calls, &prompts);
    delivered(&outcomes);
}

/// At most 2 sequences a packed step: the two shortest prompts, then the budget's rest one at a time.
#[test]
fn the_backends_sequences_alone_limit_a_packed_step() {
    let requests = vec![req(3, 100), req(10, 200), req(1, 300), req(6, 400)];
    let prompts: Vec<Vec<u32>> = requests.iter().map(|r| r.prompt.clone()).collect();
    let (calls, outcomes) = serve(requests, 40, Some((64, 2)), false);
    assert_eq!(
        calls,
        [
            Call::Packed(vec![(2, vec![300]), (0, vec![100, 101, 102])]),
            Call::Single(1, (200..210).collect()),
            Call::Single(3, (400..406).collect()),
        ]
    );
    assert_prompts_whole(&calls, &prompts);
    delivered(&outcomes);
}

/// A backend without packing prefills one sequence a call, as before.
#[test]
fn without_packing_each_prompt_is_prefilled_alone() {
    let requests = vec![req(3, 100), req(2, 200)];
    let (calls, outcomes) = serve(requests, 12, None, false);
    assert_eq!(calls, [Call::Single(0, vec![100, 101, 102]), Call::Single(1, vec![200, 201])]);
    delivered(&outcomes);
}

/// A prompt scored for its logprobs keeps its all-logits prefill; one with max_tokens 0 is packed and
/// finishes by length without a token.
#[test]
fn scoring_stays_alone_and_max_tokens_zero_ends_at_the_prompt() {
    let mut scored = req(4, 100);
    scored.prompt_logprobs = true;
    let mut echo = req(2, 300);
    echo.max_tokens = 0;
    let requests = vec![scored, req(3, 200), echo, req(5, 400)];
    let (calls, outcomes) = serve(requests, 64, Some((64, 8)), false);
    assert_eq!(
        calls,
        [
            Call::Packed(vec![(2, vec![300, 301]), (1, vec![200, 201, 202]), (3, (400..405).collect())]),
            Call::Scoring(0, (100..104).collect()),
        ]
    );
    assert_eq!(outcomes[2], Outcome { tokens: vec![], finished: Some(FinishReason::Length), failed: false });
    for s in [0, 1, 3] {
        assert_eq!(outcomes[s].tokens, vec![s as u32 + 1; 2], "client {s}'s tokens");
    }
}

/// A packed step that fails fails each of its sequences (an error event, no token), and only them.
#[test]
fn a_failed_packed_step_fails_exactly_its_sequences() {
    let mut scored = req(4, 100);
    scored.prompt_logprobs = true;
    let requests = vec![scored, req(3, 200), req(1, 300)];
    let (calls, outcomes) = serve(requests, 64, Some((64, 8)), true);
    assert_eq!(calls[0], Call::Packed(vec![(2, vec![300]), (1, vec![200, 201, 202])]));
    for s in [1, 2] {
        assert!(outcomes[s].failed && outcomes[s].tokens.is_empty(), "client {s}: {:?}", outcomes[s]);
    }
    assert!(!outcomes[0].failed, "the scored prompt was not in the failed step");
    assert_eq!(outcomes[0].tokens, vec![1, 1]);
}

/// A context window of 8 and max_tokens 10: the window alone ends each packed sequence, counting its
/// packed prompt (5 tokens: 4 generated, the last one's K/V would be position 9; 3 tokens: 6).
#[test]
fn the_context_window_alone_ends_packed_sequences() {
    let mut long = req(5, 100);
    long.max_tokens = 10;
    let mut short = req(3, 200);
    short.max_tokens = 10;
    let (calls, outcomes) = serve_in(vec![long, short], 64, Some((64, 8)), false, 8);
    assert_eq!(calls, [Call::Packed(vec![(1, vec![200, 201, 202]), (0, (100..105).collect())])]);
    assert_eq!(outcomes[0], Outcome { tokens: vec![1; 4], finished: Some(FinishReason::Length), failed: false });
    assert_eq!(outcomes[1], Outcome { tokens: vec![2; 6], finished: Some(FinishReason::Length), failed: false });
}
