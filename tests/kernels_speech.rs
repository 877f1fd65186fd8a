//! The encoder-decoder kernels (LayerNorm, GELU, im2col/conv1d, strided
//! attention) through `nn::Recorder` on the real adapter, against
//! `reference::speech`, with fresh random inputs and NaN-poisoned outputs.

mod common;

use common::{assert_close, gpu, randn, rng};
use gerbil::nn::{AttnArgs, Conv1d, Mat, Recorder};
use gerbil::reference::{self, speech};

fn poisoned(rows: usize, cols: usize) -> Mat {
    Mat::from_data(&gpu(), "out", &vec![f32::NAN; rows * cols], cols)
}

fn up(data: &[f32], cols: usize) -> Mat {
    Mat::from_data(&gpu(), "in", data, cols)
}

#[test]
fn layer_norm_rows() {
    let mut r = rng("layer_norm");
    for (rows, dim) in [(1, 64), (5, 384), (3, 700), (33, 80)] {
        let mut x = randn(&mut r, rows * dim);
        // An offset mean, so a kernel that skips centring fails.
        x.iter_mut().for_each(|v| *v += 3.0);
        let (w, b) = (randn(&mut r, dim), randn(&mut r, dim));
        let out = poisoned(rows, dim);
        let mut rec = Recorder::new(&gpu());
        rec.layer_norm(&up(&x, dim), &up(&w, dim), &up(&b, dim), 1e-5, &out);
        rec.submit();
        let want = speech::layer_norm(&x, &w, &b, dim, 1e-5);
        assert_close("layer_norm", &out.read(&gpu()).unwrap(), &want, 2e-5, 2e-5);
    }
}

#[test]
fn gelu_and_add() {
    let mut r = rng("gelu");
    for (rows, width) in [(1, 10), (7, 300), (2, 1536)] {
        let x: Vec<f32> = randn(&mut r, rows * width).iter().map(|v| v * 4.0).collect();
        let y = randn(&mut r, rows * width + width); // more rows than x: a position table
        let (g, s) = (poisoned(rows, width), poisoned(rows, width));
        let mut rec = Recorder::new(&gpu());
        let xm = up(&x, width);
        rec.gelu(&xm, &g);
        rec.add(&xm, &up(&y, width), &s);
        rec.submit();
        assert_close("gelu", &g.read(&gpu()).unwrap(), &speech::gelu(&x), 1e-6, 1e-5);
        let sum: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
        assert_close("add", &s.read(&gpu()).unwrap(), &sum, 0.0, 0.0);
    }
}

#[test]
fn conv1d_via_im2col() {
    let mut r = rng("conv1d");
    // (t_in, c_in, c_out, kernel, stride, pad): Whisper's two convs, Moonshine-like strides.
    for (t_in, c_in, c_out, kernel, stride, pad) in
        [(50, 80, 64, 3, 1, 1), (50, 64, 64, 3, 2, 1), (301, 1, 24, 127, 64, 0), (41, 24, 40, 7, 3, 0)]
    {
        let x = randn(&mut r, t_in * c_in);
        let w = randn(&mut r, c_out * c_in * kernel);
        let b = randn(&mut r, c_out);
        let conv = Conv1d { c_in, kernel, stride, pad };
        let t_out = conv.out_len(t_in);
        let out = poisoned(t_out, c_out);
        let scratch = poisoned(t_out, c_in * kernel);
        let mut rec = Recorder::new(&gpu());
        rec.conv1d(&up(&x, c_in), conv, &up(&w, c_in * kernel), Some(&up(&b, c_out)), &scratch, &out);
        rec.submit();
        let want = speech::conv1d(&x, c_in, &w, Some(&b), kernel, stride, pad);
        assert_eq!(want.len(), t_out * c_out);
        assert_close("conv1d", &out.read(&gpu()).unwrap(), &want, 1e-4, 1e-4);
    }
}

#[test]
fn linear_matvec_and_matmul() {
    let mut r = rng("linear");
    for (m, n, k) in [(1, 70, 64), (3, 33, 100), (37, 65, 48)] {
        let (x, w, b) = (randn(&mut r, m * k), randn(&mut r, n * k), randn(&mut r, n));
        let out = poisoned(m, n);
        let mut rec = Recorder::new(&gpu());
        rec.linear(&up(&x, k), &up(&w, k), Some(&up(&b, n)), &out);
        rec.submit();
        assert_close("linear", &out.read(&gpu()).unwrap(), &reference::matmul(&x, &w, Some(&b), k), 1e-4, 1e-4);
    }
}

#[test]
fn attention_strided_causal_and_cross() {
    let mut r = rng("attention_full");
    // (n_q, kv_len, heads, hd, causal_from): encoder self-attention over fused QKV,
    // a decoder prefill and a single decode step over a cache, cross-attention
    // with more than 256 keys (several online-softmax blocks).
    for (n_q, kv_len, heads, hd, causal) in
        [(20, 20, 4, 16, None), (5, 5, 2, 64, Some(0)), (1, 9, 6, 64, Some(8)), (3, 300, 3, 32, None)]
    {
        let d = heads * hd;
        // Queries in a fused [n_q, 3D] buffer; keys/values in a fused [kv_len, 2D] one.
        let q = randn(&mut r, n_q * 3 * d);
        let kv = randn(&mut r, kv_len * 2 * d);
        let out = poisoned(n_q, d);
        let a = AttnArgs {
            n_heads: heads,
            head_dim: hd,
            kv_len,
            q_stride: 3 * d,
            kv_stride: 2 * d,
            k_off: 0,
            v_off: d,
            causal_from: causal,
        };
        let (qm, kvm) = (up(&q, 3 * d), up(&kv, 2 * d));
        let mut rec = Recorder::new(&gpu());
        rec.attention(&qm, &kvm, &kvm, a, &out);
        rec.submit();
        let want = speech::attention(&q, &kv, &kv, n_q, heads, hd, kv_len, 3 * d, 2 * d, 0, d, causal);
        assert_close("attention_full", &out.read(&gpu()).unwrap(), &want, 2e-5, 1e-4);
    }
}

#[test]
fn copy_rows_into_a_cache() {
    let mut r = rng("copy_rows");
    let src = randn(&mut r, 3 * 8);
    let cache = poisoned(10, 8);
    let mut rec = Recorder::new(&gpu());
    rec.copy_rows(&up(&src, 8), &cache, 4);
    rec.submit();
    let got = cache.read(&gpu()).unwrap();
    assert_eq!(&got[32..56], &src[..]);
}
