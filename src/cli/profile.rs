//! `gerbil profile`: one decode step timed per dispatch (GPU timestamps),
//! aggregated per kernel, with the CPU encode/submit cost of a step.

use std::path::PathBuf;

use anyhow::Context;

use crate::bench::profile;
use crate::executor::Executor;
use crate::gpu::{GpuOptions, KvDtype};
use crate::models::llm::{
    BatchedDecoder, KvPoolOptions, KvPoolSize, LoadOptions, Session, SessionOptions, TextModel, SHORT_PREFILL_ROWS,
};
use crate::weights::random::RandomSource;
use crate::weights::WeightFormat;

#[derive(clap::Args, Debug)]
pub struct ProfileArgs {
    /// A GGUF file or model folder, or a config.json to run with random weights.
    #[arg(long)]
    pub model: PathBuf,
    /// Context already in the KV cache when the step is timed.
    #[arg(long, default_value_t = 64)]
    pub context: usize,
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    #[arg(long)]
    pub f32: bool,
    /// The KV caches' values (f16, the server's default, f32 or fp8).
    #[arg(long, default_value = "f16")]
    pub kv_dtype: KvDtype,
    /// Profile a batched decode step with this many rows (sequences) instead of the single-sequence plan.
    #[arg(long)]
    pub batch_rows: Option<usize>,
    /// Slots the batched decoder is built for (the server's --max-slots); default: --batch-rows.
    #[arg(long)]
    pub slots: Option<usize>,
    /// Also time the step back to back with only one kernel's dispatches at a time, and an empty-kernel floor
    /// with the plan's dispatch count and grids (no timestamps involved).
    #[arg(long)]
    pub ablate: bool,
    /// Compile the kernels with naga's loop bounding (off by default) to measure what it costs.
    #[arg(long)]
    pub loop_bounding: bool,
    /// Read INT4 matvec shapes from uniforms instead of compiling them into each pipeline.
    #[arg(long)]
    pub dynamic_shapes: bool,
    /// Profile a prefill of this many prompt tokens (one chunk, from position 0) instead of a decode step.
    #[arg(long)]
    pub prefill: Option<usize>,
    /// Profile the plan with these fusion passes off (names as in `FusionConfig`, joined by '+').
    #[arg(long)]
    pub without: Option<String>,
}

pub fn run(args: ProfileArgs) -> anyhow::Result<()> {
    if args.steps == 0 || args.batch_rows == Some(0) || args.prefill == Some(0) {
        anyhow::bail!("--steps, --batch-rows and --prefill must be at least 1");
    }
    let exec = Executor::new(&GpuOptions {
        loop_bounding: args.loop_bounding,
        dynamic_shapes: args.dynamic_shapes,
        ..Default::default()
    })?;
    let format = if args.f32 { WeightFormat::F32 } else { WeightFormat::Int4 { group: 32 } };
    let prefill = args.prefill.unwrap_or(0);
    let max_context = (args.context + args.steps * 2 + 64).max(prefill);
    // Batched steps over the server's paged pool (its default size, clamped to the slots' contexts).
    let kv_pool = Some(KvPoolOptions {
        size: KvPoolSize::Bytes(crate::bench::batched::DEFAULT_KV_CACHE_BYTES),
        block_tokens: 64,
    });
    let mut opts = LoadOptions { format, max_context, kv_dtype: args.kv_dtype, kv_pool, ..Default::default() };
    if let Some(passes) = &args.without {
        opts.fusion = super::bench::without(passes)?;
    }
    // A prompt of more than SHORT_PREFILL_ROWS tokens is one chunk of the tiled plan; a shorter one keeps the
    // default chunk, so it runs in the short-prompt plan as it does in the server.
    if prefill > SHORT_PREFILL_ROWS {
        opts.prefill_chunk = prefill;
    }
    let model = if args.model.extension().is_some_and(|e| e == "json") {
        TextModel::from_source(&exec, &args.model, &RandomSource { seed: 7, scale: 0.05 }, None, opts)?
    } else {
        TextModel::load_path(&exec, &args.model, opts)?
    };
    let prompt: Vec<u32> = (0..args.context as u32).map(|i| 1 + i % 1000).collect();
    let (p, dispatches) = match (args.batch_rows, args.prefill) {
        (_, Some(n)) => {
            let mut s = Session::new(&model, SessionOptions::default())?;
            let long: Vec<u32> = (0..n as u32).map(|i| 1 + i * 7 % 1000).collect();
            s.prefill(&long)?;
            let plan = s.last_prefill_plan();
            let kind = if s.last_prefill_was_short() { "the short-prompt plan" } else { "the tiled plan" };
            println!("prefill of {n} tokens in one chunk, in {kind}");
            (profile::plan_step(plan, n, 0, args.steps), plan.dispatch_count())
        }
        (None, None) => {
            let mut s = Session::new(&model, SessionOptions::default())?;
            s.prefill(&prompt)?;
            s.next_token()?;
            if args.ablate {
                print_ablation(&crate::bench::ablation::run(s.decode_plan(), s.pos, args.steps.max(50)));
                if let Some(rows) = crate::bench::grid_barrier::run(s.decode_plan().gpu(), &[9, 48, 128], 100) {
                    for r in rows {
                        println!(
                            "grid barrier in one dispatch vs a dependent dispatch, {} workgroups: {:.2} vs {:.2} us a \
                             phase (GPU)",
                            r.workgroups, r.barrier_us, r.dispatch_us
                        );
                    }
                }
            }
            (profile::decode_step(&mut s, args.steps), s.decode_dispatches())
        }
        (Some(rows), None) => {
            let mut dec = BatchedDecoder::new(&model, args.slots.unwrap_or(rows).max(rows))?;
            let rows = rows.min(dec.slots());
            for slot in 0..rows {
                dec.prefill(slot, &prompt)?;
            }
            let batch: Vec<(usize, u32)> = (0..rows).map(|slot| (slot, 1 + slot as u32)).collect();
            println!("batched decode step, {rows} rows of {} slots", dec.slots());
            (dec.profile_step(&batch, args.steps)?, dec.decode_dispatches())
        }
    };
    let p = p.context("the adapter has no timestamp queries inside passes")?;
    println!("{} ({dispatches} dispatches/step)", exec.caps().adapter_name);
    println!(
        "{:<18} {:>6} {:>10} {:>5} {:>10} {:>7} {:>9}",
        "kernel", "flags", "grid", "count", "total us", "share", "GB/s"
    );
    for r in &p.rows {
        println!(
            "{:<18} {:>6} {:>10} {:>5} {:>10.1} {:>6.1}% {:>9.0}",
            format!("{:?}", r.kernel),
            format!("{:#x}", r.flags),
            format!("{}x{}", r.grid.0, r.grid.1),
            r.count,
            r.total_us,
            100.0 * r.total_us / p.gpu_step_us,
            r.bytes as f64 / r.total_us / 1e3
        );
    }
    println!(
        "GPU {:.1} us/step (sum of dispatch timestamps) | CPU encode {:.1} us + submit {:.1} us | wall {:.1} us/step back to back",
        p.gpu_step_us, p.encode_us, p.submit_us, p.wall_step_us
    );
    Ok(())
}

fn print_ablation(a: &crate::bench::ablation::Ablation) {
    println!(
        "wall back to back: full step {:.1} us (decoding on from the context, {} dispatches, {:.2} us each) | \
         empty-kernel floor {:.1} us with the plan's grids, {:.1} us with one workgroup each, {:.1} us alternating \
         two kernels",
        a.full_us,
        a.dispatches,
        a.full_us / a.dispatches as f64,
        a.floor_plan_grids_us,
        a.floor_one_workgroup_us,
        a.floor_alternating_us
    );
    println!("full step at the context, its Step uniform written before each submission: {:.1} us", a.step_written_us);
    if let (Some(full), Some(floor)) = (a.gpu_full_us, a.gpu_floor_alternating_us) {
        println!(
            "GPU time of one step's pass (timestamps at its start and end): full step {full:.1} us | empty floor, two \
             kernels alternating, {floor:.1} us ({:.2} us a dispatch)",
            floor / a.dispatches as f64
        );
    }
    println!("{:<18} {:>6} {:>5} {:>12} {:>12}", "only kernel", "flags", "count", "wall us", "us each");
    for k in &a.kernels {
        let (kernel, flags) = (format!("{:?}", k.kernel), format!("{:#x}", k.flags));
        println!("{kernel:<18} {flags:>6} {:>5} {:>12.1} {:>12.2}", k.count, k.only_us, k.only_us / k.count as f64);
    }
}
