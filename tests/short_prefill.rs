//! Short prompt chunks prefill in a plan of their own (the fused, rows-per-workgroup kernels batched
//! decode uses); it must give what the tiled-matmul prefill gives, for every text family.

mod common;

use std::path::PathBuf;

use common::{exec, greedy};
use gerbil::models::llm::session::SHORT_PREFILL_ROWS;
use gerbil::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use gerbil::weights::WeightFormat;

/// The two plans sum the same INT4 products in different orders (per-row matvec workgroups against
/// tiled matmul tiles): f32 rounding of sums over a few hundred terms of logits of size ~1, about
/// 1e-6 each. A wrong row, a missing norm or residual moves logits by 1e-2 and more.
const TOLERANCE: f32 = 1e-4;

fn model(name: &str) -> TextModel {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    // A chunk longer than the short plan's rows: the session has both plans.
    let opts = LoadOptions {
        format: WeightFormat::Int4 { group: 32 },
        max_context: 256,
        prefill_chunk: 128,
        ..Default::default()
    };
    TextModel::load(&exec(), &dir, opts).unwrap()
}

fn prompt(n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| 3 + (i * 37) % 200).collect()
}

/// Logits after a 20-token prompt in the short plan equal the last row of the tiled plan's, and
/// greedy decoding goes on identically (the KV cache and recurrent states it wrote are the same).
#[test]
fn short_prefill_equals_the_tiled_prefill_for_every_family() {
    for name in ["llama", "qwen2", "qwen3", "lfm2", "qwen3_5"] {
        let m = model(name);
        let mut s = Session::new(&m, SessionOptions::default()).unwrap();
        let short = s.short_prefill_dispatches().expect("a session with chunks of 128 has a short plan");
        assert!(short < s.prefill_plan().dispatch_count(), "{name}: the short plan is fused");
        let p = prompt(20);
        s.prefill(&p).unwrap();
        assert!(s.last_prefill_was_short(), "{name}");
        let fast = s.logits().unwrap();
        s.reset();
        let all = s.prefill_all_logits(&p).unwrap();
        assert!(!s.last_prefill_was_short(), "{name}");
        let vocab = fast.len();
        let tiled = &all[all.len() - vocab..];
        let diff = fast.iter().zip(tiled).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        let scale = tiled.iter().map(|v| v.abs()).fold(0.0f32, f32::max);
        assert!(diff <= TOLERANCE * scale.max(1.0), "{name}: max |short - tiled| = {diff} (logits up to {scale})");

        s.reset();
        let (a, _) = greedy(&mut s, &p, 8);
        let mut tiled_session = Session::new(&m, SessionOptions { all_logits: true }).unwrap();
        assert_eq!(tiled_session.short_prefill_dispatches(), None, "all-logits sessions prefill in one plan");
        let (b, _) = greedy(&mut tiled_session, &p, 8);
        assert_eq!(a, b, "{name}: greedy tokens after the short and the tiled prefill");
    }
}

/// Chunks of up to SHORT_PREFILL_ROWS tokens take the short plan, longer ones the tiled plan.
#[test]
fn the_short_plan_takes_chunks_up_to_its_rows() {
    let m = model("llama");
    let mut s = Session::new(&m, SessionOptions::default()).unwrap();
    s.prefill(&prompt(SHORT_PREFILL_ROWS)).unwrap();
    assert!(s.last_prefill_was_short());
    s.reset();
    s.prefill(&prompt(SHORT_PREFILL_ROWS + 1)).unwrap();
    assert!(!s.last_prefill_was_short());
    // A prompt longer than a chunk: its last chunk decides.
    s.reset();
    s.prefill(&prompt(128 + 5)).unwrap();
    assert!(s.last_prefill_was_short());
}
