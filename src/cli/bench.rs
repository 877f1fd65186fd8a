//! `gerbil bench`: copy bandwidth, INT4 matvec GB/s over real shapes, and
//! whole-model decode/prefill with random weights of real configs.

use std::path::PathBuf;

use crate::bench::{bandwidth, batched, decode, matvec};
use crate::executor::Executor;
use crate::gpu::{GpuOptions, KvDtype};
use crate::passes::FusionConfig;
use crate::weights::WeightFormat;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Model configs (config.json of the real models) to run with random weights.
    #[arg(long, num_args = 1.., default_values = ["config/models/smollm2-135m.json", "config/models/qwen2.5-0.5b.json", "config/models/qwen3.5-0.8b.json", "config/models/lfm2-350m.json"])]
    pub configs: Vec<PathBuf>,
    /// Decode steps per model.
    #[arg(long, default_value_t = 256)]
    pub tokens: usize,
    /// Prompt length for the prefill measurement.
    #[arg(long, default_value_t = 512)]
    pub prefill: usize,
    /// Skip the kernel sweeps (bandwidth, matvec).
    #[arg(long)]
    pub models_only: bool,
    /// K values of the INT4 matvec sweep.
    #[arg(long, value_delimiter = ',', default_value = "896,1024,2048,4096")]
    pub matvec_k: Vec<usize>,
    /// N values of the INT4 matvec sweep.
    #[arg(long, value_delimiter = ',', default_value = "896,4864,14336,49152,151936")]
    pub matvec_n: Vec<usize>,
    /// Skip the whole-model runs (kernel sweeps only).
    #[arg(long)]
    pub kernels_only: bool,
    /// Rows (sequences decoded together) for the batched decode measurement; `--batch-rows` with
    /// no value skips it.
    #[arg(long, value_delimiter = ',', num_args = 0.., default_value = "1,8,32")]
    pub batch_rows: Vec<usize>,
    /// Also run with each of these fusion passes off (names as in `FusionConfig`, e.g.
    /// norm_matvec,attention_partials; `a+b` turns both off in one plan), to measure them against
    /// the default plan in the same run.
    #[arg(long, value_delimiter = ',')]
    pub without: Vec<String>,
    /// Also run with each of these opt-in fusion passes on (e.g. attention_qkv; `a+b` both).
    #[arg(long = "with", value_delimiter = ',')]
    pub with_passes: Vec<String>,
    /// Compile the kernels with naga's loop bounding (off by default) to measure what it costs.
    #[arg(long)]
    pub loop_bounding: bool,
    /// Read INT4 matvec shapes from uniforms instead of compiling them into each pipeline.
    #[arg(long)]
    pub dynamic_shapes: bool,
    /// Skip the f32 weight runs (INT4 only).
    #[arg(long)]
    pub int4_only: bool,
    /// The KV caches' values in the model runs (f16, the server's default, f32 or fp8).
    #[arg(long, default_value = "f16")]
    pub kv_dtype: KvDtype,
    /// Timed generate loops per model and plan (the median is reported, every run listed).
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Write all results as JSON here too.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Instead of the GPU runs: the structured-output CPU cost for this vocabulary (a .gguf, or a
    /// folder with tokenizer.json): grammar index build, then the token mask per JSON token.
    #[arg(long, value_name = "TOKENIZER")]
    pub grammar: Option<PathBuf>,
}

/// The default fusion with the passes named in `passes` (joined by '+') off.
pub fn without(passes: &str) -> anyhow::Result<FusionConfig> {
    toggled(passes, false)
}

/// The default fusion with the passes named in `passes` (joined by '+') set to `on`.
pub fn toggled(passes: &str, on: bool) -> anyhow::Result<FusionConfig> {
    let mut v = serde_json::to_value(FusionConfig::default())?;
    for pass in passes.split('+') {
        match v.get_mut(pass) {
            Some(flag @ serde_json::Value::Bool(_)) => *flag = on.into(),
            _ => anyhow::bail!("no fusion pass named '{pass}'"),
        }
    }
    Ok(serde_json::from_value(v)?)
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    if let Some(path) = &args.grammar {
        let r = crate::bench::grammar::run(path, args.tokens.max(2))?;
        println!(
            "structured output, vocabulary of {} tokens: index built in {:.0} ms, JSON schema compiled in {:.1} ms; \
             token mask over {} JSON tokens: median {:.0} us, p90 {:.0} us, max {:.0} us",
            r.vocab, r.index_ms, r.compile_ms, r.tokens, r.mask_us_median, r.mask_us_p90, r.mask_us_max
        );
        if let Some(p) = &args.json {
            std::fs::write(p, serde_json::to_string_pretty(&r)?)?;
        }
        return Ok(());
    }
    if args.tokens < 2 || args.prefill == 0 {
        anyhow::bail!("--tokens must be at least 2 (a decode rate needs a step after the prompt's token) and --prefill at least 1");
    }
    if args.kernels_only && args.models_only {
        anyhow::bail!("--kernels-only and --models-only together leave nothing to run");
    }
    let exec = Executor::new(&GpuOptions {
        loop_bounding: args.loop_bounding,
        dynamic_shapes: args.dynamic_shapes,
        ..Default::default()
    })?;
    // The kernel measurements run on the device itself; the model ones through the executor.
    let gpu = exec.gpu().clone();
    println!("adapter: {} ({}, {})", gpu.caps.adapter_name, gpu.caps.backend, gpu.caps.driver);
    println!("subgroupAdd order (start-up probe): {:?}", gpu.caps.subgroup_add_order);
    let mut report = serde_json::Map::new();
    if !args.models_only {
        let copy = bandwidth::copy_bandwidth(&gpu, 1 << 30, 10);
        println!("copy bandwidth: {:.0} GB/s (read + write)", copy / 1e9);
        report.insert("copy_gbps".into(), (copy / 1e9).into());
        println!("\nINT4 matvec (group 32), one dispatch repeated in one pass:");
        println!("{:>6} {:>7} {:>10} {:>9} {:>7} {:>9}", "K", "N", "us", "GB/s", "% copy", "rel err");
        let mut rows = Vec::new();
        for &k in &args.matvec_k {
            for &n in &args.matvec_n {
                let reps = (2_000_000_000 / (k * n / 2).max(1)).clamp(5, 400);
                let r = matvec::int4_matvec(&gpu, k, n, 32, reps);
                println!(
                    "{:>6} {:>7} {:>10.2} {:>9.0} {:>6.0}% {:>9.1e}",
                    k,
                    n,
                    r.secs * 1e6,
                    r.gbps(),
                    100.0 * r.gbps() * 1e9 / copy,
                    r.rel_err
                );
                rows.push(
                    serde_json::json!({"k": k, "n": n, "us": r.secs * 1e6, "gbps": r.gbps(), "rel_err": r.rel_err}),
                );
            }
        }
        report.insert("int4_matvec".into(), rows.into());
    }
    let mut models = Vec::new();
    let configs: &[PathBuf] = if args.kernels_only { &[] } else { &args.configs };
    for cfg in configs {
        let formats: &[WeightFormat] = if args.int4_only {
            &[WeightFormat::Int4 { group: 32 }]
        } else {
            &[WeightFormat::Int4 { group: 32 }, WeightFormat::F32]
        };
        let mut plans = vec![("default fusion".to_string(), FusionConfig::default())];
        for pass in &args.without {
            plans.push((format!("without {pass}"), without(pass)?));
        }
        for pass in &args.with_passes {
            plans.push((format!("with {pass}"), toggled(pass, true)?));
        }
        for (&format, (plan, fusion)) in formats.iter().flat_map(|f| plans.iter().map(move |p| (f, p))) {
            let run = decode::DecodeRun {
                format,
                fusion: *fusion,
                kv_dtype: args.kv_dtype,
                tokens: args.tokens,
                prefill: args.prefill,
                repeats: args.repeats,
            };
            let r = decode::run(&exec, cfg, run)?;
            println!(
                "\n{} {} ({plan}, KV {}): decode {:.0} tok/s (generate loop {:.0} tok/s, median of {}), {} dispatches/token, weights {:.1} MB -> {:.0} GB/s; prefill {} tokens: {:.0} tok/s",
                r.model,
                r.format,
                args.kv_dtype,
                r.decode_tokens_per_s,
                r.generate_tokens_per_s,
                r.generate_runs.len(),
                r.dispatches_per_token,
                r.weight_bytes as f64 / 1e6,
                r.weight_bytes as f64 * r.decode_tokens_per_s / 1e9,
                r.prefill_tokens,
                r.prefill_tokens_per_s
            );
            let runs: Vec<String> = r.generate_runs.iter().map(|t| format!("{t:.0}")).collect();
            println!("  generate loops (tok/s, in order): {}", runs.join(", "));
            println!("  memory: {}", r.memory);
            models.push(serde_json::to_value(&r)?);
        }
    }
    report.insert("models".into(), models.into());
    let mut batches = Vec::new();
    if !args.batch_rows.is_empty() && !configs.is_empty() {
        println!("\nbatched decode (all rows in one step, one row in the one-token plan; aggregate tok/s):");
        println!(
            "{:>16} {:>8} {:>5} {:>12} {:>12} {:>12} {:>9} {:>6}",
            "model", "format", "rows", "b2b tok/s", "loop tok/s", "chained", "step ms", "disp"
        );
    }
    for cfg in configs.iter().filter(|_| !args.batch_rows.is_empty()) {
        let formats: &[WeightFormat] = if args.int4_only {
            &[WeightFormat::Int4 { group: 32 }]
        } else {
            &[WeightFormat::Int4 { group: 32 }, WeightFormat::F32]
        };
        for &format in formats {
            let results = match batched::run(&exec, cfg, format, &args.batch_rows, args.tokens, args.kv_dtype)? {
                batched::BatchedOutcome::Measured(r) => r,
                batched::BatchedOutcome::Unsupported { model, family } => {
                    println!("{model:>16}: skipped (family {family} has no batched decode)");
                    batches.push(serde_json::json!({"model": model, "skipped": format!("family {family} has no batched decode")}));
                    break; // the same for every format
                }
            };
            if let Some(r) = results.last() {
                println!("{:>16} memory: {}", r.model, r.memory);
                println!(
                    "{:>16} state: KV ({}) {} bytes per token, recurrent {} bytes per sequence",
                    r.model, args.kv_dtype, r.kv_bytes_per_token, r.recurrent_bytes_per_sequence
                );
                // The serving case the KV type and the paged pool are for: 32 slots of 4096 context. The
                // pool is the server's default size; a region of 4096 per slot would take `regions`.
                let regions = r.kv_bytes_per_token * 32 * 4096;
                let f32_regions = regions * 4 / args.kv_dtype.bytes() as u64;
                let pool = regions.min(batched::DEFAULT_KV_CACHE_BYTES);
                let positions = pool / r.kv_bytes_per_token.max(1);
                println!(
                    "{:>16} KV for 32 slots of 4096 context: the default pool {:.0} MB ({} positions, {} a slot on average), {:.0}% of f32 regions' {:.0} MB ({} regions: {:.0} MB)",
                    r.model,
                    pool as f64 / 1e6,
                    positions,
                    positions / 32,
                    100.0 * pool as f64 / f32_regions as f64,
                    f32_regions as f64 / 1e6,
                    args.kv_dtype,
                    regions as f64 / 1e6
                );
            }
            for r in results {
                println!(
                    "{:>16} {:>8} {:>5} {:>12.0} {:>12.0} {:>12.0} {:>9.3} {:>6}",
                    r.model,
                    if r.format.starts_with("Int4") { "int4" } else { "f32" },
                    r.rows,
                    r.aggregate_tokens_per_s,
                    r.loop_tokens_per_s,
                    r.chained_tokens_per_s,
                    r.step_ms,
                    r.dispatches_per_step
                );
                batches.push(serde_json::to_value(&r)?);
            }
        }
    }
    report.insert("batched_decode".into(), batches.into());
    report.insert("adapter".into(), serde_json::to_value(&gpu.caps)?);
    if let Some(p) = args.json {
        std::fs::write(p, serde_json::to_string_pretty(&report)?)?;
    }
    Ok(())
}
