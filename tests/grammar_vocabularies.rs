//! Structured output over real vocabularies (llama.cpp's tokenizer test GGUFs and SmolLM2's, from
//! tools/fetch_test_assets.sh): byte-level BPE (GPT-2 style, Qwen2, Llama 3) and SentencePiece
//! (Llama 2: a "▁" is prepended to text, so its tokenizations cannot be forced as they are). A
//! grammar walked with pseudo-random logits must end in text it accepts, non-ASCII included
//! (llguidance forces such text a byte at a time).

use std::path::PathBuf;
use std::sync::Arc;

use gerbil::bench::grammar::load_tokenizer;
use gerbil::text::grammar::{greedy_tokens, GrammarCompiler, OutputFormat};
use gerbil::text::TextTokenizer;

fn vocabularies() -> Vec<PathBuf> {
    let dir = gerbil::config::test_assets_dir();
    let files = [
        "llama.cpp-vocab/ggml-vocab-llama-spm.gguf",
        "llama.cpp-vocab/ggml-vocab-qwen2.gguf",
        "llama.cpp-vocab/ggml-vocab-llama-bpe.gguf",
        "smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    ];
    files
        .iter()
        .map(|f| {
            let p = dir.join(f);
            assert!(p.exists(), "{} is missing: run tools/fetch_test_assets.sh", p.display());
            p
        })
        .collect()
}

/// Greedy over pseudo-random logits held to the grammar; after 24 tokens single-character
/// closers (quote, brace, bracket) are favoured so open-ended JSON ends too.
fn walk(compiler: &GrammarCompiler, tok: &TextTokenizer, format: &OutputFormat, seed: u64) -> String {
    let mut c = compiler.compile(format).unwrap();
    let vocab = tok.vocab_size();
    let closers: Vec<(u32, f32)> = (0..vocab as u32)
        .filter_map(|id| {
            let bytes = tok.token_bytes(id).ok()?.1;
            let bonus = match bytes.as_slice() {
                b"\"" => 3.0,
                b"}" | b"]" => 2.0,
                _ => return None,
            };
            Some((id, bonus))
        })
        .collect();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut step = 0;
    let ids = greedy_tokens(
        &mut c,
        300,
        |id| tok.is_eos(id),
        |_| {
            step += 1;
            let mut logits: Vec<f32> = (0..vocab)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 40) as f32 / (1u64 << 24) as f32
                })
                .collect();
            if step > 24 {
                for &(id, bonus) in &closers {
                    logits[id as usize] += bonus;
                }
                for &eos in &tok.eos {
                    logits[eos as usize] += 4.0;
                }
            }
            logits
        },
    )
    .unwrap_or_else(|e| panic!("{format:?}: {e}"));
    // Raw bytes, not `decode`: a SentencePiece decoder strips the leading space it adds.
    let bytes: Vec<u8> = ids.iter().flat_map(|&id| tok.token_bytes(id).unwrap().1).collect();
    String::from_utf8(bytes).unwrap_or_else(|e| panic!("not UTF-8: {e}"))
}

#[test]
fn grammars_hold_on_every_vocabulary_kind() {
    let choices = vec!["北京".to_string(), "南京".to_string(), "é".to_string(), "{x}".to_string()];
    for path in vocabularies() {
        let tok = Arc::new(load_tokenizer(&path).unwrap());
        let compiler = GrammarCompiler::new(tok.clone(), tok.vocab_size()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for seed in 0..3 {
            let text = walk(&compiler, &tok, &OutputFormat::JsonObject, seed);
            let v: Result<serde_json::Value, _> = serde_json::from_str(&text);
            assert!(v.as_ref().is_ok_and(|v| v.is_object()), "{name}: {text:?} ({v:?})");
            let text = walk(&compiler, &tok, &OutputFormat::Choice(choices.clone()), seed);
            assert!(choices.contains(&text), "{name}: {text:?}");
            let text = walk(&compiler, &tok, &OutputFormat::Regex("[0-9]{2}-é[a-z]{1,3}".into()), seed);
            let (num, rest) = text.split_once("-é").unwrap_or_else(|| panic!("{name}: {text:?}"));
            assert!(num.len() == 2 && num.chars().all(|c| c.is_ascii_digit()), "{name}: {text:?}");
            assert!((1..=3).contains(&rest.len()) && rest.chars().all(|c| c.is_ascii_lowercase()), "{name}: {text:?}");
        }
    }
}
