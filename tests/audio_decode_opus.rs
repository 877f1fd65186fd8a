//! Opus uploads (audio/decode_opus.rs) from another encoder: FFmpeg's libopus through PyAV
//! wrote tests/fixtures/audio (tools/make_opus_fixtures.py), one second of two tones per channel,
//! as Ogg Opus (mono) and WebM (stereo, as browsers record). The decoded audio must be that
//! signal (averaged to mono), aligned to the sample (the header's pre-skip dropped), at 48 kHz;
//! damaged files must fail with an error, not a panic.

use gerbil::audio::decode_opus::{self, Container};
use gerbil::audio::{decode, AudioError, Pcm};

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

/// The same Ogg packets, pages and granule positions under another stream serial number.
fn reserial(ogg_bytes: &[u8], serial: u32) -> Vec<u8> {
    use ogg::PacketWriteEndInfo as End;
    let mut r = ogg::PacketReader::new(std::io::Cursor::new(ogg_bytes.to_vec()));
    let mut w = ogg::PacketWriter::new(Vec::new());
    while let Some(p) = r.read_packet().unwrap() {
        let end = if p.last_in_stream() {
            End::EndStream
        } else if p.last_in_page() {
            End::EndPage
        } else {
            End::NormalPacket
        };
        w.write_packet(p.data.clone(), serial, end, p.absgp_page()).unwrap();
    }
    w.into_inner()
}

/// Straight to the Opus decoder, past `audio::decode`'s catch_unwind: a panic fails the test.
fn opus_only(bytes: Vec<u8>, name: &str) -> Result<Pcm, AudioError> {
    decode_opus::decode(bytes, if name.ends_with("webm") { Container::Matroska } else { Container::Ogg })
}

#[test]
fn chained_ogg_streams_are_joined() {
    // `cat a.opus b.opus`: the second stream's OpusHead starts a new decoder with its own
    // pre-skip, and each stream ends at its own last granule position. A chain's streams have
    // different serial numbers (RFC 3533), so b is a's packets under another serial.
    let one = fixture("tones_mono.opus");
    let two = [one.clone(), reserial(&one, 0x0b0b_0b0b)].concat();
    let pcm = decode(two, None).unwrap();
    assert_eq!(pcm.samples.len(), 2 * RATE);
    let want = channel(0);
    assert!(snr_db(&pcm.samples[..RATE], &want) > 15.0);
    assert!(snr_db(&pcm.samples[RATE..], &want) > 15.0, "the second stream, aligned");
}

#[test]
fn damaged_opus_files_are_errors_not_panics() {
    for name in ["tones_mono.opus", "tones_stereo.webm"] {
        let whole = fixture(name);
        // Cut mid-stream (a recording whose upload broke off). The live WebM keeps the audio
        // before the cut; FFmpeg wrote the Ogg file's audio as one page, so that cut leaves no
        // whole packet: an error that says so.
        match opus_only(whole[..whole.len() / 2].to_vec(), name) {
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
        assert!(opus_only(garbage, name).is_err(), "{name}: garbage after the magic decoded");
        // Every packet damaged: the bytes after the headers scrambled.
        let mut scrambled = whole.clone();
        for b in scrambled[200..].iter_mut() {
            *b ^= 0x5A;
        }
        // Whatever survives is not the signal.
        if let Ok(p) = opus_only(scrambled, name) {
            assert!(snr_db(&p.samples, &channel(0)) < 3.0, "{name}: a scrambled file decoded to the signal");
        }
    }
    // Only the header.
    let head = fixture("tones_mono.opus");
    assert!(matches!(opus_only(head[..60].to_vec(), "x.opus"), Err(AudioError::Empty | AudioError::Corrupt(_))));
}
