//! Qwen3.5 (hybrid Gated DeltaNet + gated attention) against transformers: a
//! tiny random-weight `Qwen3_5ForCausalLM` from tools/make_fixtures_qwen3_5.py
//! (layers linear, full, linear, full; grouped value heads; partial rotary),
//! with reference logits for the prompt and 32 greedy decode steps.
//!
//! The recurrent state (conv windows, delta-rule matrices) must carry across
//! decode steps and prefill chunks and be zeroed by `Session::reset`; the
//! fixture's 2-D weights sit on an INT4 grid, so INT4 is held to the f32 tolerance.

mod common;

use std::path::PathBuf;

use common::exec;
use gerbil::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use gerbil::passes::FusionConfig;
use gerbil::weights::WeightFormat;

use common::reference_fixture::{max_diff, read_reference, Reference};

fn fixture() -> PathBuf {
    common::reference_fixture::fixture_dir("qwen3_5")
}

fn reference() -> Reference {
    read_reference("qwen3_5")
}

fn load(format: WeightFormat, chunk: usize, fusion: FusionConfig) -> TextModel {
    let opts = LoadOptions { format, max_context: 128, prefill_chunk: chunk, fusion, ..Default::default() };
    TextModel::load(&exec(), &fixture(), opts).unwrap()
}

/// Prefill (in chunks of `chunk`), then 32 greedy decode steps: logits within
/// `tol` of transformers' and every token identical. Returns every step's logits.
fn run_sequence(s: &mut Session, r: &Reference, all_logits: bool, tol: f32, what: &str) -> Vec<Vec<f32>> {
    let t = r.prompt.len();
    s.prefill(&r.prompt).unwrap();
    let got = s.logits().unwrap();
    let want = if all_logits { &r.prefill_logits[..] } else { &r.prefill_logits[(t - 1) * r.vocab..] };
    let d = max_diff(&got, want);
    eprintln!("{what}: prefill max |logit diff| {d:.2e}");
    assert!(d <= tol, "{what}: prefill logits differ by {d}");
    assert_eq!(s.next_token().unwrap(), r.generated[0], "{what}: first token");
    let mut all = vec![got[got.len() - r.vocab..].to_vec()];
    let mut worst = 0f32;
    for i in 1..r.generated.len() {
        s.decode_step().unwrap();
        let logits = s.logits().unwrap();
        let d = max_diff(&logits, &r.step_logits[i * r.vocab..(i + 1) * r.vocab]);
        worst = worst.max(d);
        assert!(d <= tol, "{what}: decode step {i} logits differ by {d}");
        assert_eq!(s.next_token().unwrap(), r.generated[i], "{what}: token {i}");
        all.push(logits);
    }
    eprintln!("{what}: 32 decode steps, max |logit diff| {worst:.2e}, tokens identical");
    all
}

#[test]
fn f32_prefill_and_decode_match_transformers() {
    let r = reference();
    let model = load(WeightFormat::F32, 64, FusionConfig::default());
    assert_eq!(model.tokenizer.as_ref().unwrap().encode(&r.prompt_text, false).unwrap(), r.prompt);
    let mut s = Session::new(&model, SessionOptions { all_logits: true }).unwrap();
    run_sequence(&mut s, &r, true, 1e-3, "qwen3_5 f32");
}

/// Prefill in chunks of 5 (state carried across chunks) equals one-shot prefill,
/// and a reset session replays the same sequence (recurrent state zeroed).
#[test]
fn chunked_prefill_and_reset() {
    let r = reference();
    let one_shot = {
        let model = load(WeightFormat::F32, 64, FusionConfig::default());
        let mut s = Session::new(&model, SessionOptions::default()).unwrap();
        run_sequence(&mut s, &r, false, 1e-3, "qwen3_5 one-shot")
    };
    let model = load(WeightFormat::F32, 5, FusionConfig::default());
    let mut s = Session::new(&model, SessionOptions::default()).unwrap();
    let chunked = run_sequence(&mut s, &r, false, 1e-3, "qwen3_5 chunk 5");
    let d = one_shot.iter().zip(&chunked).map(|(a, b)| max_diff(a, b)).fold(0.0, f32::max);
    eprintln!("chunked vs one-shot: max |logit diff| {d:.2e}");
    assert!(d <= 1e-4, "chunked prefill differs from one-shot by {d}");
    s.reset();
    let again = run_sequence(&mut s, &r, false, 1e-3, "qwen3_5 after reset");
    let d = chunked.iter().zip(&again).map(|(a, b)| max_diff(a, b)).fold(0.0, f32::max);
    assert!(d <= 1e-6, "a reset session differs from a fresh one by {d}");
}

#[test]
fn int4_prefill_and_decode_match_transformers() {
    let r = reference();
    for group in [32, 64] {
        let model = load(WeightFormat::Int4 { group }, 64, FusionConfig::default());
        let mut s = Session::new(&model, SessionOptions { all_logits: true }).unwrap();
        run_sequence(&mut s, &r, true, 1e-3, &format!("qwen3_5 int4 g{group}"));
    }
}
