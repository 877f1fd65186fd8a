//! Lossless repacking of Q4_0 / Q4_1 / Q4_K into the engine's INT4 group format.

use super::dequant::{f16_to_f32, k_scale_min, DequantError};
use super::types::GgmlType;

/// A `[rows, cols]` matrix (rows = output features, each row contiguous
/// along cols = input features) of 4-bit codes with one (scale, min) per
/// group of 32 consecutive columns.
///
/// `value(r, c) = scales[g] * (nibble as f32) + mins[g]` with
/// `g = r * cols / 32 + c / 32`, evaluated as `s * q + m` in f32.
#[derive(Debug, Clone, PartialEq)]
pub struct Int4Groups {
    pub rows: usize,
    /// Always a multiple of [`Int4Groups::GROUP`].
    pub cols: usize,
    /// `rows * cols / 8` words; element (r, c) is nibble `c % 8` of word
    /// `r * cols / 8 + c / 8`, at bits `4 * (c % 8)..+4`.
    pub q: Vec<u32>,
    /// `rows * cols / 32`
    pub scales: Vec<f32>,
    /// `rows * cols / 32`
    pub mins: Vec<f32>,
}

impl Int4Groups {
    /// Columns per (scale, min) group.
    pub const GROUP: usize = 32;

    /// Whether [`Int4Groups::from_ggml`] accepts `ty`.
    pub fn supports(ty: GgmlType) -> bool {
        matches!(ty, GgmlType::Q4_0 | GgmlType::Q4_1 | GgmlType::Q4_K)
    }

    /// Repacks a row-major `[rows, cols]` ggml tensor (ggml `ne = [cols, rows]`).
    ///
    /// * Q4_0: `scale = d`, `min = -8 * d`
    /// * Q4_1: `scale = d`, `min = m`
    /// * Q4_K: per 32-element sub-block `scale = d * sc`, `min = -(dmin * m)`
    ///
    /// Returns `Ok(None)` for any other type.
    pub fn from_ggml(ty: GgmlType, data: &[u8], rows: usize, cols: usize) -> Result<Option<Int4Groups>, DequantError> {
        if !Self::supports(ty) {
            return Ok(None);
        }
        let (blck, tsize) = ty.block_geometry();
        let n_elements = rows.checked_mul(cols);
        let ok = cols.is_multiple_of(blck)
            && n_elements.and_then(|n| (n / blck).checked_mul(tsize)).is_some_and(|n| n == data.len());
        if !ok {
            return Err(DequantError::BadLength {
                ty,
                n_elements: n_elements.unwrap_or(usize::MAX),
                n_bytes: data.len(),
            });
        }
        let n = rows * cols;
        let groups = n / Self::GROUP;
        let mut out = Int4Groups {
            rows,
            cols,
            q: Vec::with_capacity(n / 8),
            scales: Vec::with_capacity(groups),
            mins: Vec::with_capacity(groups),
        };
        for b in data.chunks_exact(tsize) {
            match ty {
                GgmlType::Q4_0 => {
                    let d = f16_to_f32(u16::from_le_bytes([b[0], b[1]]));
                    out.push_group(&b[2..18], d, -8.0 * d);
                }
                GgmlType::Q4_1 => {
                    let d = f16_to_f32(u16::from_le_bytes([b[0], b[1]]));
                    let m = f16_to_f32(u16::from_le_bytes([b[2], b[3]]));
                    out.push_group(&b[4..20], d, m);
                }
                _ => {
                    let d = f16_to_f32(u16::from_le_bytes([b[0], b[1]]));
                    let dmin = f16_to_f32(u16::from_le_bytes([b[2], b[3]]));
                    let (sc, mn) = k_scale_min(&b[4..16]);
                    let qs = &b[16..144];
                    for j in 0..8 {
                        let chunk = &qs[(j / 2) * 32..(j / 2) * 32 + 32];
                        let s = d * sc[j] as f32;
                        let m = -(dmin * mn[j] as f32);
                        out.push_group_k(chunk, 4 * (j as u32 % 2), s, m);
                    }
                }
            }
        }
        Ok(Some(out))
    }

    /// Q4_0/Q4_1 layout: 16 bytes, element j < 16 in the low nibble of byte j,
    /// element j >= 16 in the high nibble of byte j - 16.
    fn push_group(&mut self, qs: &[u8], s: f32, m: f32) {
        for w in 0..4 {
            let mut word = 0u32;
            for k in 0..8 {
                let j = 8 * w + k;
                let nib = if j < 16 { qs[j] & 0x0f } else { qs[j - 16] >> 4 };
                word |= (nib as u32) << (4 * k);
            }
            self.q.push(word);
        }
        self.scales.push(s);
        self.mins.push(m);
    }

    /// Q4_K layout: 32 bytes, element l in byte l at bit `shift`.
    fn push_group_k(&mut self, qs: &[u8], shift: u32, s: f32, m: f32) {
        for w in 0..4 {
            let mut word = 0u32;
            for k in 0..8 {
                let nib = (qs[8 * w + k] as u32 >> shift) & 0x0f;
                word |= nib << (4 * k);
            }
            self.q.push(word);
        }
        self.scales.push(s);
        self.mins.push(m);
    }

    /// The 4-bit code of element (r, c).
    pub fn nibble(&self, r: usize, c: usize) -> u8 {
        let word = self.q[r * self.cols / 8 + c / 8];
        ((word >> (4 * (c % 8))) & 0x0f) as u8
    }

    /// `s * q + m` for element (r, c).
    pub fn value(&self, r: usize, c: usize) -> f32 {
        let g = r * self.cols / Self::GROUP + c / Self::GROUP;
        self.scales[g] * self.nibble(r, c) as f32 + self.mins[g]
    }

    /// The whole matrix as row-major f32 via `s * q + m`.
    pub fn dequantize(&self) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.rows * self.cols);
        for (g, words) in self.q.chunks_exact(4).enumerate() {
            let (s, m) = (self.scales[g], self.mins[g]);
            for &w in words {
                for k in 0..8 {
                    out.push(s * ((w >> (4 * k)) & 0x0f) as f32 + m);
                }
            }
        }
        out
    }

    /// A new matrix whose row `i` is row `src_rows[i]` of `self`
    /// (e.g. with [`super::params::unpermute_rows`]). Panics if an index is out of range.
    pub fn select_rows(&self, src_rows: &[usize]) -> Int4Groups {
        let wpr = self.cols / 8;
        let gpr = self.cols / Self::GROUP;
        let mut out = Int4Groups {
            rows: src_rows.len(),
            cols: self.cols,
            q: Vec::with_capacity(src_rows.len() * wpr),
            scales: Vec::with_capacity(src_rows.len() * gpr),
            mins: Vec::with_capacity(src_rows.len() * gpr),
        };
        for &r in src_rows {
            assert!(r < self.rows, "row {r} out of range ({} rows)", self.rows);
            out.q.extend_from_slice(&self.q[r * wpr..(r + 1) * wpr]);
            out.scales.extend_from_slice(&self.scales[r * gpr..(r + 1) * gpr]);
            out.mins.extend_from_slice(&self.mins[r * gpr..(r + 1) * gpr]);
        }
        out
    }
}
