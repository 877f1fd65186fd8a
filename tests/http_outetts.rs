//! POST /v1/audio/speech with an OuteTTS voice (the tiny random fixture of
//! tools/make_fixtures_outetts.py, loaded as `kind = "outetts"` with its speaker profile): WAV audio
//! comes back at the DAC's 24 kHz, and OuteTTS-specific bad input gets an OpenAI error naming `speed`.

mod http_support;

use gerbil::config::VoiceSpec;
use http_support::*;

#[test]
fn outetts_voice_speaks_at_24khz() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outetts");
    let mut cfg = config();
    let mut voice = VoiceSpec::new("oute", &dir.join("llama").to_string_lossy());
    voice.kind = Some("outetts".into());
    voice.codec = Some(dir.join("dac").to_string_lossy().into_owned());
    voice.speaker = Some(dir.join("speaker.json").to_string_lossy().into_owned());
    cfg.voices = vec![voice];
    // Sampled code streams run to the context: keep it short on lavapipe.
    cfg.limits.max_context = 192;
    let server = start(cfg);

    let body = serde_json::json!({"model": "outetts", "voice": "oute", "input": "Hello there. A second one!",
                                  "response_format": "wav"});
    let res = client().post(server.url("/v1/audio/speech")).json(&body).send().unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-sample-rate"], "24000");
    let wav = res.bytes().unwrap();
    assert_eq!(&wav[..4], b"RIFF");
    assert_eq!(&wav[8..12], b"WAVE");
    let rate = u32::from_le_bytes(wav[24..28].try_into().unwrap());
    assert_eq!(rate, 24000, "WAV header sample rate");
    // The fixture writes codes every sentence, so there is audio after the 44-byte header.
    assert!(wav.len() > 44 + 2 * 10, "{} bytes", wav.len());

    let (status, err) = server.post(
        "/v1/audio/speech",
        &serde_json::json!({"model": "outetts", "voice": "oute",
        "input": "Hello.", "speed": 1.5, "response_format": "wav"}),
    );
    assert_eq!(status, 400);
    assert_eq!(err["error"]["param"], "speed");
}
