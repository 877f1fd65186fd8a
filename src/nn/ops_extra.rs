//! Ops Moonshine adds to the encoder-decoder set: GroupNorm(1) (with the conv
//! stem's tanh fused), rotary embedding (the shared `rope.wgsl`, partial and
//! interleaved) and SwiGLU (`silu(gate) * up`, the shared eltwise kernel).
//! Each is tested against `reference` in tests/kernels_moonshine.rs.

use super::recorder::{Mat, Recorder};
use crate::gpu::params::{self, group_norm};
use crate::gpu::KernelId;

/// Rotary embedding geometry for [`Recorder::rope`].
#[derive(Debug, Clone, Copy)]
pub struct RopeArgs {
    pub n_heads: usize,
    pub head_dim: usize,
    /// Leading dims of each head that rotate; the rest pass through.
    pub rotary_dim: usize,
    /// Pairs (2i, 2i + 1) (GPT-J, Moonshine) rather than (i, i + rotary_dim / 2).
    pub interleaved: bool,
}

impl Recorder {
    /// torch `GroupNorm(1, C)` over the whole time-major block `x` [T, C]
    /// (optionally of tanh(x)), affine per channel; `stats` holds >= 2 floats.
    #[allow(clippy::too_many_arguments)]
    pub fn group_norm(&mut self, x: &Mat, w: &Mat, b: &Mat, eps: f32, tanh: bool, stats: &Mat, out: &Mat) {
        assert!(stats.buf.size() >= 8, "group_norm: stats needs two floats");
        assert!(out.cols == x.cols && out.rows >= x.rows, "group_norm: output shape");
        let p = params::GroupNormParams {
            channels: x.cols as u32,
            eps,
            flags: if tanh { group_norm::TANH } else { 0 },
            ..Default::default()
        };
        // Bind exactly what each entry point uses (pipeline layouts come from the shader).
        self.dispatch(KernelId::GroupNormStats, 0, &p, x.rows, &[(2, &x.buf), (6, &stats.buf)], (1, 1));
        let binds = [(2, &x.buf), (3, &w.buf), (4, &b.buf), (5, &out.buf), (6, &stats.buf)];
        self.dispatch(KernelId::GroupNormApply, 0, &p, x.rows, &binds, (x.cols.div_ceil(256) as u32, x.rows as u32));
    }

    /// Rotates the rows of `q` and `k` (both [rows, n_heads * head_dim]) into
    /// `q_out` / `k_out`; row r uses `cos_sin` row r ((cos, sin) pairs of
    /// rotary_dim / 2 frequencies), so the caller uploads the step's positions.
    pub fn rope(&mut self, q: &Mat, k: &Mat, cos_sin: &Mat, a: RopeArgs, q_out: &Mat, k_out: &Mat) {
        let width = a.n_heads * a.head_dim;
        assert!(q.cols == width && k.cols == width && q.rows == k.rows, "rope: q/k shapes");
        assert!(a.rotary_dim <= a.head_dim && a.rotary_dim.is_multiple_of(2), "rope: rotary_dim {}", a.rotary_dim);
        assert!(
            cos_sin.cols == a.rotary_dim && cos_sin.rows >= q.rows,
            "rope: cos_sin is {}x{}",
            cos_sin.rows,
            cos_sin.cols
        );
        let p = params::RopeParams {
            n_q_heads: a.n_heads as u32,
            n_kv_heads: a.n_heads as u32,
            head_dim: a.head_dim as u32,
            rotary_dim: a.rotary_dim as u32,
            interleaved: a.interleaved as u32,
            max_pos: cos_sin.rows as u32,
            ..Default::default()
        };
        let binds = [(2, &q.buf), (3, &k.buf), (4, &cos_sin.buf), (5, &q_out.buf), (6, &k_out.buf)];
        self.dispatch(KernelId::Rope, 0, &p, q.rows, &binds, ((2 * a.n_heads) as u32, q.rows as u32));
    }

    /// `out = silu(gate) * up` elementwise over gate's rows.
    pub fn swiglu(&mut self, gate: &Mat, up: &Mat, out: &Mat) {
        assert!(gate.cols == up.cols && gate.cols == out.cols, "swiglu: widths differ");
        let p = params::EltwiseParams { width: gate.cols as u32, ..Default::default() };
        self.dispatch(
            KernelId::SwiGlu,
            0,
            &p,
            gate.rows,
            &[(2, &gate.buf), (3, &up.buf), (4, &out.buf)],
            (gate.cols.div_ceil(256) as u32, gate.rows as u32),
        );
    }
}
