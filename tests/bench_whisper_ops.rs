//! Timing of the encoder's ops at Whisper tiny shapes (T = 1500, D = 384, 6
//! heads, FFN 1536) on the adapter, one op kind per submission. Not a test of
//! speed (nothing is asserted): run by hand to see where an encoder window goes,
//! `cargo test --release --test bench_whisper_ops -- --ignored --nocapture`.

mod common;

use std::time::Instant;

use common::{gpu, randn, rng};
use gerbil::gpu::params::MatmulParams;
use gerbil::gpu::KernelId;
use gerbil::nn::{AttnArgs, Conv1d, Mat, Recorder};

fn timed(what: &str, reps: usize, mut f: impl FnMut(&mut Recorder)) {
    let g = gpu();
    let mut rec = Recorder::new(&g);
    f(&mut rec);
    rec.submit();
    let _ = g.device.poll(wgpu::PollType::wait_indefinitely());
    let t = Instant::now();
    for _ in 0..reps {
        f(&mut rec);
    }
    rec.submit();
    let _ = g.device.poll(wgpu::PollType::wait_indefinitely());
    eprintln!("{what:<40} {:>9.1} ms", t.elapsed().as_secs_f64() * 1e3 / reps as f64);
}

#[test]
#[ignore = "a timing harness, run by hand"]
fn encoder_op_timings() {
    let g = gpu();
    let mut r = rng("bench");
    let (t, d, ff, heads) = (1500usize, 384usize, 1536usize, 6usize);
    let m =
        |rows: usize, cols: usize, r: &mut rand::rngs::StdRng| Mat::from_data(&g, "x", &randn(r, rows * cols), cols);
    let x = m(t, d, &mut r);
    let xf = m(t, ff, &mut r);
    let wqkv = m(3 * d, d, &mut r);
    let w1 = m(ff, d, &mut r);
    let w2 = m(d, ff, &mut r);
    let qkv = m(t, 3 * d, &mut r);
    let out_qkv = Mat::new(&g, "o", t, 3 * d);
    let out_d = Mat::new(&g, "o", t, d);
    let out_ff = Mat::new(&g, "o", t, ff);
    let lnw = m(1, d, &mut r);
    // The tiled shared-memory kernel that GPUs use, for comparison with what `linear` picks here.
    let tiled = |rec: &mut Recorder, x: &Mat, w: &Mat, out: &Mat| {
        let p = MatmulParams { n: w.rows as u32, k: w.cols as u32, group: 0, flags: 0 };
        let binds = [(2, &x.buf), (3, &w.buf), (4, &w.buf), (5, &out.buf)];
        rec.dispatch(
            KernelId::MatmulF32,
            0,
            &p,
            x.rows,
            &binds,
            (w.rows.div_ceil(64) as u32, x.rows.div_ceil(32) as u32),
        );
    };
    timed("matmul 1500x384 . 1152x384 (tiled)", 1, |rec| tiled(rec, &x, &wqkv, &out_qkv));
    timed("matmul 1500x384 . 1152x384 (linear)", 1, |rec| rec.linear(&x, &wqkv, None, &out_qkv));
    timed("matmul 1500x384 . 1536x384 (fc1)", 2, |rec| rec.linear(&x, &w1, None, &out_ff));
    timed("matmul 1500x1536 . 384x1536 (fc2)", 2, |rec| rec.linear(&xf, &w2, None, &out_d));
    let a = AttnArgs {
        n_heads: heads,
        head_dim: d / heads,
        kv_len: t,
        q_stride: 3 * d,
        kv_stride: 3 * d,
        k_off: d,
        v_off: 2 * d,
        causal_from: None,
        row_off: 0,
    };
    timed("attention 6 x 1500 x 1500 x 64", 1, |rec| rec.attention(&qkv, &qkv, &qkv, a, &out_d));
    let scores = Mat::new(&g, "scores", 6 * t, t);
    timed("attention via scratch (encoder)", 1, |rec| rec.attention_scratch(&qkv, &qkv, &qkv, a, &out_d, &scores));
    timed("gelu 1500x1536", 4, |rec| rec.gelu(&xf, &out_ff));
    timed("layer_norm 1500x384", 4, |rec| rec.layer_norm(&x, &lnw, &lnw, 1e-5, &out_d));
    timed("add 1500x384", 4, |rec| rec.add(&x, &x, &out_d));
    let mel = m(3000, 80, &mut r);
    let wc1 = m(d, 240, &mut r);
    let scratch = Mat::new(&g, "s", 3000, 3 * d);
    let c1 = Mat::new(&g, "c1", 3000, d);
    let conv1 = Conv1d { c_in: 80, kernel: 3, stride: 1, pad: 1 };
    timed("conv1 80->384 x 3000", 2, |rec| rec.conv1d(&mel, conv1, &wc1, None, &scratch, &c1));
    // One decoder step's big matvec: the tied logits head.
    let head = m(51864, d, &mut r);
    let x1 = m(1, d, &mut r);
    let logits = Mat::new(&g, "l", 1, 51864);
    timed("matvec 1x384 . 51864x384 (logits)", 4, |rec| rec.linear(&x1, &head, None, &logits));
    let wq = m(d, d, &mut r);
    let q1 = Mat::new(&g, "q", 1, d);
    timed("matvec 1x384 . 384x384", 20, |rec| rec.linear(&x1, &wq, None, &q1));
    let kv = m(t, 2 * d, &mut r);
    let qd = m(1, d, &mut r);
    let cross = AttnArgs { q_stride: d, kv_stride: 2 * d, k_off: 0, v_off: d, ..a };
    timed("cross attention 1 x 1500 (decode)", 20, |rec| rec.attention(&qd, &kv, &kv, cross, &q1));
}
