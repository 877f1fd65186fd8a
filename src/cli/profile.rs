//! `gerbil profile`: one decode step timed per dispatch (GPU timestamps),
//! aggregated per kernel, with the CPU encode/submit cost of a step.

use std::path::PathBuf;

use anyhow::Context;

use crate::bench::profile;
use crate::engine::{LoadOptions, Session, SessionOptions, TextModel};
use crate::gpu::{Gpu, GpuOptions};
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
}

pub fn run(args: ProfileArgs) -> anyhow::Result<()> {
    let gpu = Gpu::new(&GpuOptions::default())?;
    let format = if args.f32 { WeightFormat::F32 } else { WeightFormat::Int4 { group: 32 } };
    let opts = LoadOptions { format, max_context: args.context + args.steps * 2 + 64, ..Default::default() };
    let model = if args.model.extension().is_some_and(|e| e == "json") {
        TextModel::from_source(&gpu, &args.model, &RandomSource { seed: 7, scale: 0.05 }, None, opts)?
    } else {
        TextModel::load_path(&gpu, &args.model, opts)?
    };
    let mut s = Session::new(&model, SessionOptions::default())?;
    let prompt: Vec<u32> = (0..args.context as u32).map(|i| 1 + i % 1000).collect();
    s.prefill(&prompt)?;
    s.next_token()?;
    let p = profile::decode_step(&mut s, args.steps).context("the adapter has no timestamp queries inside passes")?;
    println!("{} ({} dispatches/token)", gpu.caps.adapter_name, s.decode_dispatches());
    println!("{:<18} {:>5} {:>10} {:>7} {:>9}", "kernel", "count", "total us", "share", "GB/s");
    for r in &p.rows {
        println!(
            "{:<18} {:>5} {:>10.1} {:>6.1}% {:>9.0}",
            format!("{:?}", r.kernel),
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
