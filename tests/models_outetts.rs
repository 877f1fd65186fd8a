//! OuteTTS 1.0 end to end against transformers on the tiny random fixture of
//! tools/make_fixtures_outetts.py: the v3 prompt with a speaker profile tokenizes to the same ids
//! as the Python prompt builder's, greedy decoding writes the same tokens (hence the same c1/c2
//! codes), and the DAC turns them into the same audio (<= 1e-3 relative to the peak).

mod common;

use std::path::PathBuf;

use gerbil::models::llm::LoadOptions;
use gerbil::models::outetts::{completion_prompt, CodeSampling, OuteTts, Speaker};
use gerbil::weights::WeightFormat;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outetts")
}

struct Reference {
    prompt: Vec<u32>,
    plain_prompt: Vec<u32>,
    generated: Vec<u32>,
    codes: Vec<Vec<u32>>,
    audio: Vec<f32>,
    text: String,
    prompt_text: String,
}

fn reference() -> Reference {
    let dir = fixture().join("llama");
    let bytes = std::fs::read(dir.join("reference.safetensors")).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let ids = |n: &str| -> Vec<u32> {
        st.tensor(n).unwrap().data().chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap()) as u32).collect()
    };
    let codes = ids("codes");
    let frames = codes.len() / 2;
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    Reference {
        prompt: ids("prompt_ids"),
        plain_prompt: ids("plain_prompt_ids"),
        generated: ids("generated_ids"),
        codes: codes.chunks(frames).map(|c| c.to_vec()).collect(),
        audio: st
            .tensor("audio")
            .unwrap()
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect(),
        text: meta["text"].as_str().unwrap().into(),
        prompt_text: meta["prompt"].as_str().unwrap().into(),
    }
}

fn load() -> OuteTts {
    let dir = fixture();
    let opts = LoadOptions { format: WeightFormat::F32, max_context: 512, ..Default::default() };
    OuteTts::load(&common::exec(), &dir.join("llama"), &dir.join("dac"), Some(&dir.join("speaker.json")), opts).unwrap()
}

#[test]
fn prompt_matches_outetts_v3() {
    let r = reference();
    let speaker = Speaker::load(&fixture().join("speaker.json")).unwrap();
    assert_eq!(completion_prompt(&r.text, Some(&speaker)), r.prompt_text);
    let tts = load();
    assert_eq!(tts.prompt_ids(&r.text).unwrap(), r.prompt);
    let tok = tts.model.tokenizer.as_ref().unwrap();
    assert_eq!(tok.encode(&completion_prompt(&r.text, None), false).unwrap(), r.plain_prompt);
}

#[test]
fn greedy_codes_and_audio_match_transformers() {
    let r = reference();
    let mut tts = load();
    assert_eq!(tts.sample_rate(), 24000);
    let out = tts.synthesize(&r.text, &CodeSampling::greedy(40)).unwrap();
    assert_eq!(out.prompt_ids, r.prompt);
    assert_eq!(out.generated, r.generated, "greedy tokens");
    assert_eq!(out.codes.to_vec(), r.codes, "parsed codes");
    assert_eq!(out.audio.len(), r.audio.len());
    let peak = r.audio.iter().fold(0f32, |m, v| m.max(v.abs()));
    let err = out.audio.iter().zip(&r.audio).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max) / peak;
    eprintln!(
        "outetts: {} prompt tokens, {} generated, {} frames, {} samples, max rel err {err:.2e}",
        r.prompt.len(),
        out.generated.len(),
        out.codes[0].len(),
        out.audio.len()
    );
    assert!(err <= 1e-3, "audio differs from transformers: {err}");
}

#[test]
fn seeded_sampling_is_reproducible() {
    let mut tts = load();
    let s = CodeSampling { seed: Some(11), max_new_tokens: 24, ..Default::default() };
    let a = tts.synthesize("Sampling test.", &s).unwrap();
    let b = tts.synthesize("Sampling test.", &s).unwrap();
    assert_eq!(a.generated, b.generated);
    assert!(!a.generated.is_empty() && a.generated.len() <= 24);
    assert_eq!(a.codes[0].len(), a.codes[1].len());
    assert_eq!(a.audio, b.audio);
}
