//! The kernels Moonshine adds or uses in new ways, through `nn::Recorder` on
//! the real adapter against CPU references, with fresh random inputs and
//! NaN-poisoned outputs: GroupNorm(1) with and without the fused tanh, partial
//! interleaved rotary (an odd-frequency-count width as transformers rounds
//! it, and the half-split form), and SwiGLU.

mod common;

use common::{assert_close, gpu, randn, rng};
use gerbil::nn::{Mat, Recorder, RopeArgs};
use gerbil::reference::{self, group_norm::group_norm};

fn poisoned(rows: usize, cols: usize) -> Mat {
    Mat::from_data(&gpu(), "out", &vec![f32::NAN; rows * cols], cols)
}

fn up(data: &[f32], cols: usize) -> Mat {
    Mat::from_data(&gpu(), "in", data, cols)
}

#[test]
fn group_norm_one_group_with_and_without_tanh() {
    let mut r = rng("group_norm");
    // (rows, channels): a small block, Moonshine tiny/base widths, more rows than one workgroup.
    for (rows, ch, tanh) in [(3, 5, false), (40, 288, true), (17, 416, false), (700, 64, true)] {
        // Scaled and offset, so tanh saturates somewhere and centring matters.
        let x: Vec<f32> = randn(&mut r, rows * ch).iter().map(|v| 2.5 * v + 0.7).collect();
        let (w, b) = (randn(&mut r, ch), randn(&mut r, ch));
        let out = poisoned(rows, ch);
        let stats = poisoned(1, 2);
        let mut rec = Recorder::new(&gpu());
        rec.group_norm(&up(&x, ch), &up(&w, ch), &up(&b, ch), 1e-5, tanh, &stats, &out);
        rec.submit();
        let want = group_norm(&x, &w, &b, ch, 1e-5, tanh);
        assert_close(&format!("group_norm {rows}x{ch} tanh={tanh}"), &out.read(&gpu()).unwrap(), &want, 1e-4, 1e-4);
    }
}

#[test]
fn group_norm_large_inputs_stay_finite_under_tanh() {
    let x: Vec<f32> = (0..64).map(|i| if i % 2 == 0 { 1e4 } else { -1e4 }).collect();
    let (w, b) = (vec![1.0; 8], vec![0.0; 8]);
    let out = poisoned(8, 8);
    let stats = poisoned(1, 2);
    let mut rec = Recorder::new(&gpu());
    rec.group_norm(&up(&x, 8), &up(&w, 8), &up(&b, 8), 1e-5, true, &stats, &out);
    rec.submit();
    assert_close("saturated tanh", &out.read(&gpu()).unwrap(), &group_norm(&x, &w, &b, 8, 1e-5, true), 1e-4, 1e-4);
}

#[test]
fn rope_partial_interleaved_and_half_split() {
    let mut r = rng("rope_partial");
    // (rows, heads, head_dim, frequencies, interleaved): the fixture's 16 * 0.62 (5 frequencies,
    // 10 of 16 dims), Moonshine base's 52 * 0.62 (16 frequencies), a full neox rotation.
    for (rows, heads, hd, freqs, inter) in [(7, 4, 16, 5, true), (3, 8, 52, 16, true), (5, 2, 8, 4, false)] {
        let width = heads * hd;
        let q = randn(&mut r, rows * width);
        let k = randn(&mut r, rows * width);
        let pos0 = 11;
        let inv: Vec<f32> = (0..freqs).map(|i| 1.0 / 10000f32.powf(2.0 * i as f32 / (2 * freqs - 1) as f32)).collect();
        let mut cs = Vec::new();
        let mut table = Vec::new();
        for p in 0..pos0 + rows {
            for f in &inv {
                let a = p as f32 * f;
                table.push([a.cos(), a.sin()]);
                if p >= pos0 {
                    cs.extend([a.cos(), a.sin()]);
                }
            }
        }
        let (qo, ko) = (poisoned(rows, width), poisoned(rows, width));
        let a = RopeArgs { n_heads: heads, head_dim: hd, rotary_dim: 2 * freqs, interleaved: inter };
        let mut rec = Recorder::new(&gpu());
        rec.rope(&up(&q, width), &up(&k, width), &up(&cs, 2 * freqs), a, &qo, &ko);
        rec.submit();
        let positions: Vec<usize> = (pos0..pos0 + rows).collect();
        let want_q = reference::rope(&q, heads, hd, 2 * freqs, inter, &table, &positions);
        let want_k = reference::rope(&k, heads, hd, 2 * freqs, inter, &table, &positions);
        assert_close("rope q", &qo.read(&gpu()).unwrap(), &want_q, 1e-5, 1e-5);
        assert_close("rope k", &ko.read(&gpu()).unwrap(), &want_k, 1e-5, 1e-5);
        // The pass-through dims are copied, the rotated ones changed.
        let qo = qo.read(&gpu()).unwrap();
        assert_eq!(qo[2 * freqs..hd], q[2 * freqs..hd]);
        assert!(qo[..2 * freqs] != q[..2 * freqs] || pos0 == 0);
    }
}

#[test]
fn swiglu_rows() {
    let mut r = rng("swiglu_nn");
    for (rows, width) in [(1, 13), (6, 1664), (3, 300)] {
        let g: Vec<f32> = randn(&mut r, rows * width).iter().map(|v| v * 3.0).collect();
        let u = randn(&mut r, rows * width);
        let out = poisoned(rows, width);
        let mut rec = Recorder::new(&gpu());
        rec.swiglu(&up(&g, width), &up(&u, width), &out);
        rec.submit();
        assert_close("swiglu", &out.read(&gpu()).unwrap(), &reference::swiglu(&g, &u), 1e-5, 1e-5);
    }
}
