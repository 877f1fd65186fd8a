//! Tokenizer conformance against llama.cpp's test-tokenizer-0 vocab files
//! (needs assets) plus small synthetic checks.

use std::collections::BTreeMap;

use super::super::{build_tokenizer, GgufFile, GgufTokenizerInfo};
use super::util::{asset, Builder};

/// Parses `<vocab>.gguf.inp` / `.out` exactly like test-tokenizer-0.cpp:
/// inputs separated by "\n__ggml_vocab_test__\n", one line of ids per input
/// (whitespace-stripped, space separated), collected into a map (last wins).
fn read_tests(name: &str) -> BTreeMap<String, Vec<u32>> {
    let inp = std::fs::read(asset(&format!("llama.cpp-vocab/{name}.inp"))).unwrap();
    let out = std::fs::read_to_string(asset(&format!("llama.cpp-vocab/{name}.out"))).unwrap();
    let inp = String::from_utf8(inp).expect("inputs are UTF-8");
    let sep = "\n__ggml_vocab_test__\n";
    let mut inputs = Vec::new();
    let mut pos = 0;
    while pos < inp.len() {
        match inp[pos..].find(sep) {
            Some(n) => {
                inputs.push(inp[pos..pos + n].to_string());
                pos += n + sep.len();
            }
            None => {
                inputs.push(inp[pos..].to_string());
                break;
            }
        }
    }
    let outputs: Vec<&str> = out.split('\n').collect();
    // std::getline yields no final empty line after a trailing '\n'
    let outputs = match outputs.split_last() {
        Some((&"", rest)) => rest.to_vec(),
        _ => outputs,
    };
    assert_eq!(inputs.len(), outputs.len(), "{name}: .inp/.out test counts differ");
    let mut tests = BTreeMap::new();
    for (i, o) in inputs.into_iter().zip(outputs) {
        let ids = o.split_whitespace().map(|t| t.parse::<u32>().expect("token id")).collect();
        tests.insert(i, ids);
    }
    assert!(!tests.is_empty(), "{name}: no tests found");
    tests
}

fn load(name: &str) -> GgufTokenizerInfo {
    let f = GgufFile::open(asset(&format!("llama.cpp-vocab/{name}"))).unwrap();
    f.tokenizer().unwrap()
}

fn conformance(name: &str) -> GgufTokenizerInfo {
    let info = load(name);
    let tests = read_tests(name);
    let mut failures = Vec::new();
    for (text, want) in &tests {
        let got = info.tokenizer.encode(text.as_str(), false).unwrap();
        if got.get_ids() != want.as_slice() {
            failures.push(format!("  {text:?}\n    want {want:?}\n    got  {:?}", got.get_ids()));
        }
    }
    assert!(
        failures.is_empty(),
        "{name}: {}/{} cases differ from llama.cpp:\n{}",
        failures.len(),
        tests.len(),
        failures.join("\n")
    );
    info
}

#[test]
fn conformance_gpt2() {
    let info = conformance("ggml-vocab-gpt-2.gguf");
    assert_eq!(info.model, "gpt2");
    assert_eq!(info.eos, vec![50256]);
    assert!(!info.add_bos);
}

#[test]
fn conformance_llama_bpe() {
    let info = conformance("ggml-vocab-llama-bpe.gguf");
    assert_eq!(info.bos, Some(128000));
    assert!(info.add_bos, "llama-bpe adds BOS by default");
    // eos first, then <|eot_id|> and other EOG texts
    assert_eq!(info.eos[0], 128001);
    assert!(info.eos.contains(&128009));
    let enc = info.tokenizer.encode("Hello world", true).unwrap();
    assert_eq!(enc.get_ids(), &[128000, 9906, 1917]);
}

#[test]
fn conformance_qwen2() {
    let info = conformance("ggml-vocab-qwen2.gguf");
    assert!(info.chat_template.is_some());
    assert!(info.eos.contains(&151643) && info.eos.contains(&151645));
    // control tokens are parsed as special tokens in text
    let enc = info.tokenizer.encode("<|im_start|>user\nhi<|im_end|>", false).unwrap();
    assert_eq!(enc.get_ids()[0], 151644);
    assert_eq!(*enc.get_ids().last().unwrap(), 151645);
}

#[test]
fn conformance_llama_spm() {
    let info = conformance("ggml-vocab-llama-spm.gguf");
    assert_eq!((info.bos, info.unk), (Some(1), Some(0)));
    assert_eq!(info.eos, vec![2]);
    assert!(info.add_bos);
    let enc = info.tokenizer.encode("Hello world", true).unwrap();
    assert_eq!(enc.get_ids()[0], 1);
}

/// decode(encode(x)) == x for every conformance input (the SPM decoder strips
/// the dummy-prefix space again).
#[test]
fn decode_roundtrip() {
    for name in
        ["ggml-vocab-gpt-2.gguf", "ggml-vocab-llama-bpe.gguf", "ggml-vocab-qwen2.gguf", "ggml-vocab-llama-spm.gguf"]
    {
        let info = load(name);
        for text in read_tests(name).keys() {
            let ids = info.tokenizer.encode(text.as_str(), false).unwrap();
            let back = info.tokenizer.decode(ids.get_ids(), false).unwrap();
            assert_eq!(back, *text, "{name}: roundtrip of {text:?}");
        }
    }
}

/// A tiny SentencePiece vocabulary: merges are derived from scores, unknown
/// characters fall back to byte tokens, and the dummy prefix is added.
#[test]
fn synthetic_spm() {
    let mut tokens: Vec<String> = vec!["<unk>".into(), "<s>".into(), "</s>".into()];
    let mut types = vec![2, 3, 3];
    for b in 0..=255u8 {
        tokens.push(format!("<0x{b:02X}>"));
        types.push(6);
    }
    for t in ["▁", "a", "b", "ab", "▁a", "▁ab", "ba"] {
        tokens.push(t.into());
        types.push(1);
    }
    let scores: Vec<f32> = (0..tokens.len()).map(|i| -(i as f32)).collect();
    let toks: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let mut b = Builder::new();
    b.kv_str("tokenizer.ggml.model", "llama")
        .kv_str_array("tokenizer.ggml.tokens", &toks)
        .kv_f32_array("tokenizer.ggml.scores", &scores)
        .kv_i32_array("tokenizer.ggml.token_type", &types);
    let f = GgufFile::from_bytes("synthetic-spm", b.build()).unwrap();
    let info = build_tokenizer(f.metadata()).unwrap();
    let id = |t: &str| tokens.iter().position(|x| x == t).unwrap() as u32;
    let enc = info.tokenizer.encode("ab", false).unwrap();
    // "▁ab" (score of "▁a" beats "ab", then "▁a"+"b")
    assert_eq!(enc.get_ids(), &[id("▁ab")]);
    let enc = info.tokenizer.encode("ab\n", false).unwrap();
    assert_eq!(enc.get_ids(), &[id("▁ab"), id("<0x0A>")]);
    let enc = info.tokenizer.encode("ba", true).unwrap();
    assert_eq!(enc.get_ids(), &[1, id("▁"), id("ba")]);
    assert_eq!(info.tokenizer.decode(&[id("▁ab"), id("<0x0A>")], false).unwrap(), "ab\n");
}

#[test]
fn unsupported_models_are_errors() {
    let mut b = Builder::new();
    b.kv_str("tokenizer.ggml.model", "t5").kv_str_array("tokenizer.ggml.tokens", &["a"]);
    let f = GgufFile::from_bytes("t5-vocab", b.build()).unwrap();
    let e = f.tokenizer().unwrap_err().to_string();
    assert!(e.contains("t5-vocab") && e.contains("unsupported tokenizer model"), "{e}");

    let mut b = Builder::new();
    b.kv_str("tokenizer.ggml.model", "gpt2")
        .kv_str("tokenizer.ggml.pre", "no-such-pre")
        .kv_str_array("tokenizer.ggml.tokens", &["a"])
        .kv_str_array("tokenizer.ggml.merges", &[]);
    let f = GgufFile::from_bytes("bad-pre", b.build()).unwrap();
    let e = f.tokenizer().unwrap_err().to_string();
    assert!(e.contains("no-such-pre"), "{e}");
}

/// Every pre-tokenizer name in the table compiles into a working tokenizer.
#[test]
fn all_pre_tokenizers_build() {
    let names = super::super::pretok::SUPPORTED_PRE;
    assert!(names.len() > 80);
    let tokens = ["a", "b", "ab", "Ġ", "Ċ", "1", "2"];
    for &pre in names {
        let mut b = Builder::new();
        b.kv_str("tokenizer.ggml.model", "gpt2")
            .kv_str("tokenizer.ggml.pre", pre)
            .kv_str_array("tokenizer.ggml.tokens", &tokens)
            .kv_str_array("tokenizer.ggml.merges", &["a b"]);
        let f = GgufFile::from_bytes(pre, b.build()).unwrap();
        let info = f.tokenizer().unwrap_or_else(|e| panic!("{pre}: {e}"));
        let ids = info.tokenizer.encode("ab a\n12", false).unwrap();
        assert_eq!(ids.get_ids()[0], 2, "{pre}: {:?}", ids.get_ids());
    }
}
