//! Time to first token under load: when several requests arrive together, each one's first token
//! reaches its client as soon as ITS prompt is prefilled, not after every other prompt of the step
//! (src/worker/scheduler.rs `prefill`). Checked over a fake `TextBackend` that, each time a prefill
//! begins, looks at what every client has received so far.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use gerbil::text::sampling::SamplingParams;
use gerbil::worker::backend::{BackendError, Slot, TextBackend};
use gerbil::worker::handle::QueueCounter;
use gerbil::worker::msg::{SeqEvent, ValidGenerate, ValidSequence};
use gerbil::worker::scheduler::Scheduler;
use gerbil::worker::Metrics;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

const VOCAB: usize = 16;

/// Every client's receiver; the first tokens each one got, in order.
struct Clients {
    rxs: Vec<UnboundedReceiver<SeqEvent>>,
    tokens: Vec<Vec<u32>>,
}

impl Clients {
    fn drain(&mut self) {
        for (rx, got) in self.rxs.iter_mut().zip(&mut self.tokens) {
            while let Ok(ev) = rx.try_recv() {
                if let SeqEvent::Token { id, .. } = ev {
                    got.push(id);
                }
            }
        }
    }
}

/// For each prefill call: its slot and how many tokens each client held when it began.
type PrefillLog = Vec<(Slot, Vec<usize>)>;

/// Slot s's model always prefers token s + 1 (so a token delivered to the wrong client shows).
struct Fake {
    clients: Arc<Mutex<Clients>>,
    prefills: Arc<Mutex<PrefillLog>>,
}

impl TextBackend for Fake {
    fn max_slots(&self) -> usize {
        4
    }

    fn max_context(&self) -> usize {
        1024
    }

    fn prefill(&mut self, slot: Slot, _tokens: &[u32]) -> Result<(), BackendError> {
        let mut c = self.clients.lock().unwrap();
        c.drain();
        let counts = c.tokens.iter().map(Vec::len).collect();
        self.prefills.lock().unwrap().push((slot, counts));
        Ok(())
    }

    fn prefill_all_logits(&mut self, _slot: Slot, _tokens: &[u32]) -> Result<Vec<f32>, BackendError> {
        Err(BackendError::Batch("not used".into()))
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

/// Four requests queued together, each with a prompt of 3 tokens (all four fit one step's prefill
/// budget); returns what each client held as each prefill began, and the tokens each one got.
fn four_at_once(sampled: bool) -> (PrefillLog, Vec<Vec<u32>>) {
    let clients = Arc::new(Mutex::new(Clients { rxs: Vec::new(), tokens: vec![Vec::new(); 4] }));
    let prefills = Arc::new(Mutex::new(Vec::new()));
    let fake = Fake { clients: clients.clone(), prefills: prefills.clone() };
    let metrics = Arc::new(Metrics::new());
    let queue = Arc::new(QueueCounter::new(64, metrics.clone()));
    let mut sched = Scheduler::new("fake".into(), Box::new(fake), vec![0], 512, queue, metrics);
    let sequences = (0..4)
        .map(|i| {
            let (tx, rx) = unbounded_channel();
            clients.lock().unwrap().rxs.push(rx);
            let sampling = if sampled {
                SamplingParams { temperature: 0.5, seed: Some(i + 1), ..Default::default() }
            } else {
                SamplingParams::greedy()
            };
            ValidSequence {
                prompt: vec![3, 4, 5],
                sampling,
                max_tokens: 2,
                logprobs: None,
                prompt_logprobs: false,
                ignore_eos: false,
                cache_prompt: true,
                events: tx,
                stopped: Arc::new(AtomicBool::new(false)),
                constraint: None,
            }
        })
        .collect();
    sched.enqueue(ValidGenerate { model: 0, sequences, received: Instant::now() });
    sched.step();
    let mut steps = 1;
    while !sched.is_idle() {
        sched.step();
        steps += 1;
        assert!(steps < 100, "the scheduler never went idle");
    }
    let mut c = clients.lock().unwrap();
    c.drain();
    let prefills = prefills.lock().unwrap().clone();
    (prefills, c.tokens.clone())
}

#[test]
fn each_first_token_leaves_before_the_next_prompt_is_prefilled() {
    for sampled in [false, true] {
        let path = if sampled { "sampled on the CPU" } else { "greedy on the GPU" };
        let (prefills, tokens) = four_at_once(sampled);
        let slots: Vec<Slot> = prefills.iter().map(|p| p.0).collect();
        assert_eq!(slots, [0, 1, 2, 3], "{path}: one prefill per request, in arrival order");
        for (k, (_, counts)) in prefills.iter().enumerate() {
            let expected: Vec<usize> = (0..4).map(|i| usize::from(i < k)).collect();
            assert_eq!(counts, &expected, "{path}: tokens each client held when prefill {k} began");
        }
        for (s, got) in tokens.iter().enumerate() {
            assert_eq!(got, &vec![s as u32 + 1; 2], "{path}: client {s}'s tokens");
        }
    }
}
