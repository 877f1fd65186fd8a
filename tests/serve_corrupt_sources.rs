//! A corrupt or truncated published model file (Piper .onnx, CTranslate2 model.bin, Moonshine
//! .ort) fails its own load, with the file named in /ready, and the server keeps serving the
//! rest: here the fixture LLM answers and the good files beside the bad ones load.

mod http_support;

use std::path::{Path, PathBuf};

use gerbil::config::{SttModelSpec, VoiceSpec};
use http_support::*;

fn asset(rel: &str) -> PathBuf {
    let p = gerbil::config::test_assets_dir().join(rel);
    assert!(p.exists(), "{} is missing: run tools/fetch_test_assets.sh", p.display());
    p
}

/// `files` of `from` copied into `to`, with `cut` (if any) truncated to half its length.
fn copy_with_cut(from: &Path, to: &Path, files: &[&str], cut: Option<&str>) {
    std::fs::create_dir_all(to).unwrap();
    for f in files {
        let mut bytes = std::fs::read(from.join(f)).unwrap();
        if Some(*f) == cut {
            bytes.truncate(bytes.len() / 2);
        }
        std::fs::write(to.join(f), bytes).unwrap();
    }
}

#[test]
fn a_corrupt_file_fails_its_own_load_and_the_rest_serves() {
    let root = std::env::temp_dir().join(format!("gerbil-corrupt-sources-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let piper = asset("piper/original");
    let voice_files = ["en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json"];
    copy_with_cut(&piper, &root.join("bad-voice"), &voice_files, Some("en_US-joe-medium.onnx"));
    let ct2 = asset("ct2/whisper-tiny-en");
    copy_with_cut(&ct2, &root.join("bad-ct2"), &["model.bin", "config.json", "tokenizer.json"], Some("model.bin"));
    let ort = asset("moonshine-ort/base-en");
    let ort_files = ["encoder_model.ort", "decoder_model_merged.ort", "tokenizer.json"];
    copy_with_cut(&ort, &root.join("bad-ort"), &ort_files, Some("decoder_model_merged.ort"));

    let mut cfg = config();
    cfg.hub.cache_dir = root.join("cache");
    cfg.voices = vec![
        VoiceSpec::new("broken", &root.join("bad-voice/en_US-joe-medium.onnx").to_string_lossy()),
        VoiceSpec::new("joe", &piper.join("en_US-joe-medium.onnx").to_string_lossy()),
    ];
    cfg.stt_models = vec![
        SttModelSpec { source: root.join("bad-ct2"), name: Some("broken-whisper".into()) },
        SttModelSpec { source: root.join("bad-ort"), name: Some("broken-moonshine".into()) },
    ];
    let server = start_allowing_failures(cfg);

    let ready: serde_json::Value = client().get(server.url("/ready")).send().unwrap().json().unwrap();
    let failed = ready["failed"].as_array().cloned().unwrap_or_default();
    let error_of = |id: &str| {
        failed.iter().find(|f| f["id"] == id).and_then(|f| f["error"].as_str().map(String::from)).unwrap_or_default()
    };
    let voice_err = error_of("voice:broken");
    assert!(voice_err.contains("bad-voice/en_US-joe-medium.onnx"), "{ready}");
    assert!(error_of("broken-whisper").contains("bad-ct2/model.bin"), "{ready}");
    assert!(error_of("broken-moonshine").contains("bad-ort/decoder_model_merged.ort"), "{ready}");
    assert_eq!(failed.len(), 3, "only the corrupt files fail: {ready}");
    // Nothing half-written is left in the cache to be trusted next time.
    let converted = root.join("cache/converted");
    let folders: Vec<String> = std::fs::read_dir(&converted)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    assert_eq!(folders.len(), 1, "one voice read whole (joe), nothing else: {folders:?}");

    // The rest serves: the LLM and the good voice.
    let r = client()
        .post(server.url("/v1/completions"))
        .json(&serde_json::json!({"model": MODEL, "prompt": "Hello", "max_tokens": 4}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let voices: serde_json::Value = client().get(server.url("/v1/audio/voices")).send().unwrap().json().unwrap();
    assert!(voices.to_string().contains("\"joe\"") && !voices.to_string().contains("broken"), "{voices}");
    let r = client()
        .post(server.url("/v1/audio/speech"))
        .json(&serde_json::json!({"model": "tts-1", "voice": "joe", "input": "Still here.", "response_format": "pcm"}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.bytes().unwrap().len() > 2 * 22050 / 4, "a quarter second of speech at least");
    let _ = std::fs::remove_dir_all(&root);
}
