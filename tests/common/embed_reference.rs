//! The embedding fixtures (tools/make_fixtures_embed.py): their inputs, their token ids and
//! transformers' last_hidden_state rows, and the poolings of those rows.

use std::path::PathBuf;

use gerbil::models::embedding::{normalize, Pooling};

/// The decoder embedder (Qwen3-Embedding layout).
pub fn embed_fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen3_embed")
}

/// The BERT encoder (all-MiniLM layout: mean pooling, normalised).
pub fn bert_fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bert_embed")
}

pub struct EmbedCase {
    pub text: String,
    pub ids: Vec<u32>,
    /// [tokens, width]
    pub hidden: Vec<f32>,
}

/// The decoder fixture's inputs and the hidden width.
pub fn embed_cases() -> (Vec<EmbedCase>, usize) {
    embed_cases_in(&embed_fixture())
}

/// The inputs of the fixture in `dir` and its hidden width.
pub fn embed_cases_in(dir: &std::path::Path) -> (Vec<EmbedCase>, usize) {
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let bytes = std::fs::read(dir.join("reference.safetensors")).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let words = |name: &str| -> Vec<[u8; 4]> {
        st.tensor(name).unwrap().data().chunks_exact(4).map(|b| b.try_into().unwrap()).collect()
    };
    let cases = meta["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, t)| EmbedCase {
            text: t.as_str().unwrap().into(),
            ids: words(&format!("ids_{i}")).into_iter().map(u32::from_le_bytes).collect(),
            hidden: words(&format!("hidden_{i}")).into_iter().map(f32::from_le_bytes).collect(),
        })
        .collect();
    (cases, meta["hidden"].as_u64().unwrap() as usize)
}

/// The reference's pooling of `hidden` ([tokens, width]).
pub fn pool(hidden: &[f32], width: usize, pooling: Pooling, norm: bool) -> Vec<f32> {
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

pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let n = |v: &[f32]| v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    dot / (n(a) * n(b))
}

pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max)
}
