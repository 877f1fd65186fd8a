//! The Rust CTranslate2 Whisper converter (src/weights/convert/ct2_whisper.rs) against
//! tools/convert_ct2_whisper.py: converting the published CTranslate2 Whisper tiny.en
//! (`ct2/whisper-tiny-en/` in the asset cache) gives the same tensors (names, dtypes,
//! shapes, bytes) and the same JSON files as the Python converter's output
//! (`whisper-tiny-en/`); both come from `tools/fetch_test_assets.sh`. And a truncated,
//! corrupt or garbage model.bin is an error naming the file, never a panic.

use std::path::{Path, PathBuf};

use gerbil::weights::convert::{ct2_whisper, ConvertError};
use safetensors::SafeTensors;

fn asset(rel: &str) -> PathBuf {
    let p = gerbil::config::test_assets_dir().join(rel);
    assert!(p.exists(), "{} is missing: run tools/fetch_test_assets.sh", p.display());
    p
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gerbil-ct2-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn matches_the_python_converter() {
    let src = asset("ct2/whisper-tiny-en");
    let reference = asset("whisper-tiny-en");
    let out = scratch("real");
    ct2_whisper::convert(&src, &out).unwrap();

    let (a, b) = (
        std::fs::read(out.join("model.safetensors")).unwrap(),
        std::fs::read(reference.join("model.safetensors")).unwrap(),
    );
    let (ours, theirs) = (SafeTensors::deserialize(&a).unwrap(), SafeTensors::deserialize(&b).unwrap());
    let mut names: Vec<String> = ours.names().into_iter().map(str::to_string).collect();
    let mut want: Vec<String> = theirs.names().into_iter().map(str::to_string).collect();
    names.sort();
    want.sort();
    assert_eq!(names, want, "tensor names");
    assert!(names.len() > 100 && names.iter().any(|n| n == "model.encoder.layers.3.self_attn.k_proj.weight"));
    for n in &names {
        let (x, y) = (ours.tensor(n).unwrap(), theirs.tensor(n).unwrap());
        assert_eq!(x.dtype(), y.dtype(), "{n}: dtype");
        assert_eq!(x.shape(), y.shape(), "{n}: shape");
        assert!(x.data() == y.data(), "{n}: bytes differ");
    }
    assert_eq!(ours.tensor("model.decoder.embed_tokens.weight").unwrap().dtype(), safetensors::Dtype::F16);

    for f in ["config.json", "generation_config.json", "preprocessor_config.json", "tokenizer.json"] {
        assert_eq!(json(&out.join(f)), json(&reference.join(f)), "{f}");
    }
    assert!(std::fs::read(out.join("tokenizer.json")).unwrap() == std::fs::read(src.join("tokenizer.json")).unwrap());
    let mut left: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(
        left,
        ["config.json", "generation_config.json", "model.safetensors", "preprocessor_config.json", "tokenizer.json"],
        "no .part files left behind"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// Converts a folder holding `model_bin` (+ the real config.json and tokenizer.json)
/// and expects a format error naming model.bin, with nothing written.
fn expect_format_error(case: &str, model_bin: &[u8], needle: &str) {
    let dir = scratch(&format!("bad-{case}"));
    std::fs::write(dir.join("model.bin"), model_bin).unwrap();
    std::fs::write(dir.join("config.json"), r#"{"suppress_ids": []}"#).unwrap();
    std::fs::write(dir.join("tokenizer.json"), r#"{"added_tokens": []}"#).unwrap();
    let out = dir.join("out");
    match ct2_whisper::convert(&dir, &out) {
        Err(ConvertError::Format { path, msg }) => {
            assert_eq!(path, dir.join("model.bin"), "{case}: {msg}");
            assert!(msg.contains(needle), "{case}: {msg:?} does not say {needle:?}");
            let shown = ConvertError::Format { path, msg }.to_string();
            assert!(shown.contains("model.bin"), "{case}: {shown}");
        }
        other => panic!("{case}: {other:?}"),
    }
    assert!(!out.join("model.safetensors").exists(), "{case}: wrote output");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A CTranslate2 string: u16 length counting the NUL, bytes, NUL.
fn s(out: &mut Vec<u8>, text: &str) {
    out.extend(((text.len() + 1) as u16).to_le_bytes());
    out.extend(text.as_bytes());
    out.push(0);
}

/// A model.bin header (version 6, WhisperSpec) and `count` as the variable count.
fn header(count: u32) -> Vec<u8> {
    let mut b = 6u32.to_le_bytes().to_vec();
    s(&mut b, "WhisperSpec");
    b.extend(1u32.to_le_bytes());
    b.extend(count.to_le_bytes());
    b
}

/// One variable record.
fn var(b: &mut Vec<u8>, name: &str, dims: &[u32], dtype: u8, data: &[u8]) {
    s(b, name);
    b.push(dims.len() as u8);
    for d in dims {
        b.extend(d.to_le_bytes());
    }
    b.push(dtype);
    b.extend((data.len() as u32).to_le_bytes());
    b.extend(data);
}

#[test]
fn truncated_corrupt_or_garbage_model_bin_is_an_error() {
    let real = std::fs::read(asset("ct2/whisper-tiny-en/model.bin")).unwrap();
    // Cut inside the version, the spec name, the variable count, the first variable's
    // name / shape, inside tensor data (first, middle, last) and inside the aliases.
    let first_data = {
        // header: 4 + (2 + 12) + 4 + 4, then the first name, rank, dims, dtype, nbytes
        let mut p = 4 + 2 + "WhisperSpec".len() + 1 + 4 + 4;
        let n = u16::from_le_bytes([real[p], real[p + 1]]) as usize;
        p += 2 + n;
        let rank = real[p] as usize;
        p + 1 + 4 * rank + 1 + 4
    };
    for cut in [
        0,
        2,
        5,
        12,
        24,
        27,
        first_data - 3,
        first_data + 1,
        1_000_000,
        real.len() / 2,
        real.len() - 100,
        real.len() - 1,
    ] {
        expect_format_error(&format!("cut-{cut}"), &real[..cut], "truncated");
    }
    expect_format_error("cut-data", &real[..real.len() / 2], "truncated");
    let mut trailing = real.clone();
    trailing.extend([0, 0, 0]);
    expect_format_error("trailing", &trailing, "trailing");

    // Garbage: pseudo-random bytes, and random bytes behind a valid version.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut garbage = Vec::new();
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        garbage.push(x as u8);
    }
    expect_format_error("garbage", &garbage, "version");
    for seed in 0..64u64 {
        let mut g = 6u32.to_le_bytes().to_vec();
        let mut y = x ^ (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        for _ in 0..(seed as usize * 37 + 3) {
            y ^= y << 13;
            y ^= y >> 7;
            y ^= y << 17;
            g.push(y as u8);
        }
        expect_format_error(&format!("garbage-{seed}"), &g, "");
    }
    expect_format_error("version", &[&99u32.to_le_bytes()[..], &real[4..]].concat(), "version 99");
    expect_format_error("empty", &[], "truncated");

    // Hand-made files: huge counts and shapes, bad dtypes, missing variables.
    expect_format_error("huge-count", &header(u32::MAX), "truncated");
    let mut b = header(1);
    var(&mut b, "x", &[u32::MAX, u32::MAX, u32::MAX], 4, &[]);
    expect_format_error("huge-shape", &b, "do not hold");
    let mut b = header(1);
    s(&mut b, "x");
    b.extend([1, 0xff, 0xff, 0xff, 0x7f, 0, 0xff, 0xff, 0xff, 0xff]);
    expect_format_error("huge-bytes", &b, "");
    let mut b = header(1);
    var(&mut b, "x", &[2], 9, &[0, 0]);
    b.extend(0u32.to_le_bytes());
    expect_format_error("dtype", &b, "unsupported dtype id 9");
    let mut b = header(1);
    var(&mut b, "x", &[2], 5, &[0; 4]);
    b.extend(0u32.to_le_bytes());
    expect_format_error("bf16", &b, "bfloat16");
    let mut b = header(1);
    var(&mut b, "x", &[3], 0, &[0; 8]);
    b.extend(0u32.to_le_bytes());
    expect_format_error("nbytes", &b, "do not hold");
    let mut b = header(0);
    b.extend(1u32.to_le_bytes());
    s(&mut b, "a");
    s(&mut b, "nowhere");
    expect_format_error("alias", &b, "missing variable nowhere");
    let mut b = header(0);
    b.extend(0u32.to_le_bytes());
    expect_format_error("empty-model", &b, "missing variable encoder/conv1/weight");
    let mut b = 6u32.to_le_bytes().to_vec();
    s(&mut b, "TransformerSpec");
    b.extend([0; 12]);
    expect_format_error("spec", &b, "not a Whisper model");
    let mut b = header(1);
    b.extend([0, 0]); // a string of length 0 (no NUL)
    expect_format_error("string", &b, "NUL");
    let mut b = header(1);
    var(&mut b, "encoder/conv1/weight", &[2, 2, 1], 1, &[1, 2, 3, 4]);
    b.extend(1u32.to_le_bytes());
    s(&mut b, "decoder/embeddings/weight");
    s(&mut b, "encoder/conv1/weight");
    expect_format_error("quantized", &b, "only float16/float32");

    // The real file with one needed variable renamed: a missing variable.
    let needle = b"encoder/conv1/weight\0";
    let at = real.windows(needle.len()).position(|w| w == needle).unwrap();
    let mut renamed = real.clone();
    renamed[at] = b'E';
    expect_format_error("renamed", &renamed, "missing variable encoder/conv1/weight");
    // The real file with a quantized-looking (int8) weight.
    let w = b"decoder/layer_0/ffn/linear_0/weight\0";
    let at = real.windows(w.len()).position(|x| x == w).unwrap() + w.len();
    let mut quant = real.clone();
    let rank = quant[at] as usize;
    quant[at + 1 + 4 * rank] = 1; // dtype id: int8 (its byte count then no longer fits)
    expect_format_error("int8", &quant, "do not hold");
}
