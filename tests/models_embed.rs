//! Decoder embedders (src/models/llm/embed.rs) against transformers: the Qwen3-Embedding-shaped
//! fixture (tools/make_fixtures_embed.py: a bare `Qwen3Model` checkpoint, sentence-transformers
//! files pooling the last token) gives transformers' last_hidden_state, pooled and normalised, for
//! inputs shorter and longer than a prefill chunk; mean and first-token pooling pool the same rows.

mod common;

use std::path::PathBuf;

use common::exec;
use gerbil::models::llm::embed::{normalize, EmbedConfig, Embedder, Pooling};
use gerbil::models::llm::{LoadOptions, TextModel};
use gerbil::weights::WeightFormat;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen3_embed")
}

struct Case {
    text: String,
    ids: Vec<u32>,
    /// [tokens, hidden]
    hidden: Vec<f32>,
}

fn cases() -> (Vec<Case>, usize) {
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture().join("meta.json")).unwrap()).unwrap();
    let bytes = std::fs::read(fixture().join("reference.safetensors")).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let floats = |name: &str| -> Vec<f32> {
        st.tensor(name).unwrap().data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect()
    };
    let ints = |name: &str| -> Vec<u32> {
        st.tensor(name).unwrap().data().chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).collect()
    };
    let cases = meta["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, t)| Case { text: t.as_str().unwrap().into(), ids: ints(&format!("ids_{i}")), hidden: floats(&format!("hidden_{i}")) })
        .collect();
    (cases, meta["hidden"].as_u64().unwrap() as usize)
}

fn load(chunk: usize) -> TextModel {
    let opts = LoadOptions { format: WeightFormat::F32, max_context: 96, prefill_chunk: chunk, ..Default::default() };
    TextModel::load(&exec(), &fixture(), opts).unwrap()
}

/// The reference's pooling of `hidden` ([tokens, width]).
fn pool(hidden: &[f32], width: usize, pooling: Pooling, norm: bool) -> Vec<f32> {
    let rows: Vec<&[f32]> = hidden.chunks_exact(width).collect();
    let mut v = match pooling {
        Pooling::LastToken => rows[rows.len() - 1].to_vec(),
        Pooling::Cls => rows[0].to_vec(),
        Pooling::Mean => (0..width).map(|j| rows.iter().map(|r| r[j]).sum::<f32>() / rows.len() as f32).collect(),
    };
    if norm {
        normalize(&mut v);
    }
    v
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let n = |v: &[f32]| v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    dot / (n(a) * n(b))
}

fn check(e: &mut Embedder, cases: &[Case], width: usize, what: &str) {
    for (i, c) in cases.iter().enumerate() {
        let got = e.embed(&c.ids).unwrap();
        let want = pool(&c.hidden, width, e.config.pooling, e.config.normalize);
        assert_eq!(got.len(), width);
        let d = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        let cos = cosine(&got, &want);
        eprintln!("{what}, input {i} ({} tokens): max |diff| {d:.1e}, cosine {cos:.7}", c.ids.len());
        assert!(cos >= 0.9999, "{what}, input {i}: cosine {cos}");
        // Pooled values are O(0.1-1) (normalised) or O(1) (raw hidden rows): 1e-4 is f32 rounding through
        // two layers, far below a wrong row's or a wrong position's O(0.1).
        assert!(d <= 1e-4, "{what}, input {i}: max |diff| {d}");
    }
}

#[test]
fn last_token_embeddings_match_transformers_within_and_across_chunks() {
    let (cases, width) = cases();
    let model = load(16);
    let tok = model.tokenizer.as_ref().unwrap();
    for c in &cases {
        assert_eq!(tok.encode(&c.text, true).unwrap(), c.ids, "the tokenizer appends <|endoftext|> as the reference's");
    }
    let config = EmbedConfig::read(&fixture()).unwrap();
    assert_eq!(config, EmbedConfig { pooling: Pooling::LastToken, normalize: true, matryoshka: Some(vec![]) });
    assert!(EmbedConfig::is_embedding_model(&fixture()));
    let mut e = Embedder::new(&model, config).unwrap();
    assert_eq!(e.dims(), width);
    assert!(cases.iter().any(|c| c.ids.len() > 16) && cases.iter().any(|c| c.ids.len() <= 16));
    check(&mut e, &cases, width, "last token");
    // Inputs in another order give the same vectors (nothing of one input leaks into the next).
    let mut rev: Vec<Case> = Vec::new();
    for c in cases.iter().rev() {
        rev.push(Case { text: c.text.clone(), ids: c.ids.clone(), hidden: c.hidden.clone() });
    }
    check(&mut e, &rev, width, "last token, reversed order");
}

#[test]
fn mean_and_first_token_pooling_with_and_without_normalising() {
    let (cases, width) = cases();
    let model = load(16);
    for (pooling, normalize) in [(Pooling::Mean, false), (Pooling::Mean, true), (Pooling::Cls, false), (Pooling::LastToken, false)] {
        let config = EmbedConfig { pooling, normalize, matryoshka: None };
        let mut e = Embedder::new(&model, config).unwrap();
        check(&mut e, &cases, width, &format!("{pooling:?}, normalize {normalize}"));
    }
}

#[test]
fn one_chunk_and_many_chunks_agree() {
    let (cases, width) = cases();
    let long = cases.iter().max_by_key(|c| c.ids.len()).unwrap();
    let mut whole = Embedder::new(&load(64), EmbedConfig::read(&fixture()).unwrap()).unwrap();
    let mut small = Embedder::new(&load(8), EmbedConfig::read(&fixture()).unwrap()).unwrap();
    let a = whole.embed(&long.ids).unwrap();
    let b = small.embed(&long.ids).unwrap();
    assert_eq!(a.len(), width);
    let d = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    assert!(d <= 1e-5, "one chunk against chunks of 8: {d}");
}

#[test]
fn empty_and_too_long_inputs_are_refused() {
    let mut e = Embedder::new(&load(16), EmbedConfig::read(&fixture()).unwrap()).unwrap();
    assert!(e.embed(&[]).is_err());
    assert_eq!(e.max_tokens(), 96);
    assert!(e.embed(&[5; 97]).is_err());
    assert_eq!(e.embed(&[5; 96]).unwrap().len(), e.dims());
}
