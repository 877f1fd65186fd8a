//! The Rust Moonshine converter (src/weights/convert/moonshine_ort.rs) against the Python one
//! (tools/moonshine/convert_ort.py): converting moonshine-cpp's base-en `.ort` pair gives the
//! same tensors (names, dtypes, shapes, bytes), the same config.json and tokenizer.json.
//! `tools/fetch_test_assets.sh` puts the original files (moonshine-ort/base-en/) and the
//! Python converter's output (moonshine-base/) in the asset cache. Truncated or garbage
//! `.ort` files give an error naming the file, never a panic.

mod convert_support;

use convert_support::{asset, TempDir};
use std::collections::BTreeMap;
use std::path::Path;

use gerbil::weights::convert::moonshine_ort;
use safetensors::SafeTensors;

const MODELS: [&str; 2] = ["encoder_model.ort", "decoder_model_merged.ort"];

type Tensors = BTreeMap<String, (safetensors::Dtype, Vec<usize>, Vec<u8>)>;

fn read_safetensors(path: &Path) -> Tensors {
    let bytes = std::fs::read(path).unwrap();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    st.tensors().into_iter().map(|(n, v)| (n, (v.dtype(), v.shape().to_vec(), v.data().to_vec()))).collect()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn base_en_matches_the_python_converter() {
    let src = asset("moonshine-ort/base-en");
    let want_dir = asset("moonshine-base");
    let tmp = TempDir::new("moonshine-convert");
    let out = tmp.0.join("model");
    moonshine_ort::convert(&src, &src.join("tokenizer.json"), &out).unwrap();

    let got = read_safetensors(&out.join("model.safetensors"));
    let want = read_safetensors(&want_dir.join("model.safetensors"));
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "tensor names");
    for (name, (dtype, shape, bytes)) in &want {
        let (gd, gs, gb) = &got[name];
        assert_eq!((gd, gs), (dtype, shape), "{name}: dtype and shape");
        if gb != bytes {
            let diff = gb.chunks(4).zip(bytes.chunks(4)).filter(|(a, b)| a != b).count();
            panic!("{name}: {diff} of {} values differ", bytes.len() / 4);
        }
    }
    assert_eq!(json(&out.join("config.json")), json(&want_dir.join("config.json")), "config.json");
    assert_eq!(
        std::fs::read(out.join("tokenizer.json")).unwrap(),
        std::fs::read(want_dir.join("tokenizer.json")).unwrap(),
        "tokenizer.json"
    );
}

/// `convert` on a copy of the model folder whose `file` holds `bytes`: must be an error
/// that names the file.
fn assert_rejected(src: &Path, tmp: &Path, file: &str, bytes: &[u8], what: &str) {
    let dir = tmp.join("in");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in MODELS {
        if f == file {
            std::fs::write(dir.join(f), bytes).unwrap();
        } else {
            std::fs::hard_link(src.join(f), dir.join(f))
                .or_else(|_| std::fs::copy(src.join(f), dir.join(f)).map(drop))
                .unwrap();
        }
    }
    let out = tmp.join("out");
    let err = match moonshine_ort::convert(&dir, &src.join("tokenizer.json"), &out) {
        Ok(()) => panic!("{file} {what}: converted without an error"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains(&dir.join(file).display().to_string()), "{file} {what}: error does not name the file: {err}");
    assert!(!out.join("model.safetensors").exists(), "{file} {what}: wrote a checkpoint");
}

#[test]
fn truncated_or_garbage_ort_files_are_errors_naming_the_file() {
    let src = asset("moonshine-ort/base-en");
    let tmp = TempDir::new("moonshine-corrupt");
    for file in MODELS {
        let bytes = std::fs::read(src.join(file)).unwrap();
        let n = bytes.len();
        // The buffer ends with the ort_version string ("6\0" and 2 bytes of padding): n - 3
        // cuts its terminator.
        for cut in [0, 3, 8, 64, 4096, n / 3, n / 2, n - 4096, n - 3] {
            assert_rejected(&src, &tmp.0, file, &bytes[..cut], &format!("cut at {cut} of {n}"));
        }
    }
    // Garbage: pseudo-random bytes, bare and behind the ORTM file identifier.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut garbage: Vec<u8> = (0..1 << 16)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    assert_rejected(&src, &tmp.0, "encoder_model.ort", &garbage, "garbage");
    garbage[4..8].copy_from_slice(b"ORTM");
    for (i, root) in [8u32, 12, 1000, 60000].into_iter().enumerate() {
        garbage[..4].copy_from_slice(&root.to_le_bytes());
        assert_rejected(&src, &tmp.0, "decoder_model_merged.ort", &garbage, &format!("ORTM garbage {i}"));
    }
}
