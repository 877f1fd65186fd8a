//! The DAC decoder against transformers `DacModel.decode(audio_codes=...)` on the tiny random fixture
//! of tools/make_fixtures_outetts.py (2 codebooks, upsampling 5 x 2 with the odd ratio's short output,
//! weight norm stored in both hub layouts): audio within 1e-3 of the reference, relative to its peak.

mod common;

use std::path::PathBuf;

use gerbil::models::dac::Dac;

pub fn dac_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outetts/dac")
}

fn reference() -> (Vec<Vec<u32>>, Vec<f32>) {
    let bytes = std::fs::read(dac_dir().join("reference.safetensors")).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let codes = st.tensor("codes").unwrap();
    let frames = codes.shape()[1];
    let flat: Vec<u32> =
        codes.data().chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap()) as u32).collect();
    let audio = st.tensor("audio").unwrap().data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap()));
    (flat.chunks(frames).map(|c| c.to_vec()).collect(), audio.collect())
}

/// max |a - b| / max |b|.
fn rel_err(got: &[f32], want: &[f32]) -> f32 {
    assert_eq!(got.len(), want.len(), "audio length");
    let peak = want.iter().fold(0f32, |m, v| m.max(v.abs()));
    got.iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max) / peak
}

#[test]
fn dac_decode_matches_transformers() {
    let dac = Dac::load(&common::exec(), &dac_dir()).unwrap();
    assert_eq!(dac.sample_rate(), 24000);
    assert_eq!(dac.hop(), 10);
    let (codes, want) = reference();
    let got = dac.decode(&codes).unwrap();
    let err = rel_err(&got, &want);
    eprintln!("dac: {} frames -> {} samples, max rel err {err:.2e}", codes[0].len(), got.len());
    assert!(err <= 1e-3, "audio differs from transformers: {err}");
    // A different code changes the audio (the test can fail).
    let mut other = codes.clone();
    other[1][3] = (other[1][3] + 1) % 64;
    assert!(rel_err(&dac.decode(&other).unwrap(), &want) > 1e-3);
}

#[test]
fn dac_rejects_bad_codes() {
    let dac = Dac::load(&common::exec(), &dac_dir()).unwrap();
    assert!(dac.decode(&[vec![1, 2], vec![3, 64]]).is_err(), "code past the codebook");
    assert!(dac.decode(&[vec![1, 2], vec![3]]).is_err(), "unequal lengths");
    assert!(dac.decode(&[vec![1, 2]]).is_err(), "one codebook of two");
    assert!(dac.decode(&[vec![], vec![]]).unwrap().is_empty());
}
