//! Every class of malformed header gives a descriptive error (and no panic,
//! no allocation sized by the bogus count).

use super::super::{GgufError, GgufFile};
use super::util::{gguf_str, Builder};

fn err(bytes: Vec<u8>) -> GgufError {
    GgufFile::from_bytes("bad.gguf", bytes).expect_err("should be rejected")
}

fn assert_msg(e: &GgufError, parts: &[&str]) {
    let s = e.to_string();
    assert!(s.contains("bad.gguf"), "error does not name the file: {s}");
    for p in parts {
        assert!(s.contains(p), "error {s:?} does not mention {p:?}");
    }
}

#[test]
fn bad_magic_and_versions() {
    let e = err(b"GGML\x03\0\0\0".to_vec());
    assert!(matches!(e, GgufError::BadMagic { .. }));
    assert_msg(&e, &["not a GGUF file"]);
    for (v, hint) in [(1u32, "v1"), (4, "version 4"), (0x0300_0000, "big-endian")] {
        let mut b = Builder::new();
        b.version = v;
        let e = err(b.build());
        assert!(matches!(e, GgufError::UnsupportedVersion { .. }));
        assert_msg(&e, &[hint]);
    }
}

#[test]
fn truncated_header_fields() {
    let full = Builder::new().build();
    for n in 0..full.len() {
        let e = err(full[..n].to_vec());
        assert!(matches!(e, GgufError::Truncated { .. }), "{n}: {e}");
    }
    let mut b = Builder::new();
    b.kv_str("k", "value");
    let bytes = b.build();
    let e = err(bytes[..bytes.len() - 2].to_vec());
    assert_msg(&e, &["metadata key 'k'", "truncated"]);
}

#[test]
fn absurd_counts_and_lengths() {
    // tensor count / kv count near u64::MAX
    for (tc, kc) in [(u64::MAX, 0u64), (0, u64::MAX), (1 << 40, 0), (0, 1 << 40)] {
        let mut v = b"GGUF".to_vec();
        v.extend(3u32.to_le_bytes());
        v.extend(tc.to_le_bytes());
        v.extend(kc.to_le_bytes());
        v.extend([0u8; 64]);
        let e = err(v);
        assert!(matches!(e, GgufError::Malformed { .. }), "{e}");
    }
    // string length
    let mut b = Builder::new();
    b.kv_raw("s", 8, &u64::MAX.to_le_bytes());
    assert!(matches!(err(b.build()), GgufError::Truncated { .. }));
    // array count of u32 / strings / arrays
    for ety in [4u32, 8, 9] {
        let mut val = ety.to_le_bytes().to_vec();
        val.extend((u64::MAX / 2).to_le_bytes());
        let mut b = Builder::new();
        b.kv_raw("arr", 9, &val);
        let e = err(b.build());
        assert!(matches!(e, GgufError::Malformed { .. }), "{e}");
        assert_msg(&e, &["arr"]);
    }
    // key length
    let mut v = b"GGUF".to_vec();
    v.extend(3u32.to_le_bytes());
    v.extend(0u64.to_le_bytes());
    v.extend(1u64.to_le_bytes());
    v.extend(u64::MAX.to_le_bytes());
    v.extend([0u8; 16]);
    assert!(matches!(err(v), GgufError::Truncated { .. }));
}

#[test]
fn unknown_value_types_and_deep_nesting() {
    let mut b = Builder::new();
    b.kv_raw("x", 13, &[0; 8]);
    assert_msg(&err(b.build()), &["'x'", "unknown value type 13"]);
    let mut val = 99u32.to_le_bytes().to_vec();
    val.extend(1u64.to_le_bytes());
    let mut b = Builder::new();
    b.kv_raw("y", 9, &val);
    assert_msg(&err(b.build()), &["'y'", "unknown value type 99"]);
    // 20 levels of array-of-array
    let mut val = Vec::new();
    for _ in 0..20 {
        val.extend(9u32.to_le_bytes());
        val.extend(1u64.to_le_bytes());
    }
    val.extend(0u32.to_le_bytes());
    val.extend(0u64.to_le_bytes());
    let mut b = Builder::new();
    b.kv_raw("deep", 9, &val);
    assert_msg(&err(b.build()), &["nested deeper"]);
}

#[test]
fn duplicate_keys_and_tensors() {
    let mut b = Builder::new();
    b.kv_u32("a", 1).kv_u32("a", 2);
    assert_msg(&err(b.build()), &["duplicate metadata key 'a'"]);
    let mut b = Builder::new();
    b.tensor("t", &[1], 0, &[0; 4]).tensor("t", &[1], 0, &[0; 4]);
    assert_msg(&err(b.build()), &["'t'", "duplicate tensor name"]);
}

#[test]
fn bad_alignment_values() {
    for val in [0u32, 3, 48] {
        let mut b = Builder::new();
        b.kv_u32("general.alignment", val);
        assert_msg(&err(b.build()), &["general.alignment"]);
    }
    let mut b = Builder::new();
    b.kv_str("general.alignment", "32");
    assert_msg(&err(b.build()), &["general.alignment"]);
}

#[test]
fn bad_tensor_infos() {
    // (name, dims, type id, offset, data bytes, expected message)
    type Case = (&'static str, Vec<u64>, u32, u64, usize, &'static str);
    let cases: Vec<Case> = vec![
        ("unknown_type", vec![32], 4, 0, 32, "unknown ggml type id 4"),
        ("unknown_type2", vec![32], 1000, 0, 32, "unknown ggml type id 1000"),
        ("five_dims", vec![1, 1, 1, 1, 1], 0, 0, 4, "5 dimensions"),
        ("overflow", vec![1 << 32, 1 << 32], 0, 0, 4, "overflows"),
        ("huge_dim", vec![u64::MAX], 0, 0, 4, "out of range"),
        ("zero_overflow", vec![0, 1 << 40, 1 << 40], 0, 0, 4, "overflows"),
        ("bad_block", vec![33], 2, 0, 64, "not a multiple of the Q4_0 block size 32"),
        ("past_eof", vec![64], 0, 0, 16, "past the end of the file"),
        ("huge_offset", vec![1], 0, u64::MAX - 31, 4, "past the end of the file"),
        ("misaligned", vec![1], 0, 4, 8, "not a multiple of the alignment"),
    ];
    for (name, dims, ty, offset, data_len, msg) in cases {
        let mut b = Builder::new();
        gguf_str(&mut b.infos, name);
        b.infos.extend((dims.len() as u32).to_le_bytes());
        for d in &dims {
            b.infos.extend(d.to_le_bytes());
        }
        b.infos.extend(ty.to_le_bytes());
        b.infos.extend(offset.to_le_bytes());
        b.n_tensors = 1;
        b.data = vec![0; data_len];
        let e = err(b.build());
        assert!(matches!(e, GgufError::BadTensor { .. }), "{name}: {e}");
        assert_msg(&e, &[name, msg]);
    }
}

#[test]
fn unsupported_dequant_type_is_an_error() {
    let mut b = Builder::new();
    b.tensor("iq2", &[256], 16, &[0; 66]);
    let f = GgufFile::from_bytes("bad.gguf", b.build()).unwrap();
    let e = f.tensor_f32("iq2").unwrap_err();
    assert!(matches!(e, GgufError::UnsupportedType { .. }));
    assert_msg(&e, &["iq2", "IQ2_XXS"]);
    assert!(f.tensor_int4("iq2").unwrap().is_none());
}
