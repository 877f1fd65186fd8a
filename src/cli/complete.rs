//! `gerbil complete`: load a model, greedy-decode one prompt, print the text
//! as it is generated, then timings on stderr.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;

use crate::executor::Executor;
use crate::gpu::{GpuOptions, KvDtype};
use crate::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use crate::passes::FusionConfig;
use crate::text::tokenizer::StreamDecoder;
use crate::weights::sources::resolve_model;
use crate::weights::WeightFormat;

#[derive(clap::Args, Debug)]
pub struct CompleteArgs {
    /// A GGUF file, a local model folder (config.json + safetensors + tokenizer.json) or a Hugging Face repo id.
    #[arg(long)]
    pub model: String,
    #[arg(long)]
    pub prompt: String,
    #[arg(long, default_value_t = 64)]
    pub max_tokens: usize,
    /// Quantize linear weights to INT4 groups (the default).
    #[arg(long, conflicts_with = "f32")]
    pub int4: bool,
    /// Keep weights in f32 (exact, 8x the memory traffic).
    #[arg(long)]
    pub f32: bool,
    /// INT4 group size (32, 64 or 128).
    #[arg(long, default_value_t = 32)]
    pub group_size: usize,
    /// Do not stop at the end-of-sequence token.
    #[arg(long)]
    pub ignore_eos: bool,
    #[arg(long, default_value_t = 4096)]
    pub max_context: usize,
    /// Disable the decode fusion passes (debugging).
    #[arg(long)]
    pub no_fusion: bool,
    /// The KV caches' values: f16 (the server's default), f32 (exact) or fp8.
    #[arg(long, default_value = "f16")]
    pub kv_dtype: KvDtype,
}

pub fn run(args: CompleteArgs) -> anyhow::Result<()> {
    if ![32, 64, 128].contains(&args.group_size) {
        anyhow::bail!("--group-size must be 32, 64 or 128");
    }
    let format = if args.f32 { WeightFormat::F32 } else { WeightFormat::Int4 { group: args.group_size } };
    let dir = resolve_model(&args.model, &crate::config::hub_options_from_env(true))?;
    let exec = Executor::new(&GpuOptions::default())?;
    let t0 = Instant::now();
    let fusion = if args.no_fusion { FusionConfig::none() } else { FusionConfig::default() };
    let opts =
        LoadOptions { format, max_context: args.max_context, fusion, kv_dtype: args.kv_dtype, ..Default::default() };
    let model = TextModel::load_path(&exec, &dir, opts).with_context(|| format!("loading {}", dir.display()))?;
    let load_s = t0.elapsed().as_secs_f64();
    let tok = model.tokenizer.as_ref().context("the model folder has no tokenizer.json")?;
    let mut prompt = tok.encode(&args.prompt, true)?;
    if prompt.is_empty() {
        prompt = tok.bos.into_iter().collect();
    }
    anyhow::ensure!(!prompt.is_empty(), "the prompt is empty and the model has no bos token");
    let mut session = Session::new(&model, SessionOptions::default())?;
    let mut dec = StreamDecoder::default();
    let mut out = std::io::stdout().lock();
    let t1 = Instant::now();
    let mut first = None;
    let mut err = None;
    let ids = session.generate(&prompt, args.max_tokens, |id| {
        first.get_or_insert_with(|| t1.elapsed());
        if !args.ignore_eos && tok.is_eos(id) {
            return false;
        }
        match dec.push(tok, id) {
            Ok(text) => {
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
                true
            }
            Err(e) => {
                err = Some(e);
                false
            }
        }
    })?;
    if let Some(e) = err {
        return Err(e.into());
    }
    let total = t1.elapsed().as_secs_f64();
    let ttft = first.map_or(0.0, |d| d.as_secs_f64());
    let decoded = ids.len().saturating_sub(1);
    writeln!(out)?;
    eprintln!(
        "{} prompt tokens, {} generated | load {:.2}s | prefill+first token {:.1} ms | decode {:.1} tokens/s | {} dispatches/token | {}",
        prompt.len(),
        ids.len(),
        load_s,
        ttft * 1e3,
        if total > ttft { decoded as f64 / (total - ttft) } else { 0.0 },
        session.decode_dispatches(),
        exec.caps().adapter_name,
    );
    Ok(())
}
