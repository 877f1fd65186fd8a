//! LFM2 (short-conv + attention hybrid) against Hugging Face transformers:
//! the tiny random-weight checkpoint made by tools/make_fixtures_lfm2.py, with
//! reference logits for every prompt row and 32 greedy decode steps.
//!
//! The fixture's 2-D weights sit exactly on an INT4 grid, so the INT4 path is
//! held to the f32 tolerance (the depthwise conv weights stay f32).

mod common;

use std::path::PathBuf;

use common::exec;
use gerbil::models::lfm2::config::{LayerKind, Lfm2Config, RawConfig};
use gerbil::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use gerbil::weights::WeightFormat;

use common::reference_fixture::{max_diff, read_reference, Reference};

fn fixture() -> PathBuf {
    common::reference_fixture::fixture_dir("lfm2")
}

fn reference() -> Reference {
    read_reference("lfm2")
}

fn load(format: WeightFormat, chunk: usize) -> TextModel {
    let opts = LoadOptions { format, max_context: 128, prefill_chunk: chunk, ..Default::default() };
    TextModel::load(&exec(), &fixture(), opts).unwrap()
}

/// Prefill (in chunks of `chunk`; the logits of the last chunk's rows are
/// compared), then 32 free-running greedy decode steps: logits within `tol`,
/// tokens identical. Returns every step's logits.
fn check_session(s: &mut Session, r: &Reference, what: &str, chunk: usize, tol: f32) -> Vec<Vec<f32>> {
    let t = r.prompt.len();
    s.prefill(&r.prompt).unwrap();
    let last = if t.is_multiple_of(chunk) { chunk } else { t % chunk };
    let got = s.logits().unwrap();
    let d = max_diff(&got, &r.prefill_logits[(t - last) * r.vocab..]);
    eprintln!("{what}: prefill ({last} rows of the last chunk) max |logit diff| {d:.2e}");
    assert!(d <= tol, "{what}: prefill logits differ by {d}");
    assert_eq!(s.next_token().unwrap(), r.generated[0], "{what}: first token");
    let (mut worst, mut all) = (0f32, vec![]);
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
fn lfm2_f32_prefill_and_decode() {
    let r = reference();
    let model = load(WeightFormat::F32, 64);
    assert_eq!(model.arch.family(), "lfm2");
    let tok = model.tokenizer.as_ref().unwrap();
    assert_eq!(tok.encode(&r.prompt_text, false).unwrap(), r.prompt, "tokenizer");
    let mut s = Session::new(&model, SessionOptions { all_logits: true }).unwrap();
    let first = check_session(&mut s, &r, "lfm2 f32", 64, 1e-3);
    // A second sequence on the same session: the conv state must be zeroed
    // (stale state would change every logit) and the KV cache overwritten.
    s.reset();
    let again = check_session(&mut s, &r, "lfm2 f32 after reset", 64, 1e-3);
    assert_eq!(max_diff(&first.concat(), &again.concat()), 0.0, "reset: a replay must be bit-identical");
}

/// Prefill in chunks of 5 and 2 (shorter than, and equal to, the L-1 = 2 rows
/// of conv state) carries the conv state and KV cache across chunks.
#[test]
fn lfm2_chunked_prefill_matches_one_shot() {
    let r = reference();
    let one_shot = {
        let m = load(WeightFormat::F32, 64);
        let mut s = Session::new(&m, SessionOptions { all_logits: true }).unwrap();
        check_session(&mut s, &r, "lfm2 one-shot", 64, 1e-3)
    };
    for chunk in [5, 2] {
        let m = load(WeightFormat::F32, chunk);
        let mut s = Session::new(&m, SessionOptions { all_logits: true }).unwrap();
        let got = check_session(&mut s, &r, &format!("lfm2 chunk {chunk}"), chunk, 1e-3);
        let d = max_diff(&got.concat(), &one_shot.concat());
        eprintln!("lfm2 chunk {chunk}: decode logits vs one-shot prefill {d:.2e}");
        assert!(d <= 1e-4, "chunk {chunk}: decode logits differ from one-shot prefill by {d}");
    }
}

#[test]
fn lfm2_int4_on_grid_weights() {
    let r = reference();
    for group in [32, 64] {
        let m = load(WeightFormat::Int4 { group }, 5);
        let mut s = Session::new(&m, SessionOptions { all_logits: true }).unwrap();
        check_session(&mut s, &r, &format!("lfm2 int4 g{group}"), 5, 1e-3);
    }
}

/// The pipelined generate loop (token ids staying on the GPU) yields the reference tokens.
#[test]
fn lfm2_pipelined_generate() {
    let r = reference();
    let m = load(WeightFormat::Int4 { group: 32 }, 64);
    let mut s = Session::new(&m, SessionOptions::default()).unwrap();
    assert_eq!(s.generate(&r.prompt, r.generated.len(), |_| true).unwrap(), r.generated);
    s.reset();
    assert_eq!(s.generate(&r.prompt, r.generated.len(), |_| true).unwrap(), r.generated, "after reset");
}

fn parse(extra: &str) -> Result<Lfm2Config, String> {
    let s = format!(
        r#"{{"hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 16, "vocab_size": 65536{extra}}}"#
    );
    Lfm2Config::from_raw(&serde_json::from_str::<RawConfig>(&s).unwrap())
}

/// The real LFM2-350M config.json (what `gerbil bench` / `profile` / `dump-graph` run).
#[test]
fn lfm2_350m_config() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/models/lfm2-350m.json");
    let c = gerbil::models::lfm2::arch::read_config(&path).unwrap();
    // block_ff_dim 6656 -> int(2 * 6656 / 3) = 4437 -> rounded up to a multiple of 256.
    assert_eq!(c.intermediate, 4608);
    let attn: Vec<usize> = (0..c.layers()).filter(|&i| c.layer_kinds[i] == LayerKind::Attention).collect();
    assert_eq!(attn, [2, 5, 8, 10, 12, 14]);
    assert_eq!((c.hidden, c.heads, c.kv_heads, c.head_dim, c.conv_kernel), (1024, 16, 8, 64, 3));
    assert_eq!((c.vocab, c.eos.as_slice(), c.tied, c.rope_theta), (65536, &[7u32][..], true, 1e6));
}

#[test]
fn lfm2_config_variants() {
    let c = parse(r#", "block_ff_dim": 300, "intermediate_size": 9"#).unwrap();
    assert_eq!(c.intermediate, 256, "block_ff_dim wins; 200 rounds up to 256");
    let c = parse(r#", "intermediate_size": 300, "block_ffn_dim_multiplier": null"#).unwrap();
    assert_eq!(c.intermediate, 200, "no multiplier: no rounding");
    let c = parse(r#", "intermediate_size": 300, "block_auto_adjust_ff_dim": false"#).unwrap();
    assert_eq!(c.intermediate, 300);
    assert!(!parse(r#", "intermediate_size": 300, "tie_embedding": false"#).unwrap().tied);
    use LayerKind::*;
    let c = parse(r#", "intermediate_size": 300, "full_attn_idxs": [1, 3]"#).unwrap();
    assert_eq!(c.layer_kinds, [Conv, Attention, Conv, Attention]);
    let c =
        parse(r#", "intermediate_size": 300, "layer_types": ["full_attention", "conv", "conv", "conv"], "full_attn_idxs": [1]"#)
            .unwrap();
    assert_eq!(c.layer_kinds, [Attention, Conv, Conv, Conv], "layer_types wins");
    let bad = parse(r#", "intermediate_size": 300, "layer_types": ["conv", "mamba", "conv", "conv"]"#);
    assert!(bad.unwrap_err().contains("mamba"));
    assert!(parse(r#", "intermediate_size": 300, "conv_L_cache": 1"#).unwrap_err().contains("conv_L_cache"));
    assert!(parse(r#", "intermediate_size": 300, "layer_types": ["conv"]"#).unwrap_err().contains("layer_types"));
}
