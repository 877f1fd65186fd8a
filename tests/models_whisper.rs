//! Whisper against Hugging Face transformers on the tiny random fixture
//! (tools/make_whisper_fixture.py): log-mel features, encoder output, decoder
//! logits under teacher forcing, and a greedy argmax loop token for token.

mod common;

use std::path::PathBuf;

use common::speech_reference::Reference;
use common::{assert_close, gpu};
use gerbil::audio::mel::{LogMel, MelConfig};
use gerbil::models::whisper::Whisper;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/whisper")
}

#[test]
fn log_mel_matches_feature_extractor() {
    let r = Reference::open(&dir());
    let cfg = MelConfig::from_dir(&dir(), 80);
    assert_eq!(cfg.n_samples, 32000, "the fixture uses a 2 s window");
    let got = LogMel::new(cfg).window(&r.f32("audio"));
    assert_close("log-mel", &got, &r.f32("features"), 1e-4, 0.0);
}

#[test]
fn encoder_logits_and_greedy_match_transformers() {
    let r = Reference::open(&dir());
    let m = Whisper::load(&gpu(), &dir()).unwrap();
    let enc = m.encode(&r.f32("features")).unwrap();
    assert_close("encoder out", &enc.out.read(&gpu()).unwrap(), &r.f32("encoder_out"), 1e-3, 1e-3);

    // Teacher forcing: all rows of a forced sequence, in two steps so the KV cache is exercised.
    let forced = r.ids("forced_ids");
    let want = r.f32("logits");
    let vocab = m.cfg.vocab_size;
    let mut dec = m.decoder(&enc);
    let split = 4;
    let rows_a: Vec<usize> = (0..split).collect();
    let mut got = dec.step(&forced[..split], &rows_a).unwrap();
    let rows_b: Vec<usize> = (0..forced.len() - split).collect();
    got.extend(dec.step(&forced[split..], &rows_b).unwrap());
    assert_eq!(got.len(), forced.len() * vocab);
    assert_close("decoder logits", &got, &want, 1e-3, 1e-3);

    // Greedy: one token per step, argmax, no logits processors.
    let greedy = r.ids("greedy_ids");
    dec.reset();
    let mut ids = vec![greedy[0]];
    while ids.len() < greedy.len() {
        let logits = dec.step(&ids[ids.len() - 1..], &[0]).unwrap();
        let best = (0..vocab).max_by(|&a, &b| logits[a].total_cmp(&logits[b])).unwrap();
        ids.push(best as u32);
    }
    assert_eq!(ids, greedy, "greedy tokens");
}
