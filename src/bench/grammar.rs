//! The CPU cost of structured output for one real vocabulary (a GGUF's or a tokenizer.json's):
//! building the model's grammar index (done once, in the background after load) and computing
//! the token mask before each constrained token, which runs on the worker between decode steps.
//! Walks a JSON schema with pseudo-random logits, so the masks are those of real JSON text.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::text::grammar::{GrammarCompiler, OutputFormat};
use crate::text::sampling::argmax;
use crate::text::TextTokenizer;

#[derive(Debug, Serialize)]
pub struct GrammarBench {
    pub vocab: usize,
    pub index_ms: f64,
    pub compile_ms: f64,
    pub tokens: usize,
    pub mask_us_median: f64,
    pub mask_us_p90: f64,
    pub mask_us_max: f64,
}

/// The tokenizer of a `.gguf` file or of a folder holding tokenizer.json.
pub fn load_tokenizer(path: &Path) -> anyhow::Result<TextTokenizer> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")) {
        let info = crate::gguf::GgufFile::open(path)?.tokenizer()?;
        return Ok(TextTokenizer::from_tokenizer(info.tokenizer, info.eos, info.bos, info.chat_template));
    }
    Ok(TextTokenizer::from_dir(path, &[])?)
}

pub fn run(path: &Path, tokens: usize) -> anyhow::Result<GrammarBench> {
    let tok = Arc::new(load_tokenizer(path)?);
    let vocab = tok.vocab_size();
    let t0 = Instant::now();
    let compiler = GrammarCompiler::new(tok.clone(), vocab).map_err(anyhow::Error::msg)?;
    let index_ms = t0.elapsed().as_secs_f64() * 1e3;
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "name": { "type": "string" },
            "age": { "type": "integer" },
            "tags": { "type": "array", "items": { "type": "string" } }
        },
        "required": ["name", "age", "tags"]
    });
    let format = OutputFormat::JsonSchema(schema);
    let t0 = Instant::now();
    let fresh = compiler.compile(&format).map_err(anyhow::Error::msg)?;
    let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
    let mut c = fresh.fork();
    let mut times = Vec::with_capacity(tokens);
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    while times.len() < tokens {
        let mut logits: Vec<f32> = (0..vocab)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 40) as f32
            })
            .collect();
        let t0 = Instant::now();
        c.restrict(&mut logits).map_err(anyhow::Error::msg)?;
        times.push(t0.elapsed().as_secs_f64() * 1e6);
        let id = argmax(&logits);
        if tok.is_eos(id) || c.accept(id).is_err() || c.is_complete() {
            c = fresh.fork();
        }
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    Ok(GrammarBench {
        vocab,
        index_ms,
        compile_ms,
        tokens,
        mask_us_median: at(0.5),
        mask_us_p90: at(0.9),
        mask_us_max: at(1.0),
    })
}
