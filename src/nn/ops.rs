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

/// A strided, batched matmul's geometry (element offsets and strides; see
/// `shaders/matmul_bcast.wgsl`).
#[derive(Debug, Clone, Copy)]
pub struct Strided {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batch: usize,
    pub x_off: usize,
    pub x_rs: usize,
    pub x_bs: usize,
    pub w_off: usize,
    pub w_ns: usize,
    pub w_ks: usize,
    pub w_bs: usize,
    pub y_off: usize,
    pub y_rs: usize,
    pub y_bs: usize,
    pub scale: f32,
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
    /// The queries (and the output rows) start at this row of `q` (and `out`): one sequence of
    /// several packed into the same buffers, its keys found through `k_off` / `v_off`.
    pub row_off: usize,
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
        if m <= 4 && self.cpu_adapter() && k % 4 == 0 {
            self.dispatch(KernelId::MatvecCols8, 0, &p, m, &binds, (ceil(n, 512), 1));
        } else if m <= 4 {
            self.dispatch(KernelId::MatvecF32, 0, &p, m, &binds, (ceil(n, 8), m as u32));
        } else if self.cpu_adapter() {
            let s = Strided {
                m,
                n,
                k,
                batch: 1,
                x_off: 0,
                x_rs: k,
                x_bs: 0,
                w_off: 0,
                w_ns: k,
                w_ks: 1,
                w_bs: 0,
                y_off: 0,
                y_rs: n,
                y_bs: 0,
                scale: 1.0,
            };
            self.matmul_strided(&x.buf, &w.buf, bias.map(|b| &b.buf), &out.buf, &s);
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

    /// `y = scale * x . w^T (+ bias)` over strided, batched views (see
    /// `shaders/matmul_bcast.wgsl`); meant for CPU adapters.
    pub fn matmul_strided(
        &mut self,
        x: &wgpu::Buffer,
        w: &wgpu::Buffer,
        bias: Option<&wgpu::Buffer>,
        y: &wgpu::Buffer,
        s: &Strided,
    ) {
        let u = |v: usize| v as u32;
        let p = params::MatmulStridedParams {
            m: u(s.m),
            n: u(s.n),
            k: u(s.k),
            flags: if bias.is_some() { flags::BIAS } else { 0 },
            x_off: u(s.x_off),
            x_rs: u(s.x_rs),
            x_bs: u(s.x_bs),
            w_off: u(s.w_off),
            w_ns: u(s.w_ns),
            w_ks: u(s.w_ks),
            w_bs: u(s.w_bs),
            y_off: u(s.y_off),
            y_rs: u(s.y_rs),
            y_bs: u(s.y_bs),
            scale: s.scale,
            pad0: 0,
        };
        let binds = [(2, x), (3, w), (4, bias.unwrap_or(w)), (5, y)];
        // The register-blocked kernels load vec4s: along k from x and from w (w contiguous
        // along k), or along n from w (w contiguous along n); the rest needs matmul_bcast.
        let x4 = [s.k, s.x_off, s.x_rs, s.x_bs, s.w_off, s.w_bs].iter().all(|v| v % 4 == 0);
        let kernel = if x4 && s.w_ks == 1 && s.w_ns.is_multiple_of(4) {
            KernelId::MatmulBlock16
        } else if x4 && s.w_ns == 1 && s.w_ks.is_multiple_of(4) && s.n.is_multiple_of(4) {
            KernelId::MatmulBlock16Kn
        } else {
            let grid = (ceil(s.n, 64), ceil(s.m, 16), s.batch as u32);
            return self.dispatch3(KernelId::MatmulBcast, &p, s.m, &binds, grid);
        };
        self.dispatch3(kernel, &p, s.m, &binds, (ceil(s.n, 64), ceil(s.m, 64), s.batch as u32));
    }

    /// In-place softmax over the rows of `x`.
    pub fn softmax_rows(&mut self, x: &Mat) {
        let p = params::EltwiseParams { width: x.cols as u32, ..Default::default() };
        self.dispatch(KernelId::SoftmaxRows, 0, &p, x.rows, &[(2, &x.buf)], (x.rows as u32, 1));
    }

    /// The scores buffer [`Recorder::attention_scratch`] wants for `heads` heads of
    /// `rows` x `rows` non-causal attention: on CPU adapters as many heads as fit
    /// in 64 MiB, elsewhere a placeholder (the fused kernel needs none).
    pub fn attention_scores(&self, heads: usize, rows: usize) -> Mat {
        if !self.cpu_adapter() {
            return Mat::new(&self.gpu, "attention scores", 1, 1);
        }
        let fit = ((64 << 20) / (rows * rows * 4).max(1)).clamp(1, heads);
        Mat::new(&self.gpu, "attention scores", fit * rows, rows)
    }

    /// Non-causal attention through `scratch` (scores of as many heads at a
    /// time as fit, [heads * rows, kv_len]): Q.K^T and P.V as strided matmuls
    /// and a row softmax. On CPU adapters this is ~10x faster than the
    /// one-workgroup-per-query kernel, which loads every key per query; on
    /// GPUs (and for causal or few-row steps) [`Recorder::attention`] is used.
    pub fn attention_scratch(&mut self, q: &Mat, k: &Mat, v: &Mat, a: AttnArgs, out: &Mat, scratch: &Mat) {
        let rows = q.rows;
        let per_head = rows * a.kv_len;
        let fit = scratch.len() / per_head.max(1);
        if !self.cpu_adapter() || a.causal_from.is_some() || rows <= 4 || fit == 0 {
            return self.attention(q, k, v, a, out);
        }
        let (hd, d) = (a.head_dim, a.n_heads * a.head_dim);
        let mut h0 = 0;
        while h0 < a.n_heads {
            let nh = fit.min(a.n_heads - h0);
            let scores = Strided {
                m: rows,
                n: a.kv_len,
                k: hd,
                batch: nh,
                x_off: a.row_off * a.q_stride + h0 * hd,
                x_rs: a.q_stride,
                x_bs: hd,
                w_off: a.k_off + h0 * hd,
                w_ns: a.kv_stride,
                w_ks: 1,
                w_bs: hd,
                y_off: 0,
                y_rs: a.kv_len,
                y_bs: per_head,
                scale: 1.0 / (hd as f32).sqrt(),
            };
            self.matmul_strided(&q.buf, &k.buf, None, &scratch.buf, &scores);
            self.softmax_rows(&Mat { buf: scratch.buf.clone(), rows: nh * rows, cols: a.kv_len });
            let pv = Strided {
                m: rows,
                n: hd,
                k: a.kv_len,
                batch: nh,
                x_off: 0,
                x_rs: a.kv_len,
                x_bs: per_head,
                w_off: a.v_off + h0 * hd,
                w_ns: 1,
                w_ks: a.kv_stride,
                w_bs: hd,
                y_off: a.row_off * d + h0 * hd,
                y_rs: d,
                y_bs: hd,
                scale: 1.0,
            };
            self.matmul_strided(&scratch.buf, &v.buf, None, &out.buf, &pv);
            h0 += nh;
        }
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
            row_off: a.row_off as u32,
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
