//! Whole-model decode and prefill with random weights of a real config.

use std::path::Path;
use std::time::Instant;

use super::memory::{MemoryFigures, MemoryProbe};
use crate::executor::Executor;
use crate::gpu::KvDtype;
use crate::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use crate::models::ModelError;
use crate::passes::FusionConfig;
use crate::weights::random::RandomSource;
use crate::weights::WeightFormat;

#[derive(Debug, serde::Serialize)]
pub struct DecodeResult {
    pub model: String,
    pub format: String,
    /// Steps submitted back to back, token ids staying on the GPU.
    pub decode_tokens_per_s: f64,
    /// The CLI/server loop: each token read back while the next step runs (the median of
    /// `generate_runs`).
    pub generate_tokens_per_s: f64,
    /// Every timed generate loop's tok/s, in order: one loop of 256 tokens lasts ~0.2 s, so a
    /// single one can land in a slow stretch of the GPU's clocks or scheduling.
    pub generate_runs: Vec<f64>,
    pub dispatches_per_token: usize,
    pub prefill_tokens: usize,
    pub prefill_tokens_per_s: f64,
    pub weight_bytes: u64,
    pub memory: MemoryFigures,
}

/// What one decode measurement runs: the model's load options and its lengths.
pub struct DecodeRun {
    pub format: WeightFormat,
    pub fusion: FusionConfig,
    pub kv_dtype: KvDtype,
    /// Decode steps.
    pub tokens: usize,
    /// Prompt length of the prefill measurement.
    pub prefill: usize,
    /// Timed generate loops (the median is reported).
    pub repeats: usize,
}

pub fn run(exec: &Executor, config: &Path, run: DecodeRun) -> Result<DecodeResult, ModelError> {
    let DecodeRun { format, fusion, kv_dtype, tokens, prefill, repeats } = run;
    let src = RandomSource { seed: 7, scale: 0.05 };
    let opts = LoadOptions {
        format,
        max_context: (prefill + tokens + 16).max(1024),
        prefill_chunk: prefill.max(16),
        fusion,
        kv_dtype,
        kv_pool: None,
    };
    let gpu = exec.gpu();
    let mut mem = MemoryProbe::start(gpu);
    let model = TextModel::from_source(exec, config, &src, None, opts)?;
    mem.sample(gpu);
    let mut s = Session::new(&model, SessionOptions::default())?;
    mem.sample(gpu);
    // Decode: a short prompt, then `tokens` greedy steps (random weights never stop).
    let prompt: Vec<u32> = (0..8).map(|i| 100 + i).collect();
    s.generate(&prompt, 8, |_| true)?; // warm-up: pipelines compiled, buffers touched
    s.reset();
    s.prefill(&prompt)?;
    s.next_token()?;
    let t0 = Instant::now();
    for _ in 0..tokens {
        s.decode_step()?;
    }
    s.next_token()?;
    let decode_s = t0.elapsed().as_secs_f64();
    // Timed from the first token (the prompt's) to the last: decode steps only, no prefill.
    let mut generate_runs = Vec::new();
    for _ in 0..repeats.max(1) {
        s.reset();
        let mut first: Option<Instant> = None;
        let got = s.generate(&prompt, tokens, |_| {
            first.get_or_insert_with(Instant::now);
            true
        })?;
        let generate_s = first.expect("generate produced a token").elapsed().as_secs_f64();
        generate_runs.push((got.len() - 1) as f64 / generate_s);
    }
    let mut sorted = generate_runs.clone();
    sorted.sort_by(f64::total_cmp);
    let generate_tokens_per_s = sorted[sorted.len() / 2];
    // Prefill of `prefill` tokens in one chunk.
    let long: Vec<u32> = (0..prefill as u32).map(|i| 1 + i * 7 % 1000).collect();
    let mut best = f64::MAX;
    for _ in 0..3 {
        s.reset();
        let t1 = Instant::now();
        s.prefill(&long)?;
        s.next_token()?;
        best = best.min(t1.elapsed().as_secs_f64());
    }
    let memory = mem.finish(gpu);
    Ok(DecodeResult {
        model: config.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default(),
        format: format!("{format:?}"),
        decode_tokens_per_s: tokens as f64 / decode_s,
        generate_tokens_per_s,
        generate_runs,
        dispatches_per_token: s.decode_dispatches(),
        prefill_tokens: prefill,
        prefill_tokens_per_s: prefill as f64 / best,
        weight_bytes: model.arch.weight_bytes(),
        memory,
    })
}
