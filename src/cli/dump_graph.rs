//! `gerbil dump-graph`: the post-fusion decode dispatch list as JSON, per entry
//! the op (with its typed attributes), kernel, builder node ids it covers,
//! storage bindings (label and bytes), grid for one token, and dispatch counts
//! with and without fusion.

use std::path::PathBuf;

use crate::executor::Executor;
use crate::gpu::GpuOptions;
use crate::graph::dispatch::Bind;
use crate::graph::ir::{DeviceTensor, Storage};
use crate::graph::plan::TOKEN_LOG_LEN;
use crate::graph::Plan;
use crate::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use crate::passes::FusionConfig;
use crate::weights::random::RandomSource;
use crate::weights::WeightFormat;

#[derive(clap::Args, Debug)]
pub struct DumpGraphArgs {
    /// A GGUF file or model folder, or a config.json (random weights of that shape).
    #[arg(long)]
    pub model: PathBuf,
    /// Write here instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn binding(plan: &Plan, b: &Bind) -> serde_json::Value {
    let (t, part) = match b {
        Bind::Dummy | Bind::DummyOut => return serde_json::json!({"label": "(unused)", "bytes": 16}),
        Bind::Scratch(bytes) => return serde_json::json!({"label": "(split scratch)", "bytes": bytes}),
        Bind::Step => return serde_json::json!({"label": "(step)", "bytes": 16}),
        Bind::TokenLog => return serde_json::json!({"label": "(token log)", "bytes": 4 * TOKEN_LOG_LEN}),
        Bind::Tensor(t) => (*t, ""),
        Bind::Q(t) => (*t, ".q"),
        Bind::Sm(t) => (*t, ".sm"),
        Bind::KvTable(t) => (*t, ".block_table"),
    };
    let d = plan.graph.desc(t);
    let bytes = match (&d.storage, b) {
        (Storage::Activation { width, .. }, _) => *width as u64 * 4 * plan.max_rows as u64,
        (Storage::Bound(x), Bind::Q(_)) => match x.as_ref() {
            DeviceTensor::Int4 { rows, cols, .. } => (rows * cols / 2) as u64,
            other => other.bytes(),
        },
        (Storage::Bound(x), Bind::Sm(_)) => match x.as_ref() {
            DeviceTensor::Int4 { rows, cols, group, .. } => (rows * cols / group * 8) as u64,
            other => other.bytes(),
        },
        (Storage::Bound(x), Bind::KvTable(_)) => x.kv_pages().map_or(0, |p| p.table.size()),
        (Storage::Bound(x), _) => x.bytes(),
    };
    serde_json::json!({"label": format!("{}{part}", d.label), "bytes": bytes})
}

pub fn describe(plan: &Plan) -> serde_json::Value {
    let entries: Vec<serde_json::Value> = plan
        .dispatch_specs()
        .map(|d| {
            serde_json::json!({
                "op": plan.graph.ops[d.op_index],
                "kernel": d.kernel,
                "fused_nodes": plan.graph.node_ids[d.op_index],
                "storage_bindings": d.bindings.len(),
                "grid": [d.grid.x.most(1), d.grid.y.most(1), 1],
                "pipeline_flags": d.flags,
                "bindings": d.bindings.iter().map(|b| binding(plan, b)).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::Value::Array(entries)
}

pub fn run(args: DumpGraphArgs) -> anyhow::Result<()> {
    let exec = Executor::new(&GpuOptions::default())?;
    let load = |fusion| -> anyhow::Result<TextModel> {
        let opts =
            LoadOptions { format: WeightFormat::Int4 { group: 32 }, max_context: 256, fusion, ..Default::default() };
        Ok(if args.model.extension().is_some_and(|e| e == "json") {
            TextModel::from_source(&exec, &args.model, &RandomSource { seed: 7, scale: 0.05 }, None, opts)?
        } else {
            TextModel::load_path(&exec, &args.model, opts)?
        })
    };
    let fused = Session::new(&load(FusionConfig::default())?, SessionOptions::default())?;
    let unfused = Session::new(&load(FusionConfig::none())?, SessionOptions::default())?;
    let doc = serde_json::json!({
        "model": args.model,
        "dispatches_per_token": fused.decode_dispatches(),
        "dispatches_per_token_unfused": unfused.decode_dispatches(),
        "passes": fused.pass_reports,
        "decode": describe(fused.decode_plan()),
    });
    let text = serde_json::to_string_pretty(&doc)?;
    match args.out {
        Some(p) => std::fs::write(p, text)?,
        None => println!("{text}"),
    }
    Ok(())
}
