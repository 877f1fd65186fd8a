//! Dense Llama-family models against Hugging Face transformers: tiny
//! random-weight checkpoints made by tools/make_fixtures.py, with reference
//! logits for the prompt and for 32 greedy decode steps.
//!
//! The fixtures' 2-D weights sit exactly on an INT4 grid (see
//! tests/fixtures/README.md), so the INT4 path is held to the same logits
//! tolerance as f32: any difference is kernel error, not quantization noise.
//! INT4 behaviour on real, off-grid weights is tested with SmolLM2.

mod common;

use std::path::PathBuf;

use common::exec;
use common::reference_fixture::fixture_with_positions;
use gerbil::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use gerbil::weights::WeightFormat;

struct Reference {
    prompt: Vec<u32>,
    prefill_logits: Vec<f32>,
    generated: Vec<u32>,
    step_logits: Vec<f32>,
    vocab: usize,
    prompt_text: String,
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn reference(name: &str) -> Reference {
    let bytes = std::fs::read(fixture(name).join("reference.safetensors")).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let f32s = |n: &str| -> (Vec<f32>, Vec<usize>) {
        let t = st.tensor(n).unwrap();
        (t.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect(), t.shape().to_vec())
    };
    let ids = |n: &str| -> Vec<u32> {
        st.tensor(n).unwrap().data().chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap()) as u32).collect()
    };
    let (prefill_logits, shape) = f32s("prefill_logits");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(name).join("meta.json")).unwrap()).unwrap();
    Reference {
        prompt: ids("prompt_ids"),
        prefill_logits,
        generated: ids("generated_ids"),
        step_logits: f32s("step_logits").0,
        vocab: shape[1],
        prompt_text: meta["prompt"].as_str().unwrap().to_string(),
    }
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// Prefill logits, then 32 free-running greedy decode steps: every step's
/// logits within `tol` and every token identical to transformers'.
fn check(name: &str, format: WeightFormat, tol: f32) {
    let r = reference(name);
    let opts = LoadOptions { format, max_context: 128, prefill_chunk: 64, ..Default::default() };
    let model = TextModel::load(&exec(), &fixture(name), opts).unwrap();
    let tok = model.tokenizer.as_ref().unwrap();
    assert_eq!(tok.encode(&r.prompt_text, false).unwrap(), r.prompt, "{name}: tokenizer");
    let mut s = Session::new(&model, SessionOptions { all_logits: true }).unwrap();
    s.prefill(&r.prompt).unwrap();
    let d = max_diff(&s.logits().unwrap(), &r.prefill_logits);
    eprintln!("{name} {format:?}: prefill max |logit diff| {d:.2e}");
    assert!(d <= tol, "{name} {format:?}: prefill logits differ by {d}");
    assert_eq!(s.next_token().unwrap(), r.generated[0], "{name}: first token");
    let mut worst = 0f32;
    for i in 1..r.generated.len() {
        s.decode_step().unwrap();
        let want = &r.step_logits[i * r.vocab..(i + 1) * r.vocab];
        let d = max_diff(&s.logits().unwrap(), want);
        worst = worst.max(d);
        assert!(d <= tol, "{name} {format:?}: decode step {i} logits differ by {d}");
        assert_eq!(s.next_token().unwrap(), r.generated[i], "{name} {format:?}: token {i}");
    }
    eprintln!("{name} {format:?}: 32 decode steps, max |logit diff| {worst:.2e}, tokens identical");
}

const F32: WeightFormat = WeightFormat::F32;

#[test]
fn llama_sharded_f32() {
    check("llama", F32, 1e-3);
}

#[test]
fn llama3_rope_tied_f32() {
    check("llama3_rope", F32, 1e-3);
}

#[test]
fn llama_linear_rope_f16_checkpoint() {
    check("llama_linear_rope", F32, 1e-3);
}

#[test]
fn qwen2_bias_bf16_checkpoint() {
    check("qwen2", F32, 1e-3);
}

#[test]
fn qwen3_qk_norm_f32() {
    check("qwen3", F32, 1e-3);
}

#[test]
fn int4_every_family_and_group_size() {
    for (name, group) in [("llama", 32), ("llama3_rope", 64), ("llama_linear_rope", 32), ("qwen2", 64), ("qwen3", 128)]
    {
        check(name, WeightFormat::Int4 { group }, 1e-3);
    }
}

/// The pipelined generate loop yields the same tokens as step-by-step decode.
#[test]
fn pipelined_generate_matches_reference() {
    let r = reference("qwen3");
    let model = TextModel::load(
        &exec(),
        &fixture("qwen3"),
        LoadOptions { format: F32, max_context: 64, prefill_chunk: 5, ..Default::default() },
    )
    .unwrap();
    let mut s = Session::new(&model, SessionOptions::default()).unwrap();
    let got = s.generate(&r.prompt, r.generated.len(), |_| true).unwrap();
    assert_eq!(got, r.generated);
    // Stopping early via the callback.
    let mut s = Session::new(&model, SessionOptions::default()).unwrap();
    let got = s.generate(&r.prompt, 33, |t| t != r.generated[4]).unwrap();
    assert_eq!(got, r.generated[..5]);
    // After a stop with a step still in flight and a reset, the next generation must start at the
    // right position (the Step uniform is per plan; a shorter prompt moves the first decode position back).
    s.reset();
    let got = s.generate(&r.prompt, r.generated.len(), |_| true).unwrap();
    assert_eq!(got, r.generated, "after a reset");
    s.reset();
    let got = s.generate(&r.prompt[..r.prompt.len() - 1], 3, |_| true).unwrap();
    let mut fresh = Session::new(&model, SessionOptions::default()).unwrap();
    assert_eq!(got, fresh.generate(&r.prompt[..r.prompt.len() - 1], 3, |_| true).unwrap(), "a shorter prompt");
}

/// A one-token decode plan moves its own position on (its last kernel, ArgmaxReduceAdvance), so
/// consecutive steps write no Step uniform; a step anywhere else still gets its position written.
#[test]
fn decode_plan_moves_its_position_on() {
    let r = reference("qwen3");
    let model =
        TextModel::load(&exec(), &fixture("qwen3"), LoadOptions { format: F32, max_context: 64, ..Default::default() })
            .unwrap();
    let s = Session::new(&model, SessionOptions::default()).unwrap();
    let plan = s.decode_plan();
    assert!(plan.advances_step());
    let at = |pos: usize| {
        plan.run(1, pos);
        let st = plan.read_step().unwrap();
        (st.n_tokens, st.pos0, st.kv_len)
    };
    // In order: each step leaves the next position behind.
    assert_eq!(at(7), (1, 8, 9));
    assert_eq!(at(8), (1, 9, 10));
    // Back, and forward past the next position: written.
    assert_eq!(at(3), (1, 4, 5));
    assert_eq!(at(20), (1, 21, 22));
    // The greedy tokens of a whole generation (every step after the first unwritten) are the reference's.
    let mut s = Session::new(&model, SessionOptions::default()).unwrap();
    assert_eq!(s.generate(&r.prompt, r.generated.len(), |_| true).unwrap(), r.generated);
}

/// `generate` submits several decode steps at once and reads their tokens back from the decode
/// plan's token log (a ring of 256 positions): across the ring's wrap, with batches cut short by
/// `max_new` and by the callback, its tokens are those of one step a submission, each read back
/// from the sampled-token buffer.
#[test]
fn generate_in_batches_matches_single_steps() {
    let dir = fixture_with_positions("qwen3", 320);
    let model =
        TextModel::load(&exec(), &dir, LoadOptions { format: F32, max_context: 320, ..Default::default() }).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    // Positions 243-262: the log wraps at 256, inside a batch.
    let prompt: Vec<u32> = (0..243).map(|i| 1 + (i * 37) % 300).collect();
    let mut s = Session::new(&model, SessionOptions::default()).unwrap();
    s.prefill(&prompt).unwrap();
    let mut want = vec![s.next_token().unwrap()];
    for _ in 0..20 {
        s.decode_step().unwrap();
        want.push(s.next_token().unwrap());
    }
    for max_new in [21, 7, 1] {
        s.reset();
        assert_eq!(s.generate(&prompt, max_new, |_| true).unwrap(), want[..max_new], "max_new {max_new}");
    }
    // Stopped by the callback mid-batch, then again from the start: the next generation starts right.
    s.reset();
    assert_eq!(s.generate(&prompt, 21, |t| t != want[5]).unwrap(), want[..6]);
    s.reset();
    assert_eq!(s.generate(&prompt, 21, |_| true).unwrap(), want);
}
