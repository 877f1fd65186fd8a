//! Runs tests/http_moonshine (the official `openai` SDK's
//! `audio.transcriptions.create` with Moonshine base, plain and streamed; the
//! model chosen by `model` on a server that also serves Whisper tiny.en; an
//! unknown model and an unsupported language refused) against a server with
//! the real weights from tools/fetch_test_assets.sh.

mod http_support;

use std::process::Command;

use gerbil::config::SttModelSpec;
use http_support::*;

#[test]
fn python_moonshine_transcriptions() {
    require_python_modules("openai, pytest, requests");
    let assets = gerbil::config::test_assets_dir();
    let (moonshine, whisper) = (assets.join("moonshine-base"), assets.join("whisper-tiny-en"));
    let beckett = assets.join("audio/beckett.wav");
    assert!(moonshine.exists() && whisper.exists() && beckett.exists(), "run tools/fetch_test_assets.sh");
    let mut cfg = config();
    cfg.api_key = Some("stt-key".into());
    cfg.stt_models = vec![
        SttModelSpec { source: whisper, name: Some("whisper-tiny.en".into()) },
        SttModelSpec { source: moonshine, name: None },
    ];
    cfg.limits.request_timeout_s = 600;
    let server = start(cfg);
    let status = Command::new("python3")
        .args(["-m", "pytest", "tests/http_moonshine", "-q", "--tb=short", "-p", "no:cacheprovider"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GERBIL_BASE_URL", &server.base)
        .env("GERBIL_API_KEY", "stt-key")
        .env("GERBIL_STT_MODEL", "moonshine-base")
        .env("GERBIL_OTHER_STT_MODEL", "whisper-tiny.en")
        .env("GERBIL_BECKETT", &beckett)
        .status()
        .expect("run pytest");
    assert!(status.success(), "the Python Moonshine transcription suite failed (output above)");
}
