//! Runs the speech-to-text Python suite (tests/http_stt: the official `openai`
//! SDK's `audio.transcriptions.create`, plain and streamed; srt/vtt parsed by
//! the `srt` and `webvtt-py` packages; bad uploads) against a server with the
//! real Whisper tiny.en (tools/fetch_test_assets.sh), the text fixture model and an API key.

mod http_support;

use std::process::Command;

use gerbil::config::SttModelSpec;
use http_support::*;

#[test]
fn python_transcriptions_suite() {
    require_python_modules("openai, pytest, srt, webvtt, requests");
    let assets = gerbil::config::test_assets_dir();
    let (model, beckett) = (assets.join("whisper-tiny-en"), assets.join("audio/beckett.wav"));
    assert!(model.exists() && beckett.exists(), "run tools/fetch_test_assets.sh");
    let mut cfg = config();
    cfg.api_key = Some("stt-key".into());
    cfg.stt_models = vec![SttModelSpec { source: model, name: Some("whisper-tiny.en".into()) }];
    cfg.limits.request_timeout_s = 300;
    let server = start(cfg);
    let status = Command::new("python3")
        .args(["-m", "pytest", "tests/http_stt", "-q", "--tb=short", "-p", "no:cacheprovider"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GERBIL_BASE_URL", &server.base)
        .env("GERBIL_API_KEY", "stt-key")
        .env("GERBIL_STT_MODEL", "whisper-tiny.en")
        .env("GERBIL_BECKETT", &beckett)
        .env("GERBIL_TEXT_MODEL", MODEL)
        .status()
        .expect("run pytest");
    assert!(status.success(), "the Python transcription suite failed (output above)");
}
