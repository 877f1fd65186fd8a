//! The recurrent families served the way the server serves them (`backend_for`, the scheduler): greedy
//! requests arriving together, and one joining while the others decode, are decoded in shared batched
//! steps, and each gets exactly the tokens it gets alone (`Session::generate`).

mod common;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use common::exec;
use gerbil::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use gerbil::text::sampling::SamplingParams;
use gerbil::weights::WeightFormat;
use gerbil::worker::backend::backend_for;
use gerbil::worker::handle::QueueCounter;
use gerbil::worker::msg::{SeqEvent, ValidGenerate, ValidSequence};
use gerbil::worker::scheduler::Scheduler;
use gerbil::worker::Metrics;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

const TOKENS: usize = 12;

fn request(prompt: &[u32]) -> (ValidGenerate, UnboundedReceiver<SeqEvent>) {
    let (tx, rx) = unbounded_channel();
    let seq = ValidSequence {
        prompt: prompt.to_vec(),
        sampling: SamplingParams::greedy(),
        max_tokens: TOKENS,
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

fn tokens(rx: &mut UnboundedReceiver<SeqEvent>) -> Vec<u32> {
    let mut out = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        if let SeqEvent::Token { id, .. } = ev {
            out.push(id);
        }
    }
    out
}

#[test]
fn concurrent_greedy_requests_decode_together_as_alone() {
    for name in ["lfm2", "qwen3_5"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
        let opts = LoadOptions { format: WeightFormat::Int4 { group: 32 }, max_context: 64, ..Default::default() };
        let model = TextModel::load(&exec(), &path, opts).unwrap();
        let prompts: [&[u32]; 4] = [&[5, 9, 2], &[17, 3, 3, 40, 8, 1, 1], &[1], &[30, 31, 32, 33]];
        let want: Vec<Vec<u32>> = prompts
            .iter()
            .map(|p| Session::new(&model, SessionOptions::default()).unwrap().generate(p, TOKENS, |_| true).unwrap())
            .collect();

        let metrics = Arc::new(Metrics::new());
        let queue = Arc::new(QueueCounter::new(8, metrics.clone()));
        let backend = backend_for(&model, 4).unwrap();
        let mut sched = Scheduler::new(name.into(), backend, vec![], 512, queue, metrics.clone());
        let mut rxs = Vec::new();
        for p in &prompts[..3] {
            let (req, rx) = request(p);
            sched.enqueue(req);
            rxs.push(rx);
        }
        let mut most_rows = 0;
        for step in 0..200 {
            if step == 4 {
                // The fourth joins while the others decode.
                let (req, rx) = request(prompts[3]);
                sched.enqueue(req);
                rxs.push(rx);
            }
            if sched.is_idle() && step > 4 {
                break;
            }
            sched.step();
            most_rows = most_rows.max(metrics.batch_rows.with_label_values(&[name]).get());
        }
        for (i, (rx, want)) in rxs.iter_mut().zip(&want).enumerate() {
            assert_eq!(&tokens(rx), want, "{name}: request {i}'s tokens vs alone");
        }
        assert!(most_rows >= 3, "{name}: the requests shared decode steps (at most {most_rows} rows)");
    }
}
