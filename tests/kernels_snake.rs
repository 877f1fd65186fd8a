//! `snake.wgsl` against `reference::conv::snake` on the real adapter: fresh random non-zero
//! inputs and alphas (both signs, x up to ±4 so sin wraps), lengths off the 256 tile, outputs
//! poisoned with NaN first so every element must be written.

mod common;

use common::{assert_close, gpu, randn, rng};
use gerbil::nn::{GpuSnake, Recorder};
use gerbil::reference::conv;

#[test]
fn snake_matches_reference() {
    let g = gpu();
    let mut r = rng("snake");
    for &(c, t) in &[(1, 1), (3, 255), (16, 257), (32, 70), (8, 1030)] {
        let x: Vec<f32> = randn(&mut r, c * t).iter().map(|v| v * 4.0).collect();
        let alpha = randn(&mut r, c);
        let layer = GpuSnake::new(&g, "snake", &alpha);
        let xb = g.storage_from("x", &x);
        let yb = g.storage_from("y", &vec![f32::NAN; c * t]);
        let mut rec = Recorder::new(&g);
        layer.record(&mut rec, t, &xb, &yb);
        rec.submit();
        let got = g.read_f32(&yb, c * t).unwrap();
        let want = conv::snake(&x, t, &alpha);
        assert_close(&format!("snake c={c} t={t}"), &got, &want, 2e-5, 1e-5);
    }
}
