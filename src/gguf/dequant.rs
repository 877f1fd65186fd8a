//! ggml block formats -> f32, bit-exact with gguf-py's `gguf.quants.dequantize`.
//!
//! Each routine repeats numpy's float operations in the same order and with
//! the same intermediate precision (f16 -> f32 first, then one f32 multiply
//! and at most one f32 add/subtract per element), so the results are
//! bit-identical, including NaN payloads of F16/BF16 passthrough.

use super::types::GgmlType;

/// Why a buffer could not be dequantized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DequantError {
    Unsupported(GgmlType),
    /// `n_elements` is not a whole number of blocks or the byte length is wrong.
    BadLength {
        ty: GgmlType,
        n_elements: usize,
        n_bytes: usize,
    },
}

impl std::fmt::Display for DequantError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DequantError::Unsupported(t) => write!(f, "dequantization of {t} is not supported"),
            DequantError::BadLength { ty, n_elements, n_bytes } => {
                write!(f, "{n_bytes} bytes do not hold exactly {n_elements} elements of {ty}")
            }
        }
    }
}

/// IEEE half -> single exactly as numpy's `npy_halfbits_to_floatbits`
/// (NaN payloads are kept, signalling NaNs stay signalling).
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = h & 0x7c00;
    let bits = match exp {
        0 => {
            let mut sig = (h & 0x03ff) as u32;
            if sig == 0 {
                sign
            } else {
                let mut e: u32 = 0;
                sig <<= 1;
                while sig & 0x0400 == 0 {
                    sig <<= 1;
                    e += 1;
                }
                sign + ((127 - 15 - e) << 23) + ((sig & 0x03ff) << 13)
            }
        }
        0x7c00 => sign + 0x7f80_0000 + (((h & 0x03ff) as u32) << 13),
        _ => sign + ((((h & 0x7fff) as u32) + 0x1_c000) << 13),
    };
    f32::from_bits(bits)
}

#[inline]
fn f16_at(b: &[u8], i: usize) -> f32 {
    f16_to_f32(u16::from_le_bytes([b[i], b[i + 1]]))
}

/// Whether [`dequantize`] handles `ty`.
pub fn is_supported(ty: GgmlType) -> bool {
    use GgmlType::*;
    matches!(ty, F32 | F16 | BF16 | Q4_0 | Q4_1 | Q5_0 | Q5_1 | Q8_0 | Q2_K | Q3_K | Q4_K | Q5_K | Q6_K)
}

/// Dequantizes `n_elements` values of type `ty` stored in `data`.
pub fn dequantize(ty: GgmlType, data: &[u8], n_elements: usize) -> Result<Vec<f32>, DequantError> {
    if !is_supported(ty) {
        return Err(DequantError::Unsupported(ty));
    }
    let (blck, tsize) = ty.block_geometry();
    let bad = DequantError::BadLength { ty, n_elements, n_bytes: data.len() };
    if !n_elements.is_multiple_of(blck) || (n_elements / blck).checked_mul(tsize) != Some(data.len()) {
        return Err(bad);
    }
    let mut out = vec![0f32; n_elements];
    let blocks = data.chunks_exact(tsize).zip(out.chunks_exact_mut(blck));
    use GgmlType::*;
    match ty {
        F32 => blocks.for_each(|(b, y)| y[0] = f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        F16 => blocks.for_each(|(b, y)| y[0] = f16_at(b, 0)),
        BF16 => blocks.for_each(|(b, y)| y[0] = f32::from_bits((u16::from_le_bytes([b[0], b[1]]) as u32) << 16)),
        Q4_0 => blocks.for_each(|(b, y)| block_q4_0(b, y)),
        Q4_1 => blocks.for_each(|(b, y)| block_q4_1(b, y)),
        Q5_0 => blocks.for_each(|(b, y)| block_q5_0(b, y)),
        Q5_1 => blocks.for_each(|(b, y)| block_q5_1(b, y)),
        Q8_0 => blocks.for_each(|(b, y)| block_q8_0(b, y)),
        Q2_K => blocks.for_each(|(b, y)| block_q2_k(b, y)),
        Q3_K => blocks.for_each(|(b, y)| block_q3_k(b, y)),
        Q4_K => blocks.for_each(|(b, y)| block_q4_k(b, y)),
        Q5_K => blocks.for_each(|(b, y)| block_q5_k(b, y)),
        Q6_K => blocks.for_each(|(b, y)| block_q6_k(b, y)),
        _ => return Err(DequantError::Unsupported(ty)),
    }
    Ok(out)
}

/// Element `j` (0..32) of a 16-byte packed nibble array: low nibbles first.
#[inline]
fn nibble32(qs: &[u8], j: usize) -> u8 {
    if j < 16 {
        qs[j] & 0x0f
    } else {
        qs[j - 16] >> 4
    }
}

fn block_q4_0(b: &[u8], y: &mut [f32]) {
    let d = f16_at(b, 0);
    let qs = &b[2..18];
    for (j, y) in y.iter_mut().enumerate() {
        let q = nibble32(qs, j) as i8 - 8;
        *y = d * q as f32;
    }
}

fn block_q4_1(b: &[u8], y: &mut [f32]) {
    let d = f16_at(b, 0);
    let m = f16_at(b, 2);
    let qs = &b[4..20];
    for (j, y) in y.iter_mut().enumerate() {
        *y = d * nibble32(qs, j) as f32 + m;
    }
}

#[inline]
fn q5(qh: u32, qs: &[u8], j: usize) -> u8 {
    nibble32(qs, j) | ((((qh >> j) & 1) as u8) << 4)
}

fn block_q5_0(b: &[u8], y: &mut [f32]) {
    let d = f16_at(b, 0);
    let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
    let qs = &b[6..22];
    for (j, y) in y.iter_mut().enumerate() {
        let q = q5(qh, qs, j) as i8 - 16;
        *y = d * q as f32;
    }
}

fn block_q5_1(b: &[u8], y: &mut [f32]) {
    let d = f16_at(b, 0);
    let m = f16_at(b, 2);
    let qh = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    let qs = &b[8..24];
    for (j, y) in y.iter_mut().enumerate() {
        *y = d * q5(qh, qs, j) as f32 + m;
    }
}

fn block_q8_0(b: &[u8], y: &mut [f32]) {
    let d = f16_at(b, 0);
    for (j, y) in y.iter_mut().enumerate() {
        *y = (b[2 + j] as i8) as f32 * d;
    }
}

fn block_q2_k(b: &[u8], y: &mut [f32]) {
    let scales = &b[0..16];
    let qs = &b[16..80];
    let d = f16_at(b, 80);
    let dmin = f16_at(b, 82);
    for (i, y) in y.iter_mut().enumerate() {
        let (h, s, l) = (i / 128, (i % 128) / 32, i % 32);
        let q = (qs[h * 32 + l] >> (2 * s)) & 3;
        let sc = scales[i / 16];
        let dl = d * (sc & 0x0f) as f32;
        let ml = dmin * (sc >> 4) as f32;
        *y = dl * q as f32 - ml;
    }
}

fn block_q3_k(b: &[u8], y: &mut [f32]) {
    let hmask = &b[0..32];
    let qs = &b[32..96];
    let sc = &b[96..108];
    let d = f16_at(b, 108);
    let mut dl = [0f32; 16];
    for (i, dl) in dl.iter_mut().enumerate() {
        let lo = if i < 8 { sc[i] & 0x0f } else { sc[i - 8] >> 4 };
        let hi = (sc[8 + i % 4] >> (2 * (i / 4))) & 3;
        let s = (lo | (hi << 4)) as i8 - 32;
        *dl = d * s as f32;
    }
    for (i, y) in y.iter_mut().enumerate() {
        let (h, s, l) = (i / 128, (i % 128) / 32, i % 32);
        let ql = ((qs[h * 32 + l] >> (2 * s)) & 3) as i8;
        let hbit = ((hmask[l] >> (i / 32)) & 1) ^ 1;
        let q = ql - (hbit << 2) as i8;
        *y = dl[i / 16] * q as f32;
    }
}

/// The 8 six-bit (scale, min) pairs of a Q4_K / Q5_K block.
pub(crate) fn k_scale_min(s: &[u8]) -> ([u8; 8], [u8; 8]) {
    let mut sc = [0u8; 8];
    let mut mn = [0u8; 8];
    for j in 0..4 {
        sc[j] = s[j] & 0x3f;
        mn[j] = s[4 + j] & 0x3f;
        sc[4 + j] = (s[8 + j] & 0x0f) | ((s[j] >> 2) & 0x30);
        mn[4 + j] = (s[8 + j] >> 4) | ((s[4 + j] >> 2) & 0x30);
    }
    (sc, mn)
}

fn block_q4_k(b: &[u8], y: &mut [f32]) {
    let d = f16_at(b, 0);
    let dmin = f16_at(b, 2);
    let (sc, mn) = k_scale_min(&b[4..16]);
    let qs = &b[16..144];
    for (i, y) in y.iter_mut().enumerate() {
        let (j, l) = (i / 32, i % 32);
        let q = (qs[(j / 2) * 32 + l] >> (4 * (j % 2))) & 0x0f;
        let ds = d * sc[j] as f32;
        let dm = dmin * mn[j] as f32;
        *y = ds * q as f32 - dm;
    }
}

fn block_q5_k(b: &[u8], y: &mut [f32]) {
    let d = f16_at(b, 0);
    let dmin = f16_at(b, 2);
    let (sc, mn) = k_scale_min(&b[4..16]);
    let qh = &b[16..48];
    let qs = &b[48..176];
    for (i, y) in y.iter_mut().enumerate() {
        let (j, l) = (i / 32, i % 32);
        let ql = (qs[(j / 2) * 32 + l] >> (4 * (j % 2))) & 0x0f;
        let q = ql | (((qh[l] >> j) & 1) << 4);
        let ds = d * sc[j] as f32;
        let dm = dmin * mn[j] as f32;
        *y = ds * q as f32 - dm;
    }
}

fn block_q6_k(b: &[u8], y: &mut [f32]) {
    let ql = &b[0..128];
    let qh = &b[128..192];
    let scales = &b[192..208];
    let d = f16_at(b, 208);
    for (i, y) in y.iter_mut().enumerate() {
        let (h, r) = (i / 128, i % 128);
        let lo = (ql[h * 64 + r % 64] >> (4 * (r / 64))) & 0x0f;
        let hi = (qh[h * 32 + r % 32] >> (2 * (r / 32))) & 3;
        let q = (lo | (hi << 4)) as i8 - 32;
        let ds = d * (scales[i / 16] as i8) as f32;
        *y = ds * q as f32;
    }
}
