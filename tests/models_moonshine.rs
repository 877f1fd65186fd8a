//! Moonshine against Hugging Face transformers on the tiny random fixture
//! (tools/make_fixtures_moonshine.py): encoder output on raw samples, decoder
//! logits under teacher forcing, and a greedy argmax loop token for token;
//! plus the silence chunker on synthetic audio.

mod common;

use std::path::PathBuf;

use common::speech_reference::{check_decoder, Reference};
use common::{assert_close, exec, gpu};
use gerbil::models::moonshine::{segment, Moonshine, MoonshineConfig};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/moonshine")
}

#[test]
fn partial_rotary_width_rounds_as_transformers() {
    // head_dim 16 * 0.62 = 9.92 -> int 9 -> frequencies at 0, 2, 4, 6, 8 (10 rotated dims).
    let cfg = MoonshineConfig::load(&dir()).unwrap();
    let f = cfg.inv_freq(cfg.encoder_num_attention_heads);
    assert_eq!(f.len(), 5);
    assert!((f[1] - 1.0 / 10000f32.powf(2.0 / 9.0)).abs() < 1e-7, "{f:?}");
    assert_eq!(MoonshineConfig::encoder_frames(24000), 61);
    assert_eq!(MoonshineConfig::encoder_frames(894), 0);
    assert_eq!(MoonshineConfig::encoder_frames(895), 1);
}

#[test]
fn encoder_logits_and_greedy_match_transformers() {
    let r = Reference::open(&dir());
    let m = Moonshine::load(&exec(), &dir()).unwrap();
    let enc = m.encode(&r.f32("audio")).unwrap();
    let want_enc = r.f32("encoder_out");
    assert_eq!(enc.frames * m.cfg.hidden_size, want_enc.len());
    assert_close("encoder out", &enc.out.read(&gpu()).unwrap(), &want_enc, 1e-3, 1e-3);

    check_decoder(&r, &mut m.decoder(&enc, 32), m.cfg.vocab_size);
}

#[test]
fn too_short_audio_and_a_full_cache_are_errors() {
    let m = Moonshine::load(&exec(), &dir()).unwrap();
    let err = m.encode(&[0.1; 500]).err().expect("500 samples cannot be encoded");
    assert!(err.to_string().contains("fewer than"), "{err}");
    let enc = m.encode(&[0.1; 2000]).unwrap();
    let mut dec = m.decoder(&enc, 3);
    dec.step(&[1, 5, 6], &[2]).unwrap();
    assert!(dec.step(&[7], &[0]).is_err(), "a fourth token past a capacity of 3");
}

/// A tone burst of `secs` seconds (speech stand-in) or silence.
fn tone(secs: f64) -> Vec<f32> {
    (0..(secs * 16000.0) as usize).map(|i| 0.3 * (i as f32 * 0.07).sin()).collect()
}

#[test]
fn chunker_cuts_long_audio_at_silences() {
    // 14 bursts of 3 s separated by 0.5 s of silence: 49 s in all.
    let mut audio = vec![0f32; 8000];
    let mut bursts = Vec::new();
    for _ in 0..14 {
        bursts.push(audio.len());
        audio.extend(tone(3.0));
        audio.extend(vec![0f32; 8000]);
    }
    let chunks = segment::chunks(&audio);
    assert!(chunks.len() >= 3, "49 s must be cut into chunks of <= 20 s: {chunks:?}");
    let max = (segment::MAX_CHUNK_S * 16000.0) as usize;
    let mut last_end = 0;
    for &(s, e) in &chunks {
        assert!(s >= last_end && e > s && e - s <= max, "chunk {s}..{e} after {last_end}");
        // Cuts fall in silence: the samples at the boundaries are zero.
        assert_eq!(audio[s], 0.0, "chunk starts inside a burst at {s}");
        assert_eq!(audio[e - 1], 0.0, "chunk ends inside a burst at {e}");
        last_end = e;
    }
    // Every burst lies inside one chunk.
    for b in bursts {
        assert!(chunks.iter().any(|&(s, e)| s <= b && b + 48000 <= e), "burst at {b} is split or lost");
    }
    // Speech then a long pause then speech: never one chunk (Moonshine would
    // end the text at the pause), while a short pause keeps them together.
    let mut two = tone(2.0);
    two.extend(vec![0f32; (segment::SPLIT_PAUSE_S * 16000.0) as usize + 1600]);
    two.extend(tone(4.0));
    assert_eq!(segment::chunks(&two).len(), 2, "a pause of {} s or more separates chunks", segment::SPLIT_PAUSE_S);
    let mut one = tone(2.0);
    one.extend(vec![0f32; 8000]);
    one.extend(tone(4.0));
    assert_eq!(segment::chunks(&one).len(), 1, "a 0.5 s pause does not");
    // Silence alone gives no chunk; one long burst is cut at <= 20 s pieces.
    assert!(segment::chunks(&vec![0f32; 48000]).is_empty());
    let long = tone(45.0);
    let c = segment::chunks(&long);
    assert!(c.len() >= 3 && c.iter().all(|&(s, e)| e - s <= max), "{c:?}");
    assert_eq!((c[0].0, c[c.len() - 1].1), (0, long.len()), "a cut of continuous sound loses nothing");
    assert!(c.windows(2).all(|w| w[0].1 == w[1].0), "pieces of one region are adjacent: {c:?}");
}
