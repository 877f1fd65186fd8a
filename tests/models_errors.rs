//! Malformed checkpoints fail their load with a message naming the file and
//! tensor; nothing panics.

mod common;

use std::path::{Path, PathBuf};

use common::exec;
use gerbil::models::llm::{LoadOptions, TextModel};
use gerbil::weights::WeightFormat;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A scratch copy of a fixture folder that the test may damage.
fn scratch_copy(name: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gerbil-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(fixture(name)).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            continue; // reference data (whisper/ref), not part of the model
        }
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    dir
}

fn load_err(dir: &Path) -> String {
    let opts = LoadOptions { format: WeightFormat::F32, max_context: 64, prefill_chunk: 16, ..Default::default() };
    match TextModel::load(&exec(), dir, opts) {
        Ok(_) => panic!("{} loaded but should not", dir.display()),
        Err(e) => e.to_string(),
    }
}

/// Rewrites one tensor's header entry of a single-file checkpoint.
fn edit_header(path: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let bytes = std::fs::read(path).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    f(&mut header);
    let mut h = serde_json::to_vec(&header).unwrap();
    while !h.len().is_multiple_of(8) {
        h.push(b' ');
    }
    let mut out = (h.len() as u64).to_le_bytes().to_vec();
    out.extend(h);
    out.extend(&bytes[8 + n..]);
    std::fs::write(path, out).unwrap();
}

#[test]
fn missing_tensor_names_tensor_and_folder() {
    let dir = scratch_copy("qwen3", "missing");
    edit_header(&dir.join("model.safetensors"), |h| {
        let v = h.as_object_mut().unwrap().remove("model.layers.1.mlp.down_proj.weight").unwrap();
        // Keep the data offsets contiguous by renaming instead of dropping the bytes.
        h.as_object_mut().unwrap().insert("model.layers.1.mlp.renamed.weight".into(), v);
    });
    let e = load_err(&dir);
    assert!(e.contains("model.layers.1.mlp.down_proj.weight") && e.contains(dir.to_str().unwrap()), "{e}");
}

#[test]
fn wrong_shape_names_tensor_and_shapes() {
    let dir = scratch_copy("qwen3", "shape");
    edit_header(&dir.join("model.safetensors"), |h| {
        let t = &mut h["model.layers.0.self_attn.o_proj.weight"];
        let s: Vec<u64> = t["shape"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        t["shape"] = serde_json::json!([s[1], s[0]]);
    });
    let e = load_err(&dir);
    assert!(e.contains("model.layers.0.self_attn.o_proj.weight") && e.contains("expected"), "{e}");
}

#[test]
fn unknown_architecture_is_named() {
    let dir = scratch_copy("llama3_rope", "arch");
    let p = dir.join("config.json");
    let text = std::fs::read_to_string(&p).unwrap().replace("LlamaForCausalLM", "FancyNewForCausalLM");
    std::fs::write(&p, text).unwrap();
    let e = load_err(&dir);
    assert!(e.contains("FancyNewForCausalLM") && e.contains("config.json") && e.contains("Qwen3ForCausalLM"), "{e}");
}

#[test]
fn truncated_safetensors_names_file() {
    let dir = scratch_copy("qwen3", "trunc");
    let p = dir.join("model.safetensors");
    let bytes = std::fs::read(&p).unwrap();
    for cut in [bytes.len() - 1, bytes.len() / 2, 20, 3, 0] {
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let e = load_err(&dir);
        assert!(e.contains("model.safetensors"), "cut at {cut}: {e}");
    }
}

#[test]
fn bad_config_json_is_reported() {
    let dir = scratch_copy("qwen3", "config");
    std::fs::write(dir.join("config.json"), "{\"architectures\": [\"Qwen3ForCausalLM\"], \"hidden_size\": ").unwrap();
    let e = load_err(&dir);
    assert!(e.contains("config.json"), "{e}");
    std::fs::write(
        dir.join("config.json"),
        r#"{"architectures":["Qwen3ForCausalLM"],"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
            "num_attention_heads":4,"num_key_value_heads":3,"rms_norm_eps":1e-6,"vocab_size":384}"#,
    )
    .unwrap();
    let e = load_err(&dir);
    assert!(e.contains("num_key_value_heads"), "{e}");
}

/// Numbers that would not fail anywhere but give NaN logits (rope_theta <= 0, a negative epsilon)
/// or a context of nothing (which the GPU refused mid-load, taking the server down) fail the
/// config, in every text family.
#[test]
fn out_of_range_config_numbers_are_refused() {
    for family in ["qwen3", "lfm2", "qwen3_5"] {
        let eps = if family == "lfm2" { "norm_eps" } else { "rms_norm_eps" };
        for (field, value, says) in [
            ("max_position_embeddings", serde_json::json!(0), "max_position_embeddings"),
            ("rope_theta", serde_json::json!(0.0), "rope_theta"),
            ("rope_theta", serde_json::json!(-1.0), "rope_theta"),
            (eps, serde_json::json!(-1.0), "epsilon"),
        ] {
            let dir = scratch_copy(family, &format!("num-{family}-{field}"));
            let p = dir.join("config.json");
            let mut c: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            let t = if c.get("text_config").is_some() { &mut c["text_config"] } else { &mut c };
            // Where rope_theta sits inside rope_parameters, that one is read first.
            if field == "rope_theta" && t.get("rope_parameters").is_some_and(|r| r.get("rope_theta").is_some()) {
                t["rope_parameters"]["rope_theta"] = value.clone();
            }
            t[field] = value.clone();
            std::fs::write(&p, c.to_string()).unwrap();
            let e = load_err(&dir);
            assert!(e.contains(says), "{family} {field}={value}: {e}");
        }
    }
}

/// A tokenizer with ids past the model's vocabulary (another model's tokenizer) fails the load,
/// rather than sending out-of-range rows to the GPU; so does a context of 0 tokens.
#[test]
fn tokenizer_larger_than_the_vocabulary_and_zero_context_are_refused() {
    let dir = scratch_copy("qwen3", "vocab");
    let p = dir.join("tokenizer.json");
    let mut t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let vocab = t["model"]["vocab"].as_object().unwrap().len() as u64;
    let added = t["added_tokens"].as_array_mut().unwrap();
    let next = added.iter().map(|a| a["id"].as_u64().unwrap() + 1).max().unwrap_or(0).max(vocab);
    for i in 0..8 {
        added.push(serde_json::json!({"id": next + i, "content": format!("<extra_{i}>"), "single_word": false,
            "lstrip": false, "rstrip": false, "normalized": false, "special": true}));
    }
    std::fs::write(&p, t.to_string()).unwrap();
    let e = load_err(&dir);
    assert!(e.contains("tokenizer has"), "{e}");

    let opts = LoadOptions { format: WeightFormat::F32, max_context: 0, ..Default::default() };
    let e = TextModel::load(&exec(), &fixture("qwen3"), opts).err().expect("a context of 0 loads").to_string();
    assert!(e.contains("max_context"), "{e}");
}

/// A config.json with fewer layers than its checkpoint (another model's config) would run a
/// truncated network; the load fails naming the first tensor of a layer it does not have.
#[test]
fn checkpoint_layers_past_the_config_are_refused() {
    let dir = scratch_copy("qwen3", "layers");
    let p = dir.join("config.json");
    let mut c: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    c["num_hidden_layers"] = serde_json::json!(1);
    c["layer_types"] = serde_json::json!(["full_attention"]);
    std::fs::write(&p, c.to_string()).unwrap();
    let e = load_err(&dir);
    assert!(e.contains("'model.layers.1.") && e.contains("1 layer(s) under 'model.layers'"), "{e}");

    // The speech families too: Whisper's decoder cut to one layer.
    let dir = scratch_copy("whisper", "layers-whisper");
    let p = dir.join("config.json");
    let mut c: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    c["decoder_layers"] = serde_json::json!(1);
    std::fs::write(&p, c.to_string()).unwrap();
    let e = gerbil::models::whisper::Whisper::load(&exec(), &dir).err().expect("loaded a cut decoder").to_string();
    assert!(e.contains("'model.decoder.layers.1."), "{e}");
}
