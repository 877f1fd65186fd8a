//! POST /v1/audio/speech end to end with the real Piper voice (en_US-joe-medium from the
//! asset cache): the OpenAI Python SDK suite in tests/http_tts, then client disconnects
//! that must stop synthesis (seen in /metrics); and the round trip
//! through Whisper tiny.en.

mod http_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use gerbil::config::{SttModelSpec, VoiceSpec};
use http_support::*;

fn speech_config() -> gerbil::config::ServeConfig {
    let dir = gerbil::config::test_assets_dir().join("piper/en_US-joe-medium");
    assert!(dir.join("model.safetensors").exists(), "{} is missing: run tools/fetch_test_assets.sh", dir.display());
    let mut cfg = config();
    cfg.voices = vec![VoiceSpec::new("joe", &dir.to_string_lossy())];
    cfg
}

fn speech_server() -> TestServer {
    start(speech_config())
}

fn metric(server: &TestServer, prefix: &str) -> f64 {
    let text = client().get(server.url("/metrics")).send().unwrap().text().unwrap();
    text.lines().filter(|l| l.starts_with(prefix)).filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok()).sum()
}

#[test]
fn speech_endpoint() {
    let server = speech_server();

    // Disconnect after the first audio bytes: the job is cancelled before all sentences are made.
    let sentences = 12;
    let input: Vec<String> = (0..sentences).map(|i| format!("Number {i}.")).collect();
    let body =
        serde_json::json!({"model": "piper", "voice": "joe", "input": input.join(" "), "response_format": "pcm"});
    let body = body.to_string();
    let mut s = TcpStream::connect(server.addr).unwrap();
    write!(
        s,
        "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut buf = [0u8; 4096];
    let n = s.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"), "{}", String::from_utf8_lossy(&buf[..n]));
    drop(s);
    let t0 = Instant::now();
    while metric(&server, "gerbil_speech_jobs_total{outcome=\"cancelled\"") < 1.0 {
        assert!(t0.elapsed() < Duration::from_secs(120), "the job was not cancelled");
        std::thread::sleep(Duration::from_millis(100));
    }
    let made = metric(&server, "gerbil_speech_sentences_total");
    assert!(made < sentences as f64, "all {made} sentences were synthesized after the disconnect");

    let status = Command::new("python3")
        .args(["-m", "pytest", "tests/http_tts", "-q", "--tb=short", "-p", "no:cacheprovider"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GERBIL_BASE_URL", &server.base)
        .status()
        .expect("run pytest");
    assert!(status.success(), "the Python speech suite failed (output above)");
    assert!(metric(&server, "gerbil_speech_jobs_total{outcome=\"done\"") >= 4.0);
}

/// The request timeout covers the whole stream, as for text: SSE ends with a timeout error event
/// (not `speech.audio.done`), and raw audio is cut off (the body ends in an error, not as if the
/// audio were whole), long before the synthesis of every sentence would end.
#[test]
fn speech_stops_at_the_request_timeout() {
    let mut cfg = speech_config();
    cfg.limits.request_timeout_s = 1;
    let server = start(cfg);
    // 300 sentences: far longer than a second to speak on any GPU.
    let input: Vec<String> = (0..300).map(|i| format!("Number {i}.")).collect();
    let body = |sse: bool| {
        let mut b =
            serde_json::json!({"model": "piper", "voice": "joe", "input": input.join(" "), "response_format": "pcm"});
        if sse {
            b["stream_format"] = "sse".into();
        }
        b
    };
    let t0 = Instant::now();
    let r = client().post(server.url("/v1/audio/speech")).json(&body(true)).send().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers().contains_key("x-sample-rate"));
    let text = r.text().unwrap();
    let last = text.lines().filter_map(|l| l.strip_prefix("data: ")).next_back().expect("an event");
    let last: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(last["error"]["code"], "request_timeout", "the stream's last event: {last}");
    assert!(!text.contains("speech.audio.done"));
    assert!(t0.elapsed() < Duration::from_secs(60), "the stream ran {:?}", t0.elapsed());

    let t0 = Instant::now();
    let r = client().post(server.url("/v1/audio/speech")).json(&body(false)).send().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.bytes().is_err(), "the cut-off body must not end cleanly");
    assert!(t0.elapsed() < Duration::from_secs(60), "the stream ran {:?}", t0.elapsed());
    let t0 = Instant::now();
    while metric(&server, "gerbil_speech_jobs_total{outcome=\"cancelled\"") < 2.0 {
        assert!(t0.elapsed() < Duration::from_secs(120), "the timed-out jobs were not cancelled");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The Piper -> Whisper round trip (tests/http_tts/test_round_trip.py) with both real
/// models loaded in one server.
#[test]
fn speech_whisper_round_trip() {
    let whisper = gerbil::config::test_assets_dir().join("whisper-tiny-en");
    assert!(
        whisper.join("model.safetensors").exists(),
        "{} is missing: run tools/fetch_test_assets.sh",
        whisper.display()
    );
    let mut cfg = speech_config();
    cfg.stt_models = vec![SttModelSpec { source: whisper, name: Some("whisper-tiny.en".into()) }];
    cfg.limits.request_timeout_s = 1800;
    let server = start(cfg);
    let t0 = Instant::now();
    let status = Command::new("python3")
        .args(["-m", "pytest", "tests/http_tts/test_round_trip.py", "-q", "-s", "--tb=short", "-p", "no:cacheprovider"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GERBIL_BASE_URL", &server.base)
        .env("GERBIL_STT_MODEL", "whisper-tiny.en")
        .status()
        .expect("run pytest");
    println!("round trip took {:.0} s", t0.elapsed().as_secs_f64());
    assert!(status.success(), "the round-trip suite failed (output above)");
}
