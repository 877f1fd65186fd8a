//! Reader on well-formed input: the gguf-py written fixture and synthetic v2/v3 files.

use super::super::{GgmlType, GgufError, GgufFile, MetaArray, MetaValue};
use super::util::{fixture, Builder, FIXTURE};

#[test]
fn fixture_metadata_all_value_types() {
    let f = fixture();
    let md = f.metadata();
    assert_eq!(f.version(), 3);
    assert_eq!(md.get_str("general.architecture").unwrap(), "llama");
    assert_eq!(md.get("test.u8"), Some(&MetaValue::U8(200)));
    assert_eq!(md.get("test.i8"), Some(&MetaValue::I8(-100)));
    assert_eq!(md.get("test.u16"), Some(&MetaValue::U16(60000)));
    assert_eq!(md.get("test.i16"), Some(&MetaValue::I16(-30000)));
    assert_eq!(md.get_u32("test.u32").unwrap(), 4_000_000_000);
    assert_eq!(md.get_i32("test.i32").unwrap(), -2_000_000_000);
    assert_eq!(md.get_f32("test.f32").unwrap(), 1.5);
    assert!(md.get_bool("test.bool").unwrap());
    assert_eq!(md.get_str("test.str").unwrap(), "héllo ▁ wörld");
    assert_eq!(md.get_u64("test.u64").unwrap(), (1u64 << 63) + 5);
    assert_eq!(md.get_i64("test.i64").unwrap(), -(1i64 << 62));
    assert_eq!(md.get_f64("test.f64").unwrap(), 0.1);
    assert_eq!(md.get_str_array("test.str_arr").unwrap(), &["a", "", "ü<0x0A>", "▁x y"]);
    assert_eq!(md.get_int_array("test.i32_arr").unwrap(), vec![1, -2, 3]);
    assert_eq!(md.get_f32_array("test.f32_arr").unwrap(), vec![0.5, -1.25]);
    match md.get("test.nested") {
        Some(MetaValue::Array(MetaArray::Array(v))) => {
            assert_eq!(v.len(), 2);
            assert_eq!(v[1].len(), 1);
        }
        other => panic!("nested array parsed as {other:?}"),
    }
    // integer widening / narrowing
    assert_eq!(md.get_u32("test.u8").unwrap(), 200);
    assert_eq!(md.get_i64("test.u32").unwrap(), 4_000_000_000);
    assert_eq!(md.opt_u32("no.such.key").unwrap(), None);
}

#[test]
fn metadata_accessor_errors_name_file_and_key() {
    let f = fixture();
    let md = f.metadata();
    let e = md.get_u32("no.such.key").unwrap_err();
    assert!(matches!(e, GgufError::MissingKey { .. }));
    assert!(e.to_string().contains("dequant_fixture.gguf") && e.to_string().contains("no.such.key"));
    let e = md.get_u32("test.str").unwrap_err();
    assert!(matches!(e, GgufError::WrongType { .. }), "{e}");
    let e = md.get_u32("test.i8").unwrap_err(); // -100 does not fit
    assert!(matches!(e, GgufError::BadValue { .. }), "{e}");
    let e = md.get_u8("test.u16").unwrap_err();
    assert!(e.to_string().contains("60000"), "{e}");
    assert!(md.get_str_array("test.i32_arr").is_err());
    assert!(md.get_f32("test.str").is_err());
}

#[test]
fn fixture_tensor_infos() {
    let f = fixture();
    let names: Vec<&str> = f.tensor_infos().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q4_k", "q5_k", "q6_k", "q2_k", "q3_k", "f16", "bf16", "f32",
            "q8_0_3d"
        ]
    );
    let t = f.tensor_info("q4_k").unwrap();
    assert_eq!((t.ty, t.dims.as_slice(), t.n_elements), (GgmlType::Q4_K, &[512u64, 4][..], 2048));
    assert_eq!(t.n_bytes, 8 * 144);
    assert_eq!(t.shape(), vec![4, 512]);
    let t = f.tensor_info("q8_0_3d").unwrap();
    assert_eq!(t.dims, vec![64, 3, 2]);
    assert_eq!(t.shape(), vec![2, 3, 64]);
    assert_eq!(f.header().alignment, 32);
    assert_eq!(f.header().data_offset % 32, 0);
    for t in f.tensor_infos() {
        assert_eq!(t.offset % 32, 0);
        assert_eq!(f.tensor_data(&t.name).unwrap().len() as u64, t.n_bytes);
    }
    let (shape, v) = f.tensor_f32("f32").unwrap();
    assert_eq!(shape, vec![2, 2, 64]);
    assert_eq!(v[0], f32::INFINITY);
    let e = f.tensor_f32("nope").unwrap_err();
    assert!(matches!(e, GgufError::TensorNotFound { .. }));
}

#[test]
fn open_from_path_memory_maps() {
    let dir = std::env::temp_dir().join(format!("gerbil-gguf-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fixture.gguf");
    std::fs::write(&path, FIXTURE).unwrap();
    let f = GgufFile::open(&path).unwrap();
    assert_eq!(f.label(), path.display().to_string());
    assert_eq!(f.tensor_f32("q4_0").unwrap(), fixture().tensor_f32("q4_0").unwrap());
    let empty = dir.join("empty.gguf");
    std::fs::write(&empty, b"").unwrap();
    let e = GgufFile::open(&empty).unwrap_err();
    assert!(matches!(e, GgufError::Truncated { .. }), "{e}");
    let missing = dir.join("missing.gguf");
    let e = GgufFile::open(&missing).unwrap_err();
    assert!(matches!(e, GgufError::Io { .. }) && e.to_string().contains("missing.gguf"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn version_2_and_custom_alignment() {
    let vals: Vec<u8> = [1.0f32, -2.0, 3.5, 0.25].iter().flat_map(|v| v.to_le_bytes()).collect();
    for version in [2, 3] {
        let mut b = Builder::new();
        b.version = version;
        b.alignment = 64;
        b.kv_u32("general.alignment", 64).kv_str("general.architecture", "llama").tensor("a", &[4], 0, &vals).tensor(
            "b",
            &[2, 2],
            0,
            &vals,
        );
        let f = GgufFile::from_bytes("v", b.build()).unwrap();
        assert_eq!(f.version(), version);
        assert_eq!(f.header().alignment, 64);
        assert_eq!(f.header().data_offset % 64, 0);
        assert_eq!(f.tensor_info("b").unwrap().offset, 64);
        assert_eq!(f.tensor_f32("b").unwrap(), (vec![2, 2], vec![1.0, -2.0, 3.5, 0.25]));
    }
}

#[test]
fn vocab_only_file_without_tensors() {
    let mut b = Builder::new();
    b.kv_str("general.architecture", "llama");
    let f = GgufFile::from_bytes("vocab-only", b.build()).unwrap();
    assert!(f.tensor_infos().is_empty());
}

#[test]
fn zero_sized_and_scalar_tensors() {
    let mut b = Builder::new();
    b.tensor("empty", &[32, 0], 2, &[]).tensor("scalar", &[], 0, &7.5f32.to_le_bytes());
    let f = GgufFile::from_bytes("z", b.build()).unwrap();
    assert_eq!(f.tensor_f32("empty").unwrap(), (vec![0, 32], vec![]));
    assert_eq!(f.tensor_int4("empty").unwrap().unwrap().q.len(), 0);
    assert_eq!(f.tensor_f32("scalar").unwrap(), (vec![], vec![7.5]));
}
