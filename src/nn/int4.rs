//! INT4 weights for the direct-dispatch [`Recorder`] (speech models):
//! quantized at load into the engine's groups (`weights::int4`: asymmetric,
//! f32 scale and offset per group, 8 nibbles per u32) and run by the LLM
//! engine's kernels: `matvec_int4.wgsl` for up to 64 rows (decode steps; 4
//! rows per workgroup), `matmul_int4.wgsl` (tiled) above that.

use super::recorder::{Mat, Recorder};
use crate::gpu::params::{self, flags, fused};
use crate::gpu::{Gpu, KernelId};
use crate::weights::int4::{pick_group, GroupError, Int4Matrix};

/// Rows up to which the matvec kernel is used (as for batched decode in the engine).
const MATVEC_MAX_ROWS: usize = 64;

/// A [rows, cols] weight (rows = outputs) in INT4 groups on the GPU.
pub struct Int4Mat {
    pub q: wgpu::Buffer,
    pub sm: wgpu::Buffer,
    pub rows: usize,
    pub cols: usize,
    pub group: usize,
}

impl Int4Mat {
    /// Quantizes `w` ([rows, cols] row-major) with groups of 64 along the
    /// input, or 32 where 64 does not divide it. The kernels read vec4s of
    /// words: cols must be a multiple of 32.
    pub fn upload(gpu: &Gpu, label: &str, w: &[f32], rows: usize, cols: usize) -> Result<Int4Mat, GroupError> {
        let group = pick_group(cols, 64).filter(|_| cols.is_multiple_of(32)).ok_or(GroupError { cols, group: 64 })?;
        let m = Int4Matrix::quantize(w, rows, cols, group)?;
        let q = gpu.storage_from(&format!("{label} q4"), &m.q);
        let sm = gpu.storage_from(&format!("{label} q4 scales"), &m.sm);
        Ok(Int4Mat { q, sm, rows, cols, group })
    }
}

/// A linear layer's weight: f32, or INT4 groups.
pub enum Weight {
    F32(Mat),
    Int4(Int4Mat),
}

impl Weight {
    /// INT4 when `int4` and the shape allows it, else f32.
    pub fn new(gpu: &Gpu, label: &str, w: &[f32], rows: usize, cols: usize, int4: bool) -> Weight {
        if int4 {
            if let Ok(q) = Int4Mat::upload(gpu, label, w, rows, cols) {
                return Weight::Int4(q);
            }
        }
        Weight::F32(Mat::from_data(gpu, label, w, cols))
    }
}

impl Recorder {
    /// out[m, n] = x[m, k] . w[n, k]^T (+ bias) for either kind of weight.
    pub fn linear_w(&mut self, x: &Mat, w: &Weight, bias: Option<&Mat>, out: &Mat) {
        let q = match w {
            Weight::F32(m) => return self.linear(x, m, bias, out),
            Weight::Int4(q) => q,
        };
        let (m, n, k) = (x.rows, q.rows, q.cols);
        assert_eq!(x.cols, k, "linear_w: x has {} columns, weight expects {k}", x.cols);
        assert!(out.cols == n && out.rows >= m, "linear_w: out is {}x{}, need {m}x{n}", out.rows, out.cols);
        let bias_buf = bias.map(|b| &b.buf).unwrap_or(&q.sm);
        let binds = [(2, &x.buf), (3, &q.q), (4, &q.sm), (5, bias_buf), (6, &out.buf)];
        if m <= MATVEC_MAX_ROWS {
            // One matrix (bits 8..), the optional bias; the kernel is specialized on these flags.
            let fl = (1 << 8) | if bias.is_some() { fused::BIAS0 } else { 0 };
            let p = params::FusedMatvecParams {
                n0: n as u32,
                k: k as u32,
                group: q.group as u32,
                flags: fl,
                ..Default::default()
            };
            self.dispatch(KernelId::MatvecInt4, fl, &p, m, &binds, ((n as u32).div_ceil(32), (m as u32).div_ceil(4)));
        } else {
            let fl = if bias.is_some() { flags::BIAS } else { 0 };
            let p = params::MatmulParams { n: n as u32, k: k as u32, group: q.group as u32, flags: fl };
            self.dispatch(KernelId::MatmulInt4, 0, &p, m, &binds, ((n as u32).div_ceil(64), (m as u32).div_ceil(64)));
        }
    }
}
