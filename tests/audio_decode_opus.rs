//! Opus uploads (audio/decode_opus.rs) from another encoder: FFmpeg's libopus through PyAV
//! wrote tests/fixtures/audio (tools/make_opus_fixtures.py), one second of two tones per channel,
//! as Ogg Opus (mono) and WebM (stereo, as browsers record). The decoded audio must be that
//! signal (averaged to mono), aligned to the sample (the header's pre-skip dropped), at 48 kHz;
//! damaged files must fail with an error, not a panic.

use gerbil::audio::{decode, AudioError};

const RATE: usize = 48_000;

/// tools/make_opus_fixtures.py's channel c.
fn channel(c: usize) -> Vec<f64> {
    let (f1, f2) = if c == 0 { (440.0, 1250.0) } else { (660.0, 970.0) };
    (0..RATE)
        .map(|i| {
            let t = i as f64 / RATE as f64;
            let env = 0.5 - 0.5 * (2.0 * std::f64::consts::PI * t).cos();
            let tau = 2.0 * std::f64::consts::PI;
            env * (0.3 * (tau * f1 * t).sin() + 0.2 * (tau * f2 * t).sin())
        })
        .collect()
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/audio/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Signal-to-noise ratio in dB of `got` against `want`, over want's length.
fn snr_db(got: &[f32], want: &[f64]) -> f64 {
    let (mut s, mut n) = (0.0, 0.0);
    for (g, w) in got.iter().zip(want) {
        s += w * w;
        n += (*g as f64 - w).powi(2);
    }
    10.0 * (s / n).log10()
}

fn check(name: &str, want: &[f64], exact_length: bool) {
    let pcm = decode(fixture(name), None).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(pcm.sample_rate, 48_000, "{name}");
    let n = pcm.samples.len();
    if exact_length {
        // Ogg's last granule position says where the audio ends.
        assert_eq!(n, RATE, "{name}: length");
    } else {
        // WebM has no end position: up to the last 20 ms frame.
        assert!((RATE..RATE + 960).contains(&n), "{name}: {n} samples");
    }
    let snr = snr_db(&pcm.samples, want);
    // The pre-skip (312 samples here) left in would shift the tones out of phase: SNR below 0 dB.
    println!("{name}: {n} samples, SNR {snr:.1} dB");
    assert!(snr > 15.0, "{name}: SNR {snr:.1} dB");
}

#[test]
fn ogg_opus_mono_from_ffmpeg() {
    check("tones_mono.opus", &channel(0), true);
}

#[test]
fn webm_opus_stereo_is_averaged_to_mono() {
    let (l, r) = (channel(0), channel(1));
    let mono: Vec<f64> = l.iter().zip(&r).map(|(a, b)| (a + b) / 2.0).collect();
    check("tones_stereo.webm", &mono, false);
}

#[test]
fn damaged_opus_files_are_errors_not_panics() {
    for name in ["tones_mono.opus", "tones_stereo.webm"] {
        let whole = fixture(name);
        // Cut mid-stream (a recording whose upload broke off). The live WebM keeps the audio
        // before the cut; FFmpeg wrote the Ogg file's audio as one page, so that cut leaves no
        // whole packet: an error that says so.
        match decode(whole[..whole.len() / 2].to_vec(), None) {
            Ok(half) if name.ends_with("webm") => {
                let n = half.samples.len();
                assert!(n > RATE / 4 && n < RATE, "{name} cut: {n} samples");
            }
            Ok(half) => panic!("{name} cut: {} samples from a page cut in two", half.samples.len()),
            Err(e) => assert!(name.ends_with("opus") && e.to_string().contains("Ogg page"), "{name} cut: {e}"),
        }
        // The magic, then garbage.
        let mut garbage = whole[..4].to_vec();
        garbage.extend((0..4000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
        assert!(decode(garbage, None).is_err(), "{name}: garbage after the magic decoded");
        // Every packet damaged: the bytes after the headers scrambled.
        let mut scrambled = whole.clone();
        for b in scrambled[200..].iter_mut() {
            *b ^= 0x5A;
        }
        let r = decode(scrambled, None);
        assert!(r.is_err() || r.as_ref().unwrap().samples.len() < RATE, "{name}: scrambled file decoded whole");
    }
    // Only the header.
    let head = fixture("tones_mono.opus");
    assert!(matches!(decode(head[..60].to_vec(), None), Err(AudioError::Empty | AudioError::Corrupt(_))));
}
