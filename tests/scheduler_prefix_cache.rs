//! The scheduler's prefix cache (src/worker/scheduler.rs `place`, src/worker/prefix.rs) over a fake
//! backend that keeps each slot's tokens as a real KV cache would: a request starts from the longest
//! prefix some slot holds and the backend is asked to prefill only the rest; the reuse is reported to
//! the client and counted in /metrics; the prompt's last token is always prefilled; prompts scored
//! for logprobs, failed sequences and a disabled cache reuse nothing.

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

const VOCAB: usize = 600;
const SLOTS: usize = 3;

#[derive(Default)]
struct Log {
    /// (from, to, n) of each reuse.
    reuses: Vec<(Slot, Slot, usize)>,
    /// (slot, tokens) of each prefill.
    prefills: Vec<(Slot, Vec<u32>)>,
}

/// Each slot's cache is its token list; a released slot keeps it. The model's next token is 500 plus
/// the number of tokens the slot holds, so a sequence that started from the wrong rows shows.
struct Fake {
    held: Vec<Vec<u32>>,
    live: Vec<bool>,
    reuse: bool,
    /// Greedy pipelining (`decode_chained`), as the batched backend does.
    chain: bool,
    /// The next prefill fails (a sequence that fails leaves a cache not to be trusted).
    fail_next_prefill: bool,
    log: Arc<Mutex<Log>>,
}

impl Fake {
    fn next(&self, slot: Slot) -> u32 {
        500 + self.held[slot].len() as u32 % 100
    }
}

impl TextBackend for Fake {
    fn max_slots(&self) -> usize {
        SLOTS
    }

    fn max_context(&self) -> usize {
        4096
    }

    fn prefill(&mut self, slot: Slot, tokens: &[u32]) -> Result<(), BackendError> {
        self.log.lock().unwrap().prefills.push((slot, tokens.to_vec()));
        if !self.live[slot] {
            self.held[slot].clear();
            self.live[slot] = true;
        }
        self.held[slot].extend_from_slice(tokens);
        if std::mem::take(&mut self.fail_next_prefill) {
            return Err(BackendError::Batch("injected".into()));
        }
        Ok(())
    }

    fn prefill_all_logits(&mut self, slot: Slot, tokens: &[u32]) -> Result<Vec<f32>, BackendError> {
        self.prefill(slot, tokens)?;
        Ok(vec![0.0; tokens.len() * VOCAB])
    }

    fn decode(&mut self, batch: &[(Slot, u32)]) -> Result<(), BackendError> {
        for &(slot, t) in batch {
            self.held[slot].push(t);
        }
        Ok(())
    }

    fn logits(&mut self, slot: Slot) -> Result<Vec<f32>, BackendError> {
        let mut l = vec![-50.0; VOCAB];
        l[self.next(slot) as usize] = 0.0;
        Ok(l)
    }

    fn greedy_tokens(&mut self, slots: &[Slot]) -> Vec<Result<u32, BackendError>> {
        slots.iter().map(|&s| Ok(self.next(s))).collect()
    }

    fn release(&mut self, slot: Slot) {
        self.live[slot] = false;
    }

    fn decode_chained(&mut self, slots: &[Slot]) -> Result<Option<Vec<u32>>, BackendError> {
        if !self.chain {
            return Ok(None);
        }
        // The previous step's argmax, fed to the step submitted now.
        let ids: Vec<u32> = slots.iter().map(|&s| self.next(s)).collect();
        for (&s, &id) in slots.iter().zip(&ids) {
            self.held[s].push(id);
        }
        Ok(Some(ids))
    }

    fn reuse_prefix(&mut self, from: Slot, to: Slot, n: usize) -> Result<bool, BackendError> {
        if !self.reuse {
            return Ok(false);
        }
        assert!(!self.live[to], "reuse into a live slot");
        assert!(n <= self.held[from].len(), "reusing {n} positions of a slot holding {}", self.held[from].len());
        self.log.lock().unwrap().reuses.push((from, to, n));
        self.held[to] = self.held[from][..n].to_vec();
        self.live[to] = true;
        Ok(true)
    }
}

struct Harness {
    sched: Scheduler,
    metrics: Arc<Metrics>,
    log: Arc<Mutex<Log>>,
}

/// What one client received: the cached-token report, and its tokens.
struct Received {
    cached: Option<usize>,
    tokens: Vec<u32>,
}

impl Harness {
    fn new(reuse: bool, enabled: bool, fail_first_prefill: bool) -> Self {
        Self::with_chain(reuse, enabled, fail_first_prefill, false)
    }

    fn with_chain(reuse: bool, enabled: bool, fail_first_prefill: bool, chain: bool) -> Self {
        let log = Arc::new(Mutex::new(Log::default()));
        let fake = Fake {
            held: vec![Vec::new(); SLOTS],
            live: vec![false; SLOTS],
            reuse,
            chain,
            fail_next_prefill: fail_first_prefill,
            log: log.clone(),
        };
        let metrics = Arc::new(Metrics::new());
        let queue = Arc::new(QueueCounter::new(64, metrics.clone()));
        let sched = Scheduler::new("fake".into(), Box::new(fake), vec![0], 512, queue, metrics.clone())
            .with_prefix_cache(enabled);
        Harness { sched, metrics, log }
    }

    fn sequence(
        prompt: &[u32],
        max_tokens: usize,
        prompt_logprobs: bool,
    ) -> (ValidSequence, UnboundedReceiver<SeqEvent>) {
        let (tx, rx) = unbounded_channel();
        let seq = ValidSequence {
            prompt: prompt.to_vec(),
            sampling: SamplingParams::greedy(),
            max_tokens,
            logprobs: prompt_logprobs.then_some(0),
            prompt_logprobs,
            ignore_eos: false,
            cache_prompt: true,
            events: tx,
            stopped: Arc::new(AtomicBool::new(false)),
            constraint: None,
        };
        (seq, rx)
    }

    /// Runs requests (queued together) to the end; what each client received.
    fn run(&mut self, requests: &[(&[u32], usize, bool)]) -> Vec<Received> {
        self.run_with(requests, true)
    }

    /// `run`, each request with `cache_prompt` as given.
    fn run_with(&mut self, requests: &[(&[u32], usize, bool)], cache_prompt: bool) -> Vec<Received> {
        let (mut seqs, mut rxs): (Vec<ValidSequence>, Vec<_>) =
            requests.iter().map(|&(p, max, lp)| Self::sequence(p, max, lp)).unzip();
        seqs.iter_mut().for_each(|s| s.cache_prompt = cache_prompt);
        self.sched.enqueue(ValidGenerate { model: 0, sequences: seqs, received: Instant::now() });
        let mut steps = 0;
        while !self.sched.is_idle() {
            self.sched.step();
            steps += 1;
            assert!(steps < 1000, "the scheduler never went idle");
        }
        rxs.iter_mut()
            .map(|rx| {
                let mut r = Received { cached: None, tokens: Vec::new() };
                while let Ok(ev) = rx.try_recv() {
                    match ev {
                        SeqEvent::PromptCached { tokens } => {
                            assert!(r.cached.is_none() && r.tokens.is_empty(), "one report, before any token");
                            r.cached = Some(tokens);
                        }
                        SeqEvent::Token { id, .. } => r.tokens.push(id),
                        _ => {}
                    }
                }
                r
            })
            .collect()
    }

    fn counter(&self, name: &str) -> u64 {
        let m = match name {
            "hits" => &self.metrics.prefix_cache_hits,
            "misses" => &self.metrics.prefix_cache_misses,
            _ => &self.metrics.prefix_cache_tokens,
        };
        m.with_label_values(&["fake"]).get()
    }

    fn take_log(&self) -> Log {
        std::mem::take(&mut *self.log.lock().unwrap())
    }
}

fn range(a: u32, b: u32) -> Vec<u32> {
    (a..b).collect()
}

/// Both decode paths: one step at a time, and chained greedy steps (the tokens a chained step fed are
/// in the cache too).
#[test]
fn a_chats_next_turn_prefills_only_its_new_tokens() {
    for chain in [false, true] {
        next_turn(chain);
    }
}

fn next_turn(chain: bool) {
    let mut h = Harness::with_chain(true, true, false, chain);
    let turn1 = range(1, 41);
    let r = h.run(&[(&turn1, 4, false)]);
    assert_eq!(r[0].cached, Some(0));
    assert_eq!(h.counter("misses"), 1);
    // The cache holds the prompt and the three tokens fed back (the fourth was never fed).
    let held: Vec<u32> = turn1.iter().chain(&r[0].tokens[..3]).copied().collect();
    let log = h.take_log();
    assert_eq!(log.prefills.len(), 1);
    let slot = log.prefills[0].0;

    let turn2: Vec<u32> = held.iter().copied().chain([r[0].tokens[3]]).chain(range(100, 110)).collect();
    let r2 = h.run(&[(&turn2, 2, false)]);
    let log = h.take_log();
    assert_eq!(log.reuses, [(slot, slot, held.len())], "the slot that holds the conversation, all of it");
    assert_eq!(log.prefills, [(slot, turn2[held.len()..].to_vec())], "only the new tokens are prefilled");
    assert_eq!(r2[0].cached, Some(held.len()));
    // The fake's next token depends on how many tokens the slot holds: a miscounted start shows here.
    assert_eq!(r2[0].tokens[0], 500 + turn2.len() as u32 % 100);
    assert_eq!((h.counter("hits"), h.counter("misses"), h.counter("tokens")), (1, 1, held.len() as u64));
    let chained = h.metrics.chained_steps.with_label_values(&["fake"]).get();
    assert_eq!(chained > 0, chain, "chained steps: {chained}");
}

#[test]
fn the_same_prompt_again_prefills_its_last_token() {
    let mut h = Harness::new(true, true, false);
    let p = range(1, 31);
    h.run(&[(&p, 1, false)]);
    h.take_log();
    let r = h.run(&[(&p, 1, false)]);
    let log = h.take_log();
    assert_eq!(log.reuses.len(), 1);
    assert_eq!(log.reuses[0].2, p.len() - 1);
    assert_eq!(log.prefills.len(), 1);
    assert_eq!(log.prefills[0].1, [*p.last().unwrap()], "the last token's logits give the first token");
    assert_eq!(r[0].cached, Some(p.len() - 1));
}

#[test]
fn a_shared_system_prompt_is_copied_from_a_live_sequence() {
    let mut h = Harness::new(true, true, false);
    let system = range(1, 25);
    let a: Vec<u32> = system.iter().copied().chain(range(200, 205)).collect();
    let b: Vec<u32> = system.iter().copied().chain(range(300, 310)).collect();
    // a runs first (requests queued together are all placed before any prefill); b arrives while a
    // still decodes.
    let (seq_a, _rx_a) = Harness::sequence(&a, 50, false);
    h.sched.enqueue(ValidGenerate { model: 0, sequences: vec![seq_a], received: Instant::now() });
    h.sched.step();
    h.sched.step();
    let slot_a = h.take_log().prefills[0].0;
    let r = h.run(&[(&b, 2, false)]);
    let log = h.take_log();
    assert_eq!(log.reuses.len(), 1);
    let (from, to, n) = log.reuses[0];
    assert_eq!((from, n), (slot_a, system.len()), "a's live rows, as far as the prompts agree");
    assert_ne!(to, slot_a);
    assert_eq!(log.prefills.iter().find(|p| p.0 == to).map(|p| p.1.clone()), Some(b[system.len()..].to_vec()));
    assert_eq!(r[0].cached, Some(system.len()));
}

#[test]
fn short_common_prefixes_and_scored_prompts_are_prefilled_whole() {
    let mut h = Harness::new(true, true, false);
    let p = range(1, 41);
    h.run(&[(&p, 1, false)]);
    // 15 tokens in common: under the minimum.
    let short: Vec<u32> = p[..15].iter().copied().chain(range(400, 420)).collect();
    h.take_log();
    let r = h.run(&[(&short, 1, false)]);
    assert!(h.take_log().reuses.is_empty());
    assert_eq!(r[0].cached, Some(0));
    // A request that asks for no reuse (llama-server's cache_prompt: false).
    let r = h.run_with(&[(&p, 1, false)], false);
    let log = h.take_log();
    assert!(log.reuses.is_empty(), "cache_prompt false: {:?}", log.reuses);
    assert_eq!(log.prefills.iter().map(|p| p.1.len()).sum::<usize>(), p.len());
    assert_eq!(r[0].cached, Some(0));
    // Prompt logprobs need every prompt token's logits.
    let r = h.run(&[(&short, 1, true)]);
    let log = h.take_log();
    assert!(log.reuses.is_empty(), "{:?}", log.reuses);
    assert_eq!(log.prefills.iter().map(|p| p.1.len()).sum::<usize>(), short.len());
    assert_eq!(r[0].cached, Some(0));
}

#[test]
fn nothing_is_reused_after_a_failure_when_disabled_or_unsupported() {
    // The first sequence's prefill fails: its slot's rows are not offered to the next.
    let mut h = Harness::new(true, true, true);
    let p = range(1, 41);
    h.run(&[(&p, 2, false)]);
    h.take_log();
    h.run(&[(&p, 2, false)]);
    assert!(h.take_log().reuses.is_empty(), "a failed sequence's cache was reused");
    for (reuse, enabled, what) in [(true, false, "disabled"), (false, true, "unsupported by the backend")] {
        let mut h = Harness::new(reuse, enabled, false);
        h.run(&[(&p, 2, false)]);
        let r = h.run(&[(&p, 2, false)]);
        let log = h.take_log();
        assert!(log.reuses.is_empty(), "{what}");
        assert_eq!(log.prefills.iter().map(|p| p.1.len()).sum::<usize>(), 2 * p.len(), "{what}");
        assert_eq!(r[0].cached, Some(0), "{what}");
        assert_eq!(h.counter("hits"), 0, "{what}");
        let misses = if enabled { 2 } else { 0 };
        assert_eq!(h.counter("misses"), misses, "{what}: misses");
    }
}
