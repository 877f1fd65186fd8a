//! POST /v1/embeddings against the embedding fixtures (tools/make_fixtures_embed.py: a decoder
//! embedder and a BERT encoder), served beside the text fixture: every input form gives transformers' pooled vector in input order, base64
//! is the same vector's bytes, `dimensions` truncates and renormalises, and bad input gets a 400
//! naming its field.

mod common;
mod http_support;

use base64::Engine;
use common::embed_reference::{bert_fixture, cosine, embed_cases, embed_cases_in, embed_fixture, max_abs_diff, pool};
use gerbil::config::{ModelSpec, ModelTask, WeightKind};
use gerbil::models::embedding::Pooling;
use http_support::*;
use serde_json::{json, Value};

const EMBED: &str = "embed";
const BERT: &str = "bert";

fn server() -> &'static TestServer {
    static S: std::sync::OnceLock<TestServer> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let mut cfg = config();
        let mut spec = ModelSpec::from_source(&embed_fixture().to_string_lossy());
        spec.name = Some(EMBED.into());
        // f32 weights and caches: the vectors compare with transformers' to rounding (the default f16
        // cache alone moves them by ~1e-4).
        spec.format = WeightKind::F32;
        spec.kv_dtype = gerbil::gpu::KvDtype::F32;
        cfg.models.push(spec);
        // Found as an embedding model by its config.json (model_type bert), no `task` needed.
        let mut bert = ModelSpec::from_source(&bert_fixture().to_string_lossy());
        bert.name = Some(BERT.into());
        cfg.models.push(bert);
        start(cfg)
    })
}

fn vectors(v: &Value) -> Vec<Vec<f32>> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, d)| {
            assert_eq!((d["object"].as_str(), d["index"].as_u64()), (Some("embedding"), Some(i as u64)), "{d}");
            d["embedding"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
        })
        .collect()
}

fn assert_matches(got: &[f32], want: &[f32], what: &str) {
    let (d, cos) = (max_abs_diff(got, want), cosine(got, want));
    assert!(cos >= 0.9999 && d <= 1e-5, "{what}: max |diff| {d}, cosine {cos}");
}

#[test]
fn every_input_form_gives_the_reference_vectors_in_order() {
    let (cases, width) = embed_cases();
    let want: Vec<Vec<f32>> = cases.iter().map(|c| pool(&c.hidden, width, Pooling::LastToken, true)).collect();
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    let tokens: Vec<&Vec<u32>> = cases.iter().map(|c| &c.ids).collect();
    let total: usize = cases.iter().map(|c| c.ids.len()).sum();
    for (input, n) in
        [(json!(texts), cases.len()), (json!(tokens), cases.len()), (json!(texts[2]), 1), (json!(cases[1].ids), 1)]
    {
        let (status, v) = server().post("/v1/embeddings", &json!({"model": EMBED, "input": input}));
        assert_eq!(status, 200, "{v}");
        assert_eq!((v["object"].as_str(), v["model"].as_str()), (Some("list"), Some(EMBED)));
        let got = vectors(&v);
        assert_eq!(got.len(), n);
        let expected: Vec<&Vec<f32>> = match n {
            1 if input.is_string() => vec![&want[2]],
            1 => vec![&want[1]],
            _ => want.iter().collect(),
        };
        let tokens_in: usize = match n {
            1 if input.is_string() => cases[2].ids.len(),
            1 => cases[1].ids.len(),
            _ => total,
        };
        for (i, (g, w)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g.len(), width);
            assert_matches(g, w, &format!("{input}: input {i}"));
        }
        assert_eq!(v["usage"], json!({"prompt_tokens": tokens_in, "total_tokens": tokens_in}));
    }
}

#[test]
fn base64_is_the_float_vector_and_dimensions_truncate() {
    let (cases, width) = embed_cases();
    let body = |extra: Value| {
        let mut b = json!({"model": EMBED, "input": [cases[0].text, cases[2].text]});
        b.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        b
    };
    let (_, floats) = server().post("/v1/embeddings", &body(json!({"encoding_format": "float"})));
    let floats = vectors(&floats);
    let (status, b64) = server().post("/v1/embeddings", &body(json!({"encoding_format": "base64"})));
    assert_eq!(status, 200, "{b64}");
    for (i, d) in b64["data"].as_array().unwrap().iter().enumerate() {
        let bytes = base64::engine::general_purpose::STANDARD.decode(d["embedding"].as_str().unwrap()).unwrap();
        let v: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
        assert_eq!(v, floats[i], "input {i}: base64 holds the float vector's bits");
    }
    // Matryoshka: the first d values, back at unit length.
    for d in [1, 7, width - 1, width] {
        let (status, v) = server().post("/v1/embeddings", &body(json!({"dimensions": d})));
        assert_eq!(status, 200, "{v}");
        for (i, got) in vectors(&v).iter().enumerate() {
            let mut want = floats[i][..d].to_vec();
            gerbil::models::embedding::normalize(&mut want);
            assert_eq!(got.len(), d);
            assert!(max_abs_diff(got, &want) <= 1e-6, "dimensions {d}, input {i}");
            let norm: f32 = got.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5, "dimensions {d}: |v| = {norm}");
        }
    }
}

#[test]
fn bad_embedding_requests_name_the_field() {
    let (cases, width) = embed_cases();
    let long = vec![5u32; 257];
    for (body, param) in [
        (json!({"model": EMBED, "input": ""}), "input"),
        (json!({"model": EMBED, "input": []}), "input"),
        (json!({"model": EMBED, "input": ["a", ""]}), "input"),
        (json!({"model": EMBED, "input": [[]]}), "input"),
        (json!({"model": EMBED, "input": [1, 384]}), "input"),
        (json!({"model": EMBED, "input": [1, -1]}), "input"),
        (json!({"model": EMBED, "input": long}), "input"),
        (json!({"model": EMBED, "input": vec!["a"; 2049]}), "input"),
        (json!({"model": EMBED}), "input"),
        (json!({"model": EMBED, "input": {"text": "a"}}), "input"),
        (json!({"model": EMBED, "input": "a", "dimensions": 0}), "dimensions"),
        (json!({"model": EMBED, "input": "a", "dimensions": width + 1}), "dimensions"),
        (json!({"model": EMBED, "input": "a", "encoding_format": "int8"}), "encoding_format"),
        (json!({"model": EMBED, "input": "a", "temperature": 1}), "temperature"),
    ] {
        let (status, v) = server().post("/v1/embeddings", &body);
        assert_eq!(status, 400, "{body}: {v}");
        assert_eq!(v["error"]["param"], param, "{body}: {v}");
        assert_eq!(v["error"]["type"], "invalid_request_error", "{v}");
    }
    // An unknown name, and a text model's (it serves no embeddings).
    for model in ["missing", MODEL] {
        let (status, v) = server().post("/v1/embeddings", &json!({"model": model, "input": "a"}));
        assert_eq!(
            (status, &v["error"]["code"], &v["error"]["param"]),
            (404, &json!("model_not_found"), &json!("model")),
            "{v}"
        );
    }
    // The longest input the model takes is accepted: the limit is the context, not one less.
    let (status, v) = server().post("/v1/embeddings", &json!({"model": EMBED, "input": vec![5u32; 256]}));
    assert_eq!(status, 200, "{v}");
    // The server keeps serving after the refusals.
    let (status, v) = server().post("/v1/embeddings", &json!({"model": EMBED, "input": cases[3].text}));
    assert_eq!(status, 200, "{v}");
}

#[test]
fn the_embedding_model_is_listed_and_generation_still_works_beside_it() {
    let (status, body) = server().get("/v1/models");
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    let ids: Vec<&str> = v["data"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec![MODEL, EMBED, BERT]);
    let (status, v) = server().post("/v1/completions", &json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 3}));
    assert_eq!(status, 200, "{v}");
    // An embedding model does not generate.
    let (status, v) = server().post("/v1/completions", &json!({"model": EMBED, "prompt": PROMPT, "max_tokens": 3}));
    assert_eq!(status, 404, "{v}");
}

#[test]
fn task_generate_serves_an_embedding_checkpoint_as_a_text_model() {
    let mut spec = ModelSpec::from_source(&embed_fixture().to_string_lossy());
    spec.name = Some(EMBED.into());
    spec.task = ModelTask::Generate;
    let mut cfg = config();
    cfg.models = vec![spec];
    let s = start(cfg);
    let (status, v) = s.post("/v1/embeddings", &json!({"model": EMBED, "input": "a"}));
    assert_eq!((status, &v["error"]["code"]), (404, &json!("model_not_found")), "{v}");
    let (status, v) = s.post("/v1/completions", &json!({"model": EMBED, "prompt": "a", "max_tokens": 2}));
    assert_eq!(status, 200, "{v}");
}

#[test]
fn a_bert_encoder_serves_mean_pooled_vectors_and_refuses_dimensions() {
    let (cases, width) = embed_cases_in(&bert_fixture());
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    let (status, v) = server().post("/v1/embeddings", &json!({"model": BERT, "input": texts}));
    assert_eq!(status, 200, "{v}");
    for (i, (got, c)) in vectors(&v).iter().zip(&cases).enumerate() {
        assert_matches(got, &pool(&c.hidden, width, Pooling::Mean, true), &format!("bert input {i}"));
    }
    let total: usize = cases.iter().map(|c| c.ids.len()).sum();
    assert_eq!(v["usage"]["prompt_tokens"], total, "[CLS] and [SEP] counted");
    // No Matryoshka field in its config: `dimensions` is refused; its 128 positions bound an input.
    for (body, param) in [
        (json!({"model": BERT, "input": "a", "dimensions": 8}), "dimensions"),
        (json!({"model": BERT, "input": vec![5u32; 129]}), "input"),
        (json!({"model": BERT, "input": [1, 134]}), "input"),
    ] {
        let (status, v) = server().post("/v1/embeddings", &body);
        assert_eq!((status, &v["error"]["param"]), (400, &json!(param)), "{body}: {v}");
    }
    let (status, v) = server().post("/v1/embeddings", &json!({"model": BERT, "input": vec![5u32; 128]}));
    assert_eq!(status, 200, "{v}");
}

/// `dir` copied to `to`, with `edit` applied to the copy.
fn copy_fixture(dir: &std::path::Path, to: &std::path::Path, edit: impl FnOnce(&std::path::Path)) {
    let _ = std::fs::remove_dir_all(to);
    for entry in walk(dir) {
        let rel = entry.strip_prefix(dir).unwrap();
        std::fs::create_dir_all(to.join(rel).parent().unwrap()).unwrap();
        std::fs::copy(&entry, to.join(rel)).unwrap();
    }
    edit(to);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_corrupt_embedding_model_fails_its_own_load_and_the_rest_serves() {
    let root = std::env::temp_dir().join(format!("gerbil-corrupt-embed-{}", std::process::id()));
    let truncated = root.join("truncated");
    copy_fixture(&bert_fixture(), &truncated, |d| {
        let bytes = std::fs::read(d.join("model.safetensors")).unwrap();
        std::fs::write(d.join("model.safetensors"), &bytes[..bytes.len() / 2]).unwrap();
    });
    let max_pooling = root.join("max-pooling");
    copy_fixture(&embed_fixture(), &max_pooling, |d| {
        std::fs::write(d.join("1_Pooling/config.json"), r#"{"pooling_mode_max_tokens": true}"#).unwrap();
    });
    let mut cfg = config();
    for (dir, name) in [(&truncated, "truncated"), (&max_pooling, "max-pooling"), (&bert_fixture(), BERT)] {
        let mut spec = ModelSpec::from_source(&dir.to_string_lossy());
        spec.name = Some(name.into());
        cfg.models.push(spec);
    }
    let s = start_allowing_failures(cfg);
    let ready: Value = client().get(s.url("/ready")).send().unwrap().json().unwrap();
    let failed = ready["failed"].as_array().cloned().unwrap_or_default();
    let error_of = |id: &str| failed.iter().find(|f| f["id"] == id).map(|f| f["error"].to_string()).unwrap_or_default();
    assert!(error_of("truncated").contains("model.safetensors"), "{ready}");
    assert!(error_of("max-pooling").contains("max pooling is not supported"), "{ready}");
    assert_eq!(failed.len(), 2, "{ready}");
    let (status, v) = s.post("/v1/embeddings", &json!({"model": BERT, "input": "still here"}));
    assert_eq!(status, 200, "{v}");
    let (status, v) = s.post("/v1/completions", &json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 2}));
    assert_eq!(status, 200, "{v}");
    let _ = std::fs::remove_dir_all(&root);
}
