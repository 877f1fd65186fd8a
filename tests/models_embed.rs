//! Embedding models against transformers (fixtures from tools/make_fixtures_embed.py):
//! - decoder embedders (src/models/llm/embed.rs): the Qwen3-Embedding-shaped fixture (a bare
//!   `Qwen3Model` checkpoint, sentence-transformers files pooling the last token) gives transformers'
//!   last_hidden_state, pooled and normalised, for inputs shorter and longer than a prefill chunk;
//! - BERT encoders (src/models/bert): a `BertModel` with all-MiniLM's files (mean pooling, normalised).
//!
//! Mean, first-token and last-token pooling pool the same rows.

mod common;

use common::embed_reference::{
    bert_fixture, cosine, embed_cases as cases, embed_cases_in, embed_fixture as fixture, max_abs_diff, pool,
    EmbedCase as Case,
};
use common::exec;
use gerbil::models::embedding::{EmbedConfig, EmbeddingModel, Pooling};
use gerbil::models::llm::embed::Embedder;
use gerbil::models::llm::{LoadOptions, TextModel};
use gerbil::weights::WeightFormat;

fn load(chunk: usize) -> TextModel {
    let opts = LoadOptions { format: WeightFormat::F32, max_context: 96, prefill_chunk: chunk, ..Default::default() };
    TextModel::load(&exec(), &fixture(), opts).unwrap()
}

fn check(e: &mut dyn EmbeddingModel, cases: &[Case], width: usize, what: &str) {
    for (i, c) in cases.iter().enumerate() {
        let got = e.embed(&c.ids).unwrap();
        let want = pool(&c.hidden, width, e.config().pooling, e.config().normalize);
        assert_eq!(got.len(), width);
        let d = max_abs_diff(&got, &want);
        let cos = cosine(&got, &want);
        eprintln!("{what}, input {i} ({} tokens): max |diff| {d:.1e}, cosine {cos:.7}", c.ids.len());
        assert!(cos >= 0.9999, "{what}, input {i}: cosine {cos}");
        // Pooled values are O(0.1-1) (normalised) or O(1) (raw hidden rows); measured at most 1e-6, f32
        // rounding through two layers. A wrong row or position moves them by O(0.1).
        assert!(d <= 1e-5, "{what}, input {i}: max |diff| {d}");
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
    for (pooling, normalize) in
        [(Pooling::Mean, false), (Pooling::Mean, true), (Pooling::Cls, false), (Pooling::LastToken, false)]
    {
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

fn load_bert(config: EmbedConfig, max_context: usize) -> Box<dyn EmbeddingModel> {
    let load = gerbil::models::registry::encoder_embedder(&bert_fixture()).expect("config.json names bert");
    load(&exec(), &bert_fixture(), config, max_context).unwrap()
}

#[test]
fn bert_embeddings_match_transformers_with_every_pooling() {
    let (cases, width) = embed_cases_in(&bert_fixture());
    let tok = gerbil::text::TextTokenizer::from_dir(&bert_fixture(), &[]).unwrap();
    for c in &cases {
        assert_eq!(tok.encode(&c.text, true).unwrap(), c.ids, "[CLS] .. [SEP] as the reference's tokenizer adds them");
    }
    let config = EmbedConfig::read(&bert_fixture()).unwrap();
    assert_eq!(config, EmbedConfig { pooling: Pooling::Mean, normalize: true, matryoshka: None });
    let mut e = load_bert(config, 4096);
    assert_eq!((e.dims(), e.max_tokens(), e.vocab()), (width, 128, 134), "positions bound the input");
    check(&mut *e, &cases, width, "bert mean");
    for (pooling, normalize) in [(Pooling::Cls, true), (Pooling::Mean, false), (Pooling::LastToken, false)] {
        let mut e = load_bert(EmbedConfig { pooling, normalize, matryoshka: None }, 4096);
        check(&mut *e, &cases, width, &format!("bert {pooling:?}, normalize {normalize}"));
    }
}

#[test]
fn bert_inputs_are_bounded_by_positions_and_the_configured_context() {
    let mut e = load_bert(EmbedConfig::read(&bert_fixture()).unwrap(), 4096);
    assert!(e.embed(&[]).is_err());
    assert!(e.embed(&[5; 129]).is_err());
    assert!(e.embed(&[134]).is_err(), "a token past the vocabulary");
    assert_eq!(e.embed(&[5; 128]).unwrap().len(), 64);
    let mut short = load_bert(EmbedConfig::read(&bert_fixture()).unwrap(), 16);
    assert_eq!(short.max_tokens(), 16);
    assert!(short.embed(&[5; 17]).is_err());
}

/// Inputs packed into one pass (attention per input over its own rows) equal each input alone, and
/// more rows than one pass takes (1024) split between passes at input boundaries.
#[test]
fn bert_inputs_packed_together_equal_each_alone() {
    let (cases, width) = embed_cases_in(&bert_fixture());
    let mut e = load_bert(EmbedConfig::read(&bert_fixture()).unwrap(), 4096);
    let inputs: Vec<&[u32]> = cases.iter().map(|c| c.ids.as_slice()).collect();
    let together = e.embed_batch(&inputs).unwrap();
    for (i, (got, c)) in together.iter().zip(&cases).enumerate() {
        let want = pool(&c.hidden, width, Pooling::Mean, true);
        let d = max_abs_diff(got, &want);
        assert!(d <= 1e-5, "packed input {i}: max |diff| {d} against transformers");
        assert!(max_abs_diff(got, &e.embed(&c.ids).unwrap()) <= 1e-6, "packed input {i} against itself alone");
    }
    // 12 inputs of 100 tokens: 1200 rows, so two passes (10 inputs, then 2).
    let mut r = common::rng("bert packed passes");
    let many: Vec<Vec<u32>> =
        (0..12).map(|_| (0..100).map(|_| rand::Rng::random_range(&mut r, 5..134)).collect()).collect();
    let refs: Vec<&[u32]> = many.iter().map(Vec::as_slice).collect();
    let packed = e.embed_batch(&refs).unwrap();
    assert_eq!(packed.len(), 12);
    for (i, t) in many.iter().enumerate() {
        let d = max_abs_diff(&packed[i], &e.embed(t).unwrap());
        assert!(d <= 1e-6, "input {i} of two passes against itself alone: {d}");
    }
    assert!(e.embed_batch(&[&[5u32; 3][..], &[]]).is_err(), "an empty input fails the batch before any work");
}
