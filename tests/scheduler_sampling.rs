//! The scheduler hands each sequence's sampler its prompt: the repetition penalty covers the
//! prompt's tokens, not only the generated ones (as transformers and vLLM apply it). Checked over a
//! fake `TextBackend` whose logits never change, so any change of choice is the penalty's.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use gerbil::text::sampling::SamplingParams;
use gerbil::worker::backend::{BackendError, Slot, TextBackend};
use gerbil::worker::handle::QueueCounter;
use gerbil::worker::msg::{SeqEvent, ValidGenerate, ValidSequence};
use gerbil::worker::scheduler::Scheduler;
use gerbil::worker::Metrics;
use tokio::sync::mpsc::unbounded_channel;

/// Token 5 is the model's favourite, token 6 a close second, the rest far behind; token 0 is EOS.
const LOGITS: [f32; 8] = [-9.0, -1.0, -1.0, -1.0, -1.0, 2.0, 1.5, -1.0];

struct Fixed;

impl TextBackend for Fixed {
    fn max_slots(&self) -> usize {
        1
    }
    fn max_context(&self) -> usize {
        64
    }
    fn prefill(&mut self, _slot: Slot, _tokens: &[u32]) -> Result<(), BackendError> {
        Ok(())
    }
    fn prefill_all_logits(&mut self, _slot: Slot, _tokens: &[u32]) -> Result<Vec<f32>, BackendError> {
        Err(BackendError::Batch("not used".into()))
    }
    fn decode(&mut self, _batch: &[(Slot, u32)]) -> Result<(), BackendError> {
        Ok(())
    }
    fn logits(&mut self, _slot: Slot) -> Result<Vec<f32>, BackendError> {
        Ok(LOGITS.to_vec())
    }
    fn greedy_tokens(&mut self, slots: &[Slot]) -> Vec<Result<u32, BackendError>> {
        slots.iter().map(|_| Ok(5)).collect()
    }
    fn release(&mut self, _slot: Slot) {}
}

/// The greedy tokens of one sequence with this prompt and repetition penalty.
fn generate(prompt: Vec<u32>, repetition_penalty: f32) -> Vec<u32> {
    let metrics = Arc::new(Metrics::new());
    let queue = Arc::new(QueueCounter::new(8, metrics.clone()));
    let mut sched = Scheduler::new("fake".into(), Box::new(Fixed), vec![0], 512, queue, metrics);
    let (tx, mut rx) = unbounded_channel();
    let seq = ValidSequence {
        prompt,
        sampling: SamplingParams { repetition_penalty, ..SamplingParams::greedy() },
        max_tokens: 3,
        logprobs: None,
        prompt_logprobs: false,
        ignore_eos: false,
        cache_prompt: true,
        events: tx,
        stopped: Arc::new(AtomicBool::new(false)),
        constraint: None,
    };
    sched.enqueue(ValidGenerate { model: 0, sequences: vec![seq], received: Instant::now() });
    for _ in 0..100 {
        if sched.is_idle() {
            break;
        }
        sched.step();
    }
    let mut tokens = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        if let SeqEvent::Token { id, .. } = ev {
            tokens.push(id);
        }
    }
    tokens
}

#[test]
fn the_repetition_penalty_covers_the_prompt() {
    // Off: the favourite every time.
    assert_eq!(generate(vec![1, 5, 2], 1.0), [5, 5, 5]);
    // 5 is in the prompt: 2.0 / 2 = 1.0 loses to 6's 1.5; once 6 is generated (0.75), 5 wins, and
    // from then on both are penalised (1.0 against 0.75).
    assert_eq!(generate(vec![1, 5, 2], 2.0), [6, 5, 5]);
    // 5 is not in the prompt: the first token is the favourite; then 5 is penalised (1.0 < 1.5).
    assert_eq!(generate(vec![1, 2, 3], 2.0), [5, 6, 5]);
}
