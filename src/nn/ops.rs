//! Typed ops over [`Mat`]s. Each records one or two dispatches; rows of the
//! input are the step's token count.

use super::recorder::{Mat, Recorder};
use crate::gpu::params::{self, attn_full, flags};
use crate::gpu::KernelId;

fn ceil(a: usize, b: usize) -> u32 {
    a.div_ceil(b) as u32
}

/// A 1-D convolution's geometry (torch `nn.Conv1d`, weight [c_out, c_in, kernel]).
#[derive(Debug, Clone, Copy)]
pub struct Conv1d {
    pub c_in: usize,
    pub kernel: usize,
    pub stride: usize,
    pub pad: usize,
}

impl Conv1d {
    pub fn out_len(&self, t_in: usize) -> usize {
        (t_in + 2 * self.pad).saturating_sub(self.kernel) / self.stride + 1
    }
}

/// Where queries, keys and values sit in their (possibly fused) row buffers.
#[derive(Debug, Clone, Copy)]
pub struct AttnArgs {
    pub n_heads: usize,
    pub head_dim: usize,
    pub kv_len: usize,
    pub q_stride: usize,
    pub kv_stride: usize,
    pub k_off: usize,
    pub v_off: usize,
    /// Some(pos0): causal, query row r sees keys < pos0 + r + 1.
    pub causal_from: Option<usize>,
}

impl Recorder {
    /// `out = x . w^T (+ bias)`, w [n, k]. Few rows use the K-parallel matvec kernel.
    pub fn linear(&mut self, x: &Mat, w: &Mat, bias: Option<&Mat>, out: &Mat) {
        let (m, n, k) = (x.rows, w.rows, w.cols);
        assert_eq!(x.cols, k, "linear: x has {} columns, weight expects {k}", x.cols);
        assert!(out.cols == n && out.rows >= m, "linear: out is {}x{}, need {m}x{n}", out.rows, out.cols);
        let p = params::MatmulParams {
            n: n as u32,
            k: k as u32,
            group: 0,
            flags: if bias.is_some() { flags::BIAS } else { 0 },
        };
        let bias_buf = bias.map(|b| &b.buf).unwrap_or(&w.buf);
        let binds = [(2, &x.buf), (3, &w.buf), (4, bias_buf), (5, &out.buf)];
        if m <= 4 {
            self.dispatch(KernelId::MatvecF32, 0, &p, m, &binds, (ceil(n, 8), m as u32));
        } else {
            self.dispatch(KernelId::MatmulF32, 0, &p, m, &binds, (ceil(n, 64), ceil(m, 32)));
        }
    }

    /// torch LayerNorm over rows of `x`.
    pub fn layer_norm(&mut self, x: &Mat, w: &Mat, b: &Mat, eps: f32, out: &Mat) {
        let p = params::LayerNormParams { dim: x.cols as u32, eps, ..Default::default() };
        self.dispatch(
            KernelId::LayerNorm,
            0,
            &p,
            x.rows,
            &[(2, &x.buf), (3, &w.buf), (4, &b.buf), (5, &out.buf)],
            (x.rows as u32, 1),
        );
    }

    /// `out = gelu(x)` (erf form).
    pub fn gelu(&mut self, x: &Mat, out: &Mat) {
        let p = params::EltwiseParams { width: x.cols as u32, ..Default::default() };
        self.dispatch(KernelId::Gelu, 0, &p, x.rows, &[(2, &x.buf), (4, &out.buf)], (ceil(x.cols, 256), x.rows as u32));
    }

    /// `out = a + b` over a's rows (b may hold more rows, e.g. a position table).
    pub fn add(&mut self, a: &Mat, b: &Mat, out: &Mat) {
        assert_eq!(a.cols, b.cols, "add: widths differ");
        let p = params::EltwiseParams { width: a.cols as u32, ..Default::default() };
        self.dispatch(
            KernelId::Add,
            0,
            &p,
            a.rows,
            &[(2, &a.buf), (3, &b.buf), (4, &out.buf)],
            (ceil(a.cols, 256), a.rows as u32),
        );
    }

    /// Unfolds time-major `x` [t_in, c_in] into `cols` [t_out, c_in * kernel].
    pub fn im2col(&mut self, x: &Mat, conv: Conv1d, cols: &Mat) {
        let t_out = conv.out_len(x.rows);
        assert_eq!(x.cols, conv.c_in, "im2col: channels");
        assert!(cols.cols == conv.c_in * conv.kernel && cols.rows >= t_out, "im2col: output shape");
        let p = params::Im2colParams {
            c_in: conv.c_in as u32,
            t_in: x.rows as u32,
            kernel: conv.kernel as u32,
            stride: conv.stride as u32,
            pad: conv.pad as u32,
            t_out: t_out as u32,
            ..Default::default()
        };
        self.dispatch(
            KernelId::Im2col,
            0,
            &p,
            t_out,
            &[(2, &x.buf), (3, &cols.buf)],
            (ceil(cols.cols, 256), t_out as u32),
        );
    }

    /// conv1d over time-major `x` [t_in, c_in] with weight [c_out, c_in * kernel]
    /// (+ bias) into `out` [t_out, c_out], through `scratch` [>= t_out, c_in * kernel].
    pub fn conv1d(&mut self, x: &Mat, conv: Conv1d, w: &Mat, bias: Option<&Mat>, scratch: &Mat, out: &Mat) {
        let t_out = conv.out_len(x.rows);
        let cols = Mat { buf: scratch.buf.clone(), rows: t_out, cols: conv.c_in * conv.kernel };
        self.im2col(x, conv, &cols);
        self.linear(&cols, w, bias, &out.with_rows(t_out));
    }

    /// Multi-head attention of `q`'s rows (the step's queries) over `kv_len`
    /// keys of `k` / `v`, into `out` [rows, n_heads * head_dim].
    pub fn attention(&mut self, q: &Mat, k: &Mat, v: &Mat, a: AttnArgs, out: &Mat) {
        assert!(a.head_dim <= 256, "attention: head_dim {} > 256", a.head_dim);
        let p = params::AttentionFullParams {
            n_heads: a.n_heads as u32,
            head_dim: a.head_dim as u32,
            kv_len: a.kv_len as u32,
            q_stride: a.q_stride as u32,
            kv_stride: a.kv_stride as u32,
            k_off: a.k_off as u32,
            v_off: a.v_off as u32,
            causal_off: a.causal_from.unwrap_or(0) as u32,
            scale: 1.0 / (a.head_dim as f32).sqrt(),
            flags: if a.causal_from.is_some() { attn_full::CAUSAL } else { 0 },
            ..Default::default()
        };
        self.dispatch(
            KernelId::AttentionFull,
            0,
            &p,
            q.rows,
            &[(2, &q.buf), (3, &k.buf), (4, &v.buf), (5, &out.buf)],
            (a.n_heads as u32, q.rows as u32),
        );
    }

    /// Copies `src`'s rows into `dst` starting at row `dst_row` (same width).
    pub fn copy_rows(&mut self, src: &Mat, dst: &Mat, dst_row: usize) {
        assert_eq!(src.cols, dst.cols, "copy_rows: widths differ");
        assert!(dst_row + src.rows <= dst.rows, "copy_rows: past the destination");
        let row_bytes = (src.cols * 4) as u64;
        self.copy(&src.buf, 0, &dst.buf, dst_row as u64 * row_bytes, src.rows as u64 * row_bytes);
    }
}
