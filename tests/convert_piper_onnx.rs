//! The Rust Piper converter (src/weights/convert/piper_onnx.rs) against the Python one
//! (tools/piper/convert_voice.py): converting en_US-joe-medium.onnx gives the same tensors
//! (names, dtypes, shapes, bytes), the same `gerbil.piper` metadata and the same config.json.
//! `tools/fetch_test_assets.sh` puts the original voice and the Python converter's output
//! in the asset cache. Truncated or foreign files give an error naming the file.

mod convert_support;

use convert_support::{asset, TempDir};
use std::collections::BTreeMap;
use std::path::Path;

use gerbil::weights::convert::piper_onnx;
use safetensors::SafeTensors;

type Tensors = BTreeMap<String, (safetensors::Dtype, Vec<usize>, Vec<u8>)>;

fn read_safetensors(path: &Path) -> (Tensors, BTreeMap<String, String>) {
    let bytes = std::fs::read(path).unwrap();
    let (_, meta) = SafeTensors::read_metadata(&bytes).unwrap();
    let metadata = meta.metadata().clone().unwrap_or_default().into_iter().collect();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let tensors =
        st.tensors().into_iter().map(|(n, v)| (n, (v.dtype(), v.shape().to_vec(), v.data().to_vec()))).collect();
    (tensors, metadata)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn joe_medium_matches_the_python_converter() {
    let onnx = asset("piper/original/en_US-joe-medium.onnx");
    let onnx_json = asset("piper/original/en_US-joe-medium.onnx.json");
    let want_dir = asset("piper/en_US-joe-medium");
    let tmp = TempDir::new("piper-convert");
    let out = tmp.0.join("voice");
    piper_onnx::convert(&onnx, &onnx_json, &out).unwrap();

    let (got, got_meta) = read_safetensors(&out.join("model.safetensors"));
    let (want, want_meta) = read_safetensors(&want_dir.join("model.safetensors"));
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "tensor names");
    for (name, (dtype, shape, data)) in &want {
        let (g_dtype, g_shape, g_data) = &got[name];
        assert_eq!((g_dtype, g_shape), (dtype, shape), "{name}: dtype and shape");
        assert!(g_data == data, "{name}: bytes differ");
    }
    assert!(got.contains_key("enc_p.emb.weight") && got.contains_key("dp.flows.0.logs"));

    let arch = |m: &BTreeMap<String, String>| -> serde_json::Value {
        serde_json::from_str(m.get("gerbil.piper").expect("gerbil.piper metadata")).unwrap()
    };
    assert_eq!(arch(&got_meta), arch(&want_meta), "gerbil.piper metadata");
    // Written as Python's json.dumps writes it, so the strings agree too.
    assert_eq!(got_meta.get("gerbil.piper"), want_meta.get("gerbil.piper"));
    assert_eq!(got_meta.get("source"), want_meta.get("source"));
    assert_eq!(json(&out.join("config.json")), json(&want_dir.join("config.json")), "config.json");
    // No leftover .part files.
    let mut names: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["config.json", "model.safetensors"]);
}

#[test]
fn truncated_and_garbage_files_are_errors_naming_the_file() {
    let onnx = asset("piper/original/en_US-joe-medium.onnx");
    let onnx_json = asset("piper/original/en_US-joe-medium.onnx.json");
    let bytes = std::fs::read(&onnx).unwrap();
    let tmp = TempDir::new("piper-bad");
    let json_bytes = std::fs::read(&onnx_json).unwrap();

    // A byte pattern that is no protobuf, and plain text.
    let garbage: Vec<u8> = (0u32..100_000).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let cases: [(&str, &[u8]); 5] = [
        ("truncated.onnx", &bytes[..bytes.len() / 2]),
        ("garbage.onnx", &garbage),
        ("text.onnx", b"this is not an onnx model\n"),
        ("empty.onnx", b""),
        // A well-formed ModelProto whose graph (field 7) is empty: no Piper nodes.
        ("empty-graph.onnx", &[0x3a, 0x00]),
    ];
    for (name, content) in cases {
        let path = tmp.0.join(name);
        std::fs::write(&path, content).unwrap();
        let json_path = tmp.0.join(format!("{name}.json"));
        std::fs::write(&json_path, &json_bytes).unwrap();
        let out = tmp.0.join(format!("{name}.out"));
        let err = piper_onnx::convert(&path, &json_path, &out).expect_err(name).to_string();
        eprintln!("{name}: {err}");
        assert!(err.contains(&path.display().to_string()), "{name}: the error names the file: {err}");
        assert!(!out.join("model.safetensors").exists(), "{name}: nothing written");
    }

    // A valid model with a broken config names the config.
    let bad_json = tmp.0.join("broken.onnx.json");
    std::fs::write(&bad_json, b"{\"audio\": ").unwrap();
    let err = piper_onnx::convert(&onnx, &bad_json, &tmp.0.join("broken.out")).unwrap_err().to_string();
    assert!(err.contains(&bad_json.display().to_string()), "{err}");
}
