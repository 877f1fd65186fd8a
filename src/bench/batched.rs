//! Batched decode throughput with random weights of a real config: `rows` sequences advance together in
//! each step (one compute pass), reported as aggregate tokens/s.

use std::path::Path;
use std::time::Instant;

use super::memory::{MemoryFigures, MemoryProbe};
use crate::executor::Executor;
use crate::gpu::KvDtype;
use crate::models::llm::{BatchedDecoder, KvPoolOptions, KvPoolSize, LoadOptions, TextModel};
use crate::models::ModelError;
use crate::weights::random::RandomSource;
use crate::weights::WeightFormat;

#[derive(Debug, serde::Serialize)]
pub struct BatchedResult {
    pub model: String,
    pub format: String,
    pub rows: usize,
    /// Steps submitted back to back (no readback between steps).
    pub aggregate_tokens_per_s: f64,
    /// Every step's tokens read back (GPU argmax) and fed to the next step from the CPU.
    pub loop_tokens_per_s: f64,
    /// The server's greedy loop: each step fed the previous step's argmax on the GPU and submitted
    /// before that step's tokens are read (`decode_chained`).
    pub chained_tokens_per_s: f64,
    /// Wall time of one step in the server loop.
    pub step_ms: f64,
    pub dispatches_per_step: usize,
    /// KV cache bytes per token of one sequence, and recurrent state bytes per sequence.
    pub kv_bytes_per_token: u64,
    pub recurrent_bytes_per_sequence: u64,
    /// Of the whole batched run (decoder of `max(rows)` slots).
    pub memory: MemoryFigures,
}

/// A config's batched measurements, or why there are none.
pub enum BatchedOutcome {
    Measured(Vec<BatchedResult>),
    /// The family has no batched decode (e.g. qwen3_5's recurrent state): skipped, not an error.
    Unsupported {
        model: String,
        family: &'static str,
    },
}

/// The server's default `kv_cache_mb` (1024), in bytes.
pub const DEFAULT_KV_CACHE_BYTES: u64 = 1024 << 20;

/// One result per entry of `rows` (each at most the largest, which sets the decoder's slots).
pub fn run(
    exec: &Executor,
    config: &Path,
    format: WeightFormat,
    rows: &[usize],
    steps: usize,
    kv_dtype: KvDtype,
) -> Result<BatchedOutcome, ModelError> {
    let slots = rows.iter().copied().max().unwrap_or(1);
    let src = RandomSource { seed: 7, scale: 0.05 };
    let prompt_len = 8;
    // The server's paged pool (its default size, clamped to the slots' whole contexts).
    let kv_pool = Some(KvPoolOptions { size: KvPoolSize::Bytes(DEFAULT_KV_CACHE_BYTES), block_tokens: 64 });
    let max_context = (prompt_len + 2 * steps + 16).max(256);
    let opts = LoadOptions { format, max_context, kv_dtype, kv_pool, ..Default::default() };
    let name = config.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let gpu = exec.gpu();
    let mut mem = MemoryProbe::start(gpu);
    let model = TextModel::from_source(exec, config, &src, None, opts)?;
    if !model.arch.supports_batched_decode() {
        return Ok(BatchedOutcome::Unsupported { model: name, family: model.arch.family() });
    }
    let mut dec = BatchedDecoder::new(&model, slots)?;
    mem.sample(gpu);
    let mut out = Vec::new();
    for &m in rows {
        let m = m.clamp(1, dec.slots());
        for slot in 0..m {
            dec.release(slot);
            let prompt: Vec<u32> = (0..prompt_len as u32).map(|i| 100 + 13 * slot as u32 + i).collect();
            dec.prefill(slot, &prompt)?;
        }
        let slot_ids: Vec<usize> = (0..m).collect();
        let mut next = dec.greedy_tokens(&slot_ids)?;
        // Warm-up step: pipelines compiled, buffers touched.
        let batch =
            |next: &[u32]| -> Vec<(usize, u32)> { slot_ids.iter().copied().zip(next.iter().copied()).collect() };
        dec.decode(&batch(&next))?;
        next = dec.greedy_tokens(&slot_ids)?;
        let half = steps / 2;
        let t0 = Instant::now();
        for _ in 0..half {
            dec.decode(&batch(&next))?;
        }
        next = dec.greedy_tokens(&slot_ids)?; // waits for the GPU
        let back_to_back = t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        for _ in 0..half {
            dec.decode(&batch(&next))?;
            next = dec.greedy_tokens(&slot_ids)?;
        }
        let looped = t0.elapsed().as_secs_f64();
        dec.decode(&batch(&next))?;
        let t0 = Instant::now();
        for _ in 0..half {
            dec.decode_chained(&slot_ids)?;
        }
        dec.greedy_tokens(&slot_ids)?;
        let chained = t0.elapsed().as_secs_f64();
        out.push(BatchedResult {
            model: name.clone(),
            format: format!("{format:?}"),
            rows: m,
            aggregate_tokens_per_s: (m * half) as f64 / back_to_back,
            loop_tokens_per_s: (m * half) as f64 / looped,
            chained_tokens_per_s: (m * half) as f64 / chained,
            step_ms: looped * 1e3 / half as f64,
            // One row decodes in the one-token plan (`BatchedDecoder`'s single-sequence steps).
            dispatches_per_step: if m == 1 {
                dec.single_sequence_plan().dispatch_count()
            } else {
                dec.decode_dispatches()
            },
            kv_bytes_per_token: dec.state_bytes().0,
            recurrent_bytes_per_sequence: dec.state_bytes().1,
            memory: MemoryFigures::default(),
        });
    }
    let memory = mem.finish(gpu);
    for r in &mut out {
        r.memory = memory;
    }
    Ok(BatchedOutcome::Measured(out))
}
