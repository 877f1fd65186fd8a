//! Shared test helpers: one GPU device per test binary, fresh random seeds
//! that are printed so a failure can be replayed (GERBIL_SEED=<n>).
#![allow(dead_code)]

pub mod embed_reference;
pub mod one_token;
pub mod reference_fixture;
pub mod speech_reference;

use std::sync::{Arc, OnceLock};

use gerbil::executor::Executor;
use gerbil::gpu::{Gpu, GpuOptions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub fn gpu() -> Arc<Gpu> {
    static GPU: OnceLock<Arc<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| {
        let g = Gpu::new(&GpuOptions::default()).expect("a wgpu adapter (software Vulkan in CI)");
        eprintln!("adapter: {} ({}, {})", g.caps.adapter_name, g.caps.backend, g.caps.device_type);
        g
    })
    .clone()
}

/// An executor over the test binary's one device (what the worker hands a model).
pub fn exec() -> Executor {
    Executor::on(&gpu())
}

/// Prefills `prompt`, then decodes `steps` greedy steps; returns the tokens (the prefill's first)
/// and each step's logits.
pub fn greedy(s: &mut gerbil::models::llm::Session, prompt: &[u32], steps: usize) -> (Vec<u32>, Vec<Vec<f32>>) {
    s.prefill(prompt).unwrap();
    let (mut toks, mut logits) = (vec![s.next_token().unwrap()], vec![]);
    for _ in 0..steps {
        s.decode_step().unwrap();
        toks.push(s.next_token().unwrap());
        logits.push(s.logits().unwrap());
    }
    (toks, logits)
}

pub fn rng(test: &str) -> StdRng {
    let seed = std::env::var("GERBIL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random::<u64>);
    eprintln!("{test}: seed {seed} (replay with GERBIL_SEED={seed})");
    StdRng::seed_from_u64(seed)
}

/// Non-zero values in ±[0.05, 1].
pub fn randn(rng: &mut StdRng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| {
            let v: f32 = rng.random_range(0.05..1.0);
            if rng.random_bool(0.5) {
                v
            } else {
                -v
            }
        })
        .collect()
}

/// The rotary (cos, sin) table the decode kernels read: base 10000, `rot / 2` pairs per position.
pub fn rope_table(positions: usize, rot: usize) -> Vec<[f32; 2]> {
    (0..positions)
        .flat_map(|p| {
            (0..rot / 2).map(move |i| {
                let a = p as f32 / 10000f32.powf(2.0 * i as f32 / rot as f32);
                [a.cos(), a.sin()]
            })
        })
        .collect()
}

/// Asserts |a - b| <= atol + rtol * |b| everywhere, and that nothing is NaN.
#[track_caller]
pub fn assert_close(what: &str, got: &[f32], want: &[f32], atol: f32, rtol: f32) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let mut worst = (0usize, 0f32);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(g.is_finite(), "{what}: element {i} is {g} (expected {w})");
        let err = (g - w).abs();
        if err > atol + rtol * w.abs() {
            panic!("{what}: element {i}: got {g}, want {w} (|diff| {err})");
        }
        if err > worst.1 {
            worst = (i, err);
        }
    }
    eprintln!("{what}: max |diff| {} at {}", worst.1, worst.0);
}
