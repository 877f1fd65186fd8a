//! Lossless Q4_0 / Q4_1 / Q4_K -> Int4Groups repacking.

use super::super::{GgmlType, GgufFile, Int4Groups};
use super::util::{expected_values, fixture, Builder};

/// gguf-py's dequantization of the named fixture tensor.
fn expected_for(name: &str) -> Vec<f32> {
    let f = fixture();
    let exp = expected_values();
    let mut pos = 0;
    for t in f.tensor_infos() {
        let n = t.n_elements as usize;
        if t.name == name {
            return exp[pos..pos + n].to_vec();
        }
        pos += n;
    }
    panic!("no tensor {name}");
}

/// Q4_1 (`d*q + m`) and Q4_K (`(d*sc)*q - dmin*m`) are reproduced bit for bit
/// by `s*q + m`, through both `dequantize()` and per-element `value()`.
#[test]
fn int4_q4_1_and_q4_k_bit_exact() {
    let f = fixture();
    for name in ["q4_1", "q4_k"] {
        let g = f.tensor_int4(name).unwrap().unwrap();
        let want = expected_for(name);
        let info = f.tensor_info(name).unwrap();
        assert_eq!((g.rows, g.cols), (info.dims[1] as usize, info.dims[0] as usize));
        assert_eq!(g.q.len(), g.rows * g.cols / 8);
        assert_eq!(g.scales.len(), g.rows * g.cols / 32);
        let got = g.dequantize();
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "{name}[{i}]: {a} vs {b}");
            let (r, c) = (i / g.cols, i % g.cols);
            assert_eq!(g.value(r, c).to_bits(), b.to_bits());
        }
    }
}

/// Q4_0: gguf-py computes `d * (q - 8)`, we compute `d*q + (-8d)`. Both are
/// exact (11-bit d times a 4-bit code), so values are equal everywhere; the
/// only bit differences are zeros: `d*0` keeps the sign of d (-0.0 for
/// negative d) while `x + (-x)` is always +0.0. No other deviation exists.
#[test]
fn int4_q4_0_exact_up_to_sign_of_zero() {
    let f = fixture();
    let g = f.tensor_int4("q4_0").unwrap().unwrap();
    let want = expected_for("q4_0");
    let got = g.dequantize();
    let mut signed_zero_diffs = 0;
    for (i, (a, b)) in got.iter().zip(&want).enumerate() {
        assert_eq!(a, b, "q4_0[{i}] differs numerically");
        if a.to_bits() != b.to_bits() {
            assert!(*a == 0.0 && a.is_sign_positive() && b.is_sign_negative(), "q4_0[{i}]");
            signed_zero_diffs += 1;
        }
    }
    // the fixture has negative scales with nibble 8, so this path is exercised
    assert!(signed_zero_diffs > 0);
    eprintln!("q4_0: {signed_zero_diffs} of {} values are +0.0 instead of -0.0", got.len());
}

/// Nibble order: element c of a group is nibble c%8 of word c/8.
#[test]
fn int4_layout_from_handmade_blocks() {
    // Q4_0 block: d = 1.0 (0x3c00); element j < 16 low nibble of qs[j], j >= 16 high nibble
    let mut blk = vec![0x00, 0x3c];
    for j in 0..16u8 {
        blk.push((j & 0xf) | (((15 - j) & 0xf) << 4));
    }
    let g = Int4Groups::from_ggml(GgmlType::Q4_0, &blk, 1, 32).unwrap().unwrap();
    for c in 0..32 {
        let want = if c < 16 { c as u8 } else { 15 - (c as u8 - 16) };
        assert_eq!(g.nibble(0, c), want);
        assert_eq!((g.q[c / 8] >> (4 * (c % 8))) & 0xf, want as u32);
        assert_eq!(g.value(0, c), want as f32 - 8.0);
    }
    assert_eq!((g.scales[0], g.mins[0]), (1.0, -8.0));

    // Q4_K: d = 1, dmin = 1, sub-block j scale j+1, min 2j; qs[l] = l%16 | (15 - l%16) << 4
    let mut blk = vec![0x00, 0x3c, 0x00, 0x3c];
    let sc: Vec<u8> = (1..=8).collect();
    let mn: Vec<u8> = (0..8).map(|j| 2 * j).collect();
    let mut packed = [0u8; 12];
    for j in 0..4 {
        packed[j] = sc[j] | ((sc[4 + j] >> 4) << 6);
        packed[4 + j] = mn[j] | ((mn[4 + j] >> 4) << 6);
        packed[8 + j] = (sc[4 + j] & 0xf) | ((mn[4 + j] & 0xf) << 4);
    }
    blk.extend(packed);
    for l in 0..128u8 {
        blk.push((l % 16) | ((15 - l % 16) << 4));
    }
    let g = Int4Groups::from_ggml(GgmlType::Q4_K, &blk, 1, 256).unwrap().unwrap();
    for j in 0..8 {
        assert_eq!((g.scales[j], g.mins[j]), (sc[j] as f32, -(mn[j] as f32)));
        for l in 0..32 {
            let want = if j % 2 == 0 { l % 16 } else { 15 - l % 16 } as u8;
            assert_eq!(g.nibble(0, 32 * j + l), want, "sub-block {j} elem {l}");
        }
    }
}

#[test]
fn int4_none_for_other_types_and_row_selection() {
    let f = fixture();
    for name in ["q8_0", "q5_k", "f16", "f32"] {
        assert!(f.tensor_int4(name).unwrap().is_none(), "{name}");
    }
    let g = f.tensor_int4("q4_1").unwrap().unwrap();
    let full = g.dequantize();
    let rows = [3usize, 0, 7, 7];
    let sel = g.select_rows(&rows);
    let part = sel.dequantize();
    for (i, &r) in rows.iter().enumerate() {
        assert_eq!(&part[i * g.cols..(i + 1) * g.cols], &full[r * g.cols..(r + 1) * g.cols]);
    }
}

#[test]
fn int4_multi_dim_rows() {
    // ne = [32, 2, 3] Q4_0 -> rows = 6
    let mut b = Builder::new();
    let blk: Vec<u8> = (0..6)
        .flat_map(|i| {
            let mut v = vec![0x00, 0x3c];
            v.extend([i as u8; 16]);
            v
        })
        .collect();
    b.tensor("w", &[32, 2, 3], 2, &blk);
    let f = GgufFile::from_bytes("md", b.build()).unwrap();
    let g = f.tensor_int4("w").unwrap().unwrap();
    assert_eq!((g.rows, g.cols), (6, 32));
    assert_eq!(g.dequantize(), f.tensor_f32("w").unwrap().1);
}
