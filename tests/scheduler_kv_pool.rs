//! The paged KV pool as the server uses it (`backend_for`, the scheduler): a request is admitted when
//! its prompt and max_tokens fit the pool beside the running ones, and waits in the queue until then
//! (a free slot is not enough); every request still gets exactly its tokens alone; a finished
//! sequence's blocks stay as a cached prefix until another sequence needs the room, and a prefix the
//! pool gave away is not offered again.

mod common;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use common::exec;
use gerbil::models::llm::{KvPoolOptions, KvPoolSize, LoadOptions, Session, SessionOptions, TextModel};
use gerbil::text::sampling::SamplingParams;
use gerbil::weights::WeightFormat;
use gerbil::worker::backend::backend_for;
use gerbil::worker::handle::QueueCounter;
use gerbil::worker::msg::{SeqEvent, ValidGenerate, ValidSequence};
use gerbil::worker::scheduler::Scheduler;
use gerbil::worker::Metrics;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

const MODEL: &str = "llama";

/// The fixture with a pool of `blocks` blocks of 16 positions (max_context 64: 4 blocks a sequence).
fn model(blocks: usize) -> TextModel {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(MODEL);
    let kv_pool = Some(KvPoolOptions { size: KvPoolSize::Tokens(16 * blocks), block_tokens: 16 });
    let opts = LoadOptions { format: WeightFormat::F32, max_context: 64, kv_pool, ..Default::default() };
    TextModel::load(&exec(), &path, opts).unwrap()
}

fn request(prompt: &[u32], max_tokens: usize) -> (ValidGenerate, UnboundedReceiver<SeqEvent>) {
    let (tx, rx) = unbounded_channel();
    let seq = ValidSequence {
        prompt: prompt.to_vec(),
        sampling: SamplingParams::greedy(),
        max_tokens,
        logprobs: None,
        prompt_logprobs: false,
        ignore_eos: true,
        cache_prompt: true,
        events: tx,
        stopped: Arc::new(AtomicBool::new(false)),
        constraint: None,
    };
    (ValidGenerate { model: 0, sequences: vec![seq], received: Instant::now() }, rx)
}

/// The request's generated tokens, and whether it finished.
fn drain(rx: &mut UnboundedReceiver<SeqEvent>) -> (Vec<u32>, bool) {
    let (mut ids, mut done) = (Vec::new(), false);
    while let Ok(ev) = rx.try_recv() {
        match ev {
            SeqEvent::Token { id, .. } => ids.push(id),
            SeqEvent::Finished { .. } => done = true,
            SeqEvent::Failed(e) => panic!("a request failed: {e}"),
            _ => {}
        }
    }
    (ids, done)
}

fn alone(model: &TextModel, prompt: &[u32], n: usize) -> Vec<u32> {
    Session::new(model, SessionOptions::default()).unwrap().generate(prompt, n, |_| true).unwrap()
}

/// Runs the requests to their end; each gets exactly its tokens alone.
fn run_to_end(sched: &mut Scheduler, model: &TextModel, reqs: &[(&[u32], usize)]) {
    let mut rxs: Vec<_> = reqs
        .iter()
        .map(|&(p, n)| {
            let (req, rx) = request(p, n);
            sched.enqueue(req);
            rx
        })
        .collect();
    let mut ids = vec![Vec::new(); reqs.len()];
    for _ in 0..300 {
        if sched.is_idle() {
            break;
        }
        sched.step();
        for (rx, g) in rxs.iter_mut().zip(&mut ids) {
            g.extend(drain(rx).0);
        }
    }
    assert!(sched.is_idle());
    for (g, &(p, n)) in ids.iter().zip(reqs) {
        assert_eq!(g, &alone(model, p, n), "tokens vs alone");
    }
}

fn pool_gauge(m: &Metrics, state: &str) -> i64 {
    m.kv_pool_blocks.with_label_values(&[MODEL, state]).get()
}

/// Five requests of 2 blocks each (10 prompt tokens + 12 generated: 22 positions) on 4 slots and a pool
/// of 4 blocks: two run at a time while the others wait with slots free, and every one gets its
/// tokens.
#[test]
fn a_full_pool_queues_requests_and_loses_nothing() {
    let model = model(4);
    let prompts: Vec<Vec<u32>> = (0..5).map(|i| (0..10).map(|j| (7 * i + 3 * j + 1) as u32 % 60).collect()).collect();
    let want: Vec<Vec<u32>> = prompts.iter().map(|p| alone(&model, p, 12)).collect();
    let metrics = Arc::new(Metrics::new());
    let queue = Arc::new(QueueCounter::new(8, metrics.clone()));
    let mut sched = Scheduler::new(MODEL.into(), backend_for(&model, 4).unwrap(), vec![], 512, queue, metrics.clone());
    assert_eq!(metrics.kv_block_tokens.with_label_values(&[MODEL]).get(), 16);
    assert_eq!(pool_gauge(&metrics, "free"), 4, "an idle pool is free");
    let mut rxs: Vec<_> = prompts
        .iter()
        .map(|p| {
            let (req, rx) = request(p, 12);
            sched.enqueue(req);
            rx
        })
        .collect();
    let mut got = vec![Vec::new(); prompts.len()];
    let mut most_active = 0;
    for _ in 0..400 {
        if sched.is_idle() {
            break;
        }
        sched.step();
        let active = metrics.active_slots.with_label_values(&[MODEL]).get();
        most_active = most_active.max(active);
        let live = pool_gauge(&metrics, "live");
        assert!(live <= 4 && live + pool_gauge(&metrics, "cached") + pool_gauge(&metrics, "free") == 4);
        for (rx, g) in rxs.iter_mut().zip(&mut got) {
            g.extend(drain(rx).0);
        }
    }
    assert!(sched.is_idle(), "every request finished");
    assert_eq!(most_active, 2, "two requests fit the pool at a time, though four slots were free");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "request {i}'s tokens vs alone");
    }
    assert_eq!(pool_gauge(&metrics, "live"), 0);
}

/// A finished request's blocks are a cached prefix until a request needs the room; the pool then gives
/// away the least recently released first, and the prefix cache forgets it: a later prompt starting
/// with both a given-away prefix (30 tokens) and a kept one (17) reuses the kept one, not nothing.
/// Tokens stay right throughout.
#[test]
fn cached_prefixes_are_evicted_least_recent_first_and_forgotten() {
    let model = model(7);
    let base: Vec<u32> = (0..40).map(|j| (5 * j + 2) as u32 % 60).collect();
    let big: Vec<u32> = (0..40).map(|j| (3 * j + 11) as u32 % 60 + 60).collect();
    let metrics = Arc::new(Metrics::new());
    let queue = Arc::new(QueueCounter::new(8, metrics.clone()));
    let mut sched = Scheduler::new(MODEL.into(), backend_for(&model, 3).unwrap(), vec![], 512, queue, metrics.clone());
    let counter = |m: &prometheus::IntCounterVec| m.with_label_values(&[MODEL]).get();
    let mut run = |reqs: &[(&[u32], usize)]| run_to_end(&mut sched, &model, reqs);
    // 17 + 4 and 30 + 2 positions, two blocks each; the longer ends first (released first).
    run(&[(&base[..17], 4), (&base[..30], 2)]);
    assert_eq!(pool_gauge(&metrics, "cached"), 4);
    // 40 + 24 positions: four blocks, three free, so the 30-token prefix's two go.
    run(&[(&big, 24)]);
    assert_eq!(pool_gauge(&metrics, "cached"), 6, "the big request's four and the 17-token prefix's two");
    let (hits, reused) = (counter(&metrics.prefix_cache_hits), counter(&metrics.prefix_cache_tokens));
    run(&[(&base, 4)]);
    assert_eq!(counter(&metrics.prefix_cache_hits), hits + 1, "the kept prefix was reused");
    let took = counter(&metrics.prefix_cache_tokens) - reused;
    assert!((17..30).contains(&took), "reused {took} tokens: the 17-token prefix, not the given-away 30");
}

/// Two slots and a pool of 8 blocks (two sequences of the whole context): each request takes a slot
/// another's prefix was kept in. The pool parks that prefix instead of overwriting it, so a later
/// request starting with it still reuses it (without parking it would be gone with its slot); when
/// the pool needs room, the least recently released parked prefix goes first and is no longer
/// offered, while a newer one still is.
#[test]
fn prefixes_outlive_their_slot_until_the_pool_needs_the_room() {
    let model = model(8);
    // Five distinct 20-token prompts: 20 + 4 tokens fill 2 blocks.
    let p: Vec<Vec<u32>> = (0..5).map(|i| (0..20).map(|j| (60 * i + 7 * j + 3) as u32 % 300).collect()).collect();
    let metrics = Arc::new(Metrics::new());
    let queue = Arc::new(QueueCounter::new(8, metrics.clone()));
    let mut sched = Scheduler::new(MODEL.into(), backend_for(&model, 2).unwrap(), vec![], 512, queue, metrics.clone());
    let counter = |m: &prometheus::IntCounterVec| m.with_label_values(&[MODEL]).get();
    let hit = |sched: &mut Scheduler, prompt: &[u32]| {
        let (hits, reused) = (counter(&metrics.prefix_cache_hits), counter(&metrics.prefix_cache_tokens));
        run_to_end(sched, &model, &[(prompt, 4)]);
        (counter(&metrics.prefix_cache_hits) - hits, counter(&metrics.prefix_cache_tokens) - reused)
    };
    // A and B fill the two slots; C and D take them, parking A and B: the pool is full of prefixes.
    for prompt in &p[..4] {
        assert_eq!(hit(&mut sched, prompt), (0, 0));
    }
    assert_eq!(pool_gauge(&metrics, "cached"), 8, "A and B parked, C and D kept by their slots");
    // E needs two blocks: A, released first, is given up.
    assert_eq!(hit(&mut sched, &p[4]), (0, 0));
    let more = |i: usize| -> Vec<u32> { p[i].iter().copied().chain([1, 2, 3, 4, 5, 6, 7, 8]).collect() };
    let (hits, took) = hit(&mut sched, &more(1));
    assert_eq!(hits, 1, "B, parked when D took its slot, was reused");
    assert!(took >= 20, "reused {took} tokens of B's 20");
    assert_eq!(hit(&mut sched, &more(0)).0, 0, "A was given up, and is not offered");
}
