//! Bit-exactness of dequantization against gguf-py (fixture written by
//! tools/gguf/make_dequant_fixture.py).

use super::super::dequant::{dequantize, f16_to_f32, is_supported, DequantError};
use super::super::GgmlType;
use super::util::{expected_values, fixture};

/// Every tensor of the fixture dequantizes to exactly gguf-py's bits
/// (including NaN payloads and signed zeros).
#[test]
fn dequant_matches_gguf_py_bit_exact() {
    let f = fixture();
    let expected = expected_values();
    let mut pos = 0;
    let mut covered = Vec::new();
    for t in f.tensor_infos() {
        let (shape, got) = f.tensor_f32(&t.name).unwrap();
        assert_eq!(shape.iter().product::<usize>(), got.len());
        let want = &expected[pos..pos + got.len()];
        pos += got.len();
        let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i].to_bits() != want[i].to_bits()).collect();
        assert!(
            bad.is_empty(),
            "{} ({}): {} of {} values differ, first at {}: got {:#010x} want {:#010x}",
            t.name,
            t.ty,
            bad.len(),
            got.len(),
            bad[0],
            got[bad[0]].to_bits(),
            want[bad[0]].to_bits()
        );
        covered.push(t.ty);
    }
    assert_eq!(pos, expected.len(), "expected file has extra values");
    use GgmlType::*;
    for ty in [Q4_0, Q4_1, Q4_K, Q5_0, Q5_K, Q6_K, Q8_0, F16, BF16, F32, Q5_1, Q2_K, Q3_K] {
        assert!(covered.contains(&ty), "fixture lacks {ty}");
    }
}

/// The f16 conversion equals the `half` crate for every non-NaN bit pattern
/// (NaNs keep numpy's payload instead of being quieted).
#[test]
fn f16_to_f32_all_patterns() {
    for h in 0..=u16::MAX {
        let ours = f16_to_f32(h);
        let theirs = half::f16::from_bits(h).to_f32();
        if theirs.is_nan() {
            assert!(ours.is_nan());
            assert_eq!(ours.to_bits() & 0x007f_ffff, ((h & 0x3ff) as u32) << 13);
        } else {
            assert_eq!(ours.to_bits(), theirs.to_bits(), "{h:#06x}");
        }
    }
}

#[test]
fn dequant_rejects_bad_lengths_and_types() {
    assert_eq!(
        dequantize(GgmlType::Q4_0, &[0; 18], 64),
        Err(DequantError::BadLength { ty: GgmlType::Q4_0, n_elements: 64, n_bytes: 18 })
    );
    assert!(dequantize(GgmlType::Q4_0, &[0; 18], 31).is_err());
    assert!(dequantize(GgmlType::Q6_K, &[0; 209], 256).is_err());
    assert_eq!(dequantize(GgmlType::IQ4_NL, &[0; 18], 32), Err(DequantError::Unsupported(GgmlType::IQ4_NL)));
    assert!(!is_supported(GgmlType::Q8_1));
    assert_eq!(dequantize(GgmlType::Q8_0, &[], 0), Ok(vec![]));
}
