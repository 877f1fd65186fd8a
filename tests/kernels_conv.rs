//! `conv1d.wgsl` and `conv_transpose1d.wgsl` against `reference::conv` on the real adapter,
//! with fresh random non-zero inputs, shapes off the tile sizes, every epilogue flag, and
//! outputs poisoned with NaN (or holding random values, for ACCUMULATE) before each run.

mod common;

use common::{assert_close, gpu, randn, rng};
use gerbil::nn::{Conv1dEpilogue, GpuConv1d, GpuConvTranspose1d, Recorder};
use gerbil::reference::conv::{self, Conv1dShape, ConvTranspose1dShape};
use rand::Rng;

fn nan_buffer(len: usize) -> wgpu::Buffer {
    gpu().storage_from("y", &vec![f32::NAN; len])
}

#[test]
fn conv1d_matches_reference() {
    let g = gpu();
    let mut r = rng("conv1d");
    // (c_in, c_out, kernel, dilation, padding, groups, t_in)
    let shapes = [
        (3, 5, 3, 1, 1, 1, 7),
        (16, 16, 7, 3, 9, 1, 70),
        (12, 8, 5, 2, 4, 1, 65),
        (6, 6, 3, 3, 3, 6, 33),   // depthwise (DDSConv)
        (8, 12, 3, 1, 0, 4, 20),  // grouped, valid padding
        (32, 1, 7, 1, 3, 1, 129), // conv_post
        (5, 9, 1, 1, 0, 1, 1),
    ];
    for (i, &(c_in, c_out, kernel, dilation, padding, groups, t_in)) in shapes.iter().enumerate() {
        let s = Conv1dShape { c_in, c_out, kernel, dilation, padding, groups };
        let t_out = s.t_out(t_in);
        let x = randn(&mut r, c_in * t_in);
        let w = randn(&mut r, s.weight_len());
        let b = randn(&mut r, c_out);
        let res = randn(&mut r, c_out * t_out);
        let prior = randn(&mut r, c_out * t_out);
        let ep = Conv1dEpilogue {
            pre_slope: (i % 2 == 0).then(|| r.random_range(0.01..0.3)),
            residual: i % 3 != 1,
            tanh: i % 3 == 2,
            out_scale: if i % 2 == 1 { 1.0 / 3.0 } else { 1.0 },
            accumulate: i % 2 == 1,
        };
        let bias = (i != 5).then_some(&b[..]);
        let layer = GpuConv1d::new(&g, "conv", s, &w, bias, ep);
        let xb = g.storage_from("x", &x);
        let rb = g.storage_from("res", &res);
        let yb = if ep.accumulate { g.storage_from("y", &prior) } else { nan_buffer(c_out * t_out) };
        let mut rec = Recorder::new(&g);
        layer.record(&mut rec, t_in, &xb, ep.residual.then_some(&rb), &yb);
        rec.submit();
        let got = g.read_f32(&yb, c_out * t_out).unwrap();
        let mut want = conv::conv1d(&x, t_in, &w, bias, s, ep.pre_slope);
        for (j, v) in want.iter_mut().enumerate() {
            if ep.residual {
                *v += res[j];
            }
            if ep.tanh {
                *v = v.tanh();
            }
            *v *= ep.out_scale;
            if ep.accumulate {
                *v += prior[j];
            }
        }
        let tol = 3e-6 * ((c_in / groups * kernel) as f32).sqrt();
        assert_close(&format!("conv1d {s:?} t_in={t_in} {ep:?}"), &got, &want, tol, 1e-5);
    }
}

#[test]
fn conv_transpose1d_matches_reference() {
    let g = gpu();
    let mut r = rng("conv_transpose1d");
    // (c_in, c_out, kernel, stride, padding, t_in): HiFi-GAN's (2u, u, u/2) and odd ones.
    let shapes =
        [(16, 8, 16, 8, 4, 9), (8, 4, 8, 4, 2, 31), (5, 7, 3, 2, 0, 13), (4, 3, 4, 1, 1, 1), (6, 6, 5, 3, 1, 66)];
    for (i, &(c_in, c_out, kernel, stride, padding, t_in)) in shapes.iter().enumerate() {
        let s = ConvTranspose1dShape { c_in, c_out, kernel, stride, padding };
        let t_out = s.t_out(t_in);
        let x = randn(&mut r, c_in * t_in);
        let w = randn(&mut r, c_in * c_out * kernel);
        let b = randn(&mut r, c_out);
        let slope = (i % 2 == 0).then_some(0.1);
        let bias = (i != 3).then_some(&b[..]);
        let layer = GpuConvTranspose1d::new(&g, "convT", s, &w, bias, slope);
        let xb = g.storage_from("x", &x);
        let yb = nan_buffer(c_out * t_out);
        let mut rec = Recorder::new(&g);
        layer.record(&mut rec, t_in, &xb, &yb);
        rec.submit();
        let got = g.read_f32(&yb, c_out * t_out).unwrap();
        let want = conv::conv_transpose1d(&x, t_in, &w, bias, s, slope);
        assert_close(&format!("conv_transpose1d {s:?} t_in={t_in}"), &got, &want, 1e-5, 1e-5);
    }
}
