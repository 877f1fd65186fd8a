//! INT4 matvec throughput: one decode-shaped matmul repeated inside one pass.

use crate::gpu::Gpu;
use crate::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows};
use crate::weights::int4::Int4Matrix;
use std::sync::Arc;

pub struct MatvecResult {
    pub k: usize,
    pub n: usize,
    pub bytes: u64,
    pub secs: f64,
    /// Largest |GPU - CPU reference| over sampled columns, relative to the largest |y|.
    pub rel_err: f32,
}

impl MatvecResult {
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / self.secs / 1e9
    }
}

/// Times y = W x for W [n, k] in INT4 groups of `group`.
pub fn int4_matvec(gpu: &Arc<Gpu>, k: usize, n: usize, group: usize, reps: usize) -> MatvecResult {
    // Weights with arbitrary nibbles: content does not change the traffic.
    let q = Int4Matrix {
        rows: n,
        cols: k,
        group,
        q: (0..n * k / 8).map(|i| (i as u32).wrapping_mul(2654435761)).collect(),
        sm: vec![[0.01, -0.05]; n * k / group],
    };
    let mut g = Graph::default();
    let xs: Vec<f32> = (0..k).map(|i| ((i * 7919 % 1000) as f32 / 500.0 - 1.0) + 0.01).collect();
    let x = g.bound("x", DeviceTensor::f32(gpu, "x", &xs, k).expect("x fits"));
    let w = g.bound("w", DeviceTensor::int4(gpu, "w", &q).expect("w fits"));
    let y = g.activation("y", n, Rows::Tokens);
    g.push(Op::MatMul { x, w, bias: None, out: y, last_row: false });
    g.outputs.push(y);
    let plan = Plan::new(gpu, g, PlanOptions { max_rows: 1, ..Default::default() }).expect("matvec plan");
    plan.set_step(1, 0);
    let mut submit = || {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for _ in 0..reps {
                plan.encode(&mut pass, 1);
            }
        }
        gpu.queue.submit([enc.finish()]);
    };
    // 50 ms of the same work first: building the weights keeps the GPU idle for up to seconds,
    // and the timed runs (~1-2 ms each) must not start at idle clocks.
    let warm = std::time::Instant::now();
    while warm.elapsed() < std::time::Duration::from_millis(50) {
        submit();
        super::sync(gpu);
    }
    let secs = super::time_gpu(gpu, 5, &mut submit) / reps as f64;
    // Checked against the CPU on the first and last columns, so a wrong kernel cannot post a number.
    let got = plan.read_f32(y, n).expect("matvec readback");
    let cols: Vec<usize> = (0..n.min(64)).chain(n.saturating_sub(64)..n).collect();
    let (mut err, mut scale) = (0f32, 0f32);
    for &c in &cols {
        let want: f32 = (0..k).map(|i| q.value(c, i) * xs[i]).sum();
        err = err.max((got[c] - want).abs());
        scale = scale.max(want.abs());
    }
    MatvecResult { k, n, bytes: q.bytes() as u64 + (k * 4 + n * 4) as u64, secs, rel_err: err / scale.max(1e-6) }
}
