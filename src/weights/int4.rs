//! INT4 group quantization: the engine's compact weight format.
//!
//! A [rows, cols] matrix (rows = output features; each row contiguous along the
//! input dimension) is cut into groups of `group` consecutive columns. Each
//! group stores an f32 scale `s` and an f32 offset `m` (the value of nibble 0),
//! and every weight is `s * q + m` with q in 0..=15. We keep the offset as a
//! float rather than an integer zero point so that GGUF Q4_0 (m = -8d), Q4_1
//! (m = min) and Q4_K (m = -dmin * mins) map onto it bit-exactly.
//! Packing: 8 nibbles per u32, element c at bits 4 * (c % 8).

#[derive(Debug, Clone, PartialEq)]
pub struct Int4Matrix {
    pub rows: usize,
    pub cols: usize,
    pub group: usize,
    /// rows * cols / 8 words.
    pub q: Vec<u32>,
    /// (scale, offset) per group: rows * cols / group pairs.
    pub sm: Vec<[f32; 2]>,
}

/// Why a matrix cannot take a given group size.
#[derive(Debug, thiserror::Error)]
#[error("{cols} columns do not divide into INT4 groups of {group} (group must be a multiple of 8 dividing the row)")]
pub struct GroupError {
    pub cols: usize,
    pub group: usize,
}

/// The largest of `preferred`, 64, 32 (not above `preferred`) that divides `cols`.
pub fn pick_group(cols: usize, preferred: usize) -> Option<usize> {
    [preferred, 128, 64, 32]
        .into_iter()
        .filter(|g| *g <= preferred && *g % 8 == 0 && *g > 0)
        .find(|g| cols.is_multiple_of(*g))
}

impl Int4Matrix {
    /// Asymmetric min/max quantization of a row-major [rows, cols] f32 matrix.
    pub fn quantize(w: &[f32], rows: usize, cols: usize, group: usize) -> Result<Self, GroupError> {
        if group == 0 || !group.is_multiple_of(8) || !cols.is_multiple_of(group) {
            return Err(GroupError { cols, group });
        }
        assert_eq!(w.len(), rows * cols, "matrix data does not match its shape");
        let mut q = vec![0u32; rows * cols / 8];
        let mut sm = Vec::with_capacity(rows * cols / group);
        for (gi, chunk) in w.chunks(group).enumerate() {
            let lo = chunk.iter().cloned().fold(f32::INFINITY, f32::min);
            let hi = chunk.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            let scale = (hi - lo) / 15.0;
            let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
            for (j, v) in chunk.iter().enumerate() {
                let n = ((v - lo) * inv).round().clamp(0.0, 15.0) as u32;
                let idx = gi * group + j;
                q[idx / 8] |= n << (4 * (idx % 8));
            }
            sm.push([scale, lo]);
        }
        Ok(Int4Matrix { rows, cols, group, q, sm })
    }

    pub fn nibble(&self, r: usize, c: usize) -> u32 {
        let idx = r * self.cols + c;
        (self.q[idx / 8] >> (4 * (idx % 8))) & 15
    }

    /// Element (r, c) as the kernels compute with it: `s * q + m`.
    pub fn value(&self, r: usize, c: usize) -> f32 {
        let idx = r * self.cols + c;
        let [s, m] = self.sm[idx / self.group];
        s * ((self.q[idx / 8] >> (4 * (idx % 8))) & 15) as f32 + m
    }

    /// The f32 values the kernels compute with: `s * q + m`.
    pub fn dequantize(&self) -> Vec<f32> {
        (0..self.rows * self.cols)
            .map(|idx| {
                let [s, m] = self.sm[idx / self.group];
                let n = (self.q[idx / 8] >> (4 * (idx % 8))) & 15;
                s * n as f32 + m
            })
            .collect()
    }

    /// Bytes the GPU reads for one full pass over the matrix.
    pub fn bytes(&self) -> usize {
        self.q.len() * 4 + self.sm.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantization_error_is_within_half_a_step() {
        let (rows, cols, group) = (3, 64, 32);
        let w: Vec<f32> = (0..rows * cols).map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0).collect();
        let m = Int4Matrix::quantize(&w, rows, cols, group).unwrap();
        let d = m.dequantize();
        for (i, (a, b)) in w.iter().zip(&d).enumerate() {
            let step = m.sm[i / group][0];
            assert!((a - b).abs() <= step * 0.5 + 1e-6, "element {i}: {a} vs {b}");
        }
    }

    #[test]
    fn constant_group_is_exact() {
        let w = vec![0.25f32; 64];
        let m = Int4Matrix::quantize(&w, 2, 32, 32).unwrap();
        assert_eq!(m.dequantize(), w);
    }

    #[test]
    fn rejects_group_that_does_not_divide() {
        assert!(Int4Matrix::quantize(&[0.0; 48], 1, 48, 32).is_err());
        assert_eq!(pick_group(576, 128), Some(64));
        assert_eq!(pick_group(896, 128), Some(128));
        assert_eq!(pick_group(40, 128), None);
    }
}
