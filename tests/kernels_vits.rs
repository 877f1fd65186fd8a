//! The Piper (VITS) kernels against plain-Rust references on the real adapter, with fresh
//! random non-zero inputs, lengths off every tile and outputs poisoned with NaN first:
//! `layernorm_channels.wgsl` (plain, + GELU, + accumulate), `rel_attention.wgsl`,
//! `spline_inverse.wgsl` and `expand_prior.wgsl`.

mod common;

use common::{assert_close, gpu, randn, rng};
use gerbil::models::piper::duration::spline_inverse;
use gerbil::models::piper::gpu_ops::{record_expand_prior, GpuChannelNorm, GpuRelAttention, GpuSpline};
use gerbil::models::piper::layers::LayerNorm;
use gerbil::nn::Recorder;
use gerbil::reference::conv::{gelu, layer_norm_channels};
use gerbil::reference::vits::rel_attention;

#[test]
fn channel_layernorm_matches_reference() {
    let g = gpu();
    let mut r = rng("layernorm_channels");
    for &(c, t) in &[(1, 1), (5, 63), (192, 65), (33, 200)] {
        // An offset and a spread per channel, so the mean and variance matter.
        let x: Vec<f32> =
            randn(&mut r, c * t).iter().enumerate().map(|(i, v)| v * 3.0 + (i / t) as f32 * 0.1).collect();
        let ln = LayerNorm { gamma: randn(&mut r, c), beta: randn(&mut r, c) };
        let prior = randn(&mut r, c * t);
        for (gelu_on, acc) in [(false, false), (true, false), (true, true)] {
            let mut want = x.clone();
            layer_norm_channels(&mut want, c, &ln.gamma, &ln.beta, 1e-5);
            if gelu_on {
                want.iter_mut().for_each(|v| *v = gelu(*v));
            }
            if acc {
                want.iter_mut().zip(&prior).for_each(|(v, p)| *v += p);
            }
            let init = if acc { prior.clone() } else { vec![f32::NAN; c * t] };
            let (xb, yb) = (g.storage_from("x", &x), g.storage_from("y", &init));
            let mut rec = Recorder::new(&g);
            GpuChannelNorm::new(&g, &ln, gelu_on, acc).record(&mut rec, t, &xb, &yb);
            rec.submit();
            let got = g.read_f32(&yb, c * t).unwrap();
            assert_close(&format!("layernorm c={c} t={t} gelu={gelu_on} acc={acc}"), &got, &want, 2e-5, 2e-5);
        }
    }
}

#[test]
fn relative_attention_matches_reference() {
    let g = gpu();
    let mut r = rng("rel_attention");
    // (heads, head_dim, window, t): t below, at and above the window and the 64-wide workgroup.
    for &(heads, d, w, t) in &[(1, 8, 4, 1), (2, 24, 4, 7), (2, 96, 4, 70), (3, 16, 2, 131)] {
        let ch = heads * d;
        let qkv: Vec<f32> = randn(&mut r, 3 * ch * t).iter().map(|v| v * 2.0).collect();
        let (rel_k, rel_v) = (randn(&mut r, (2 * w + 1) * d), randn(&mut r, (2 * w + 1) * d));
        let (q, rest) = qkv.split_at(ch * t);
        let (k, v) = rest.split_at(ch * t);
        let want = rel_attention(q, k, v, t, d, w, &rel_k, &rel_v);
        let attn = GpuRelAttention::new(&g, ch, d, w, &rel_k, &rel_v);
        let qkv_b = g.storage_from("qkv", &qkv);
        let scores = g.storage("scores", (heads * t * t * 4) as u64);
        let out = g.storage_from("out", &vec![f32::NAN; ch * t]);
        let mut rec = Recorder::new(&g);
        attn.record(&mut rec, t, &qkv_b, &scores, &out);
        rec.submit();
        let got = g.read_f32(&out, ch * t).unwrap();
        assert_close(&format!("rel attention heads={heads} d={d} w={w} t={t}"), &got, &want, 3e-5, 3e-5);
    }
}

#[test]
fn spline_inverse_matches_reference() {
    let g = gpu();
    let mut r = rng("spline_inverse");
    for &(bins, filter, t) in &[(10, 192, 77), (2, 4, 5), (32, 64, 130)] {
        let np = 3 * bins - 1;
        // Parameters of both signs and a spread of sizes; z inside the tails and beyond them.
        let h: Vec<f32> = randn(&mut r, np * t).iter().map(|v| v * 6.0).collect();
        let z: Vec<f32> =
            randn(&mut r, t).iter().enumerate().map(|(i, v)| v * if i % 9 == 0 { 9.0 } else { 4.5 }).collect();
        let sf = (filter as f32).sqrt();
        let want: Vec<f32> = (0..t)
            .map(|j| {
                let col: Vec<f32> = (0..np).map(|k| h[k * t + j]).collect();
                let w: Vec<f32> = col[..bins].iter().map(|v| v / sf).collect();
                let hh: Vec<f32> = col[bins..2 * bins].iter().map(|v| v / sf).collect();
                spline_inverse(z[j], &w, &hh, &col[2 * bins..])
            })
            .collect();
        assert!(want.iter().zip(&z).filter(|(a, b)| (*a - *b).abs() > 1e-3).count() > t / 2, "the spline moves z");
        let (hb, zb) = (g.storage_from("h", &h), g.storage_from("z", &z));
        let mut rec = Recorder::new(&g);
        GpuSpline::new(&g, bins, filter).record(&mut rec, t, &hb, &zb);
        rec.submit();
        let got = g.read_f32(&zb, t).unwrap();
        assert_close(&format!("spline bins={bins} t={t}"), &got, &want, 2e-5, 2e-5);
    }
}

#[test]
fn prior_expansion_matches_reference() {
    let g = gpu();
    let mut r = rng("expand_prior");
    let (c, t, half) = (6, 9, 3);
    let stats = randn(&mut r, 2 * c * t);
    let durations = [0usize, 3, 1, 0, 7, 2, 0, 1, 300];
    let frames: usize = durations.iter().sum();
    let idx: Vec<u32> = durations.iter().enumerate().flat_map(|(j, &d)| std::iter::repeat_n(j as u32, d)).collect();
    let eps = randn(&mut r, c * frames);
    let (sb, ib, eb) = (g.storage_from("stats", &stats), g.storage_from("idx", &idx), g.storage_from("eps", &eps));
    let a = g.storage_from("a", &vec![f32::NAN; half * frames]);
    let b = g.storage_from("b", &vec![f32::NAN; (c - half) * frames]);
    let mut rec = Recorder::new(&g);
    record_expand_prior(&mut rec, frames, (0, half, c, t), &sb, &ib, &eb, &a);
    record_expand_prior(&mut rec, frames, (half, c - half, c, t), &sb, &ib, &eb, &b);
    rec.submit();
    let mut got = g.read_f32(&a, half * frames).unwrap();
    got.extend(g.read_f32(&b, (c - half) * frames).unwrap());
    let want: Vec<f32> = (0..c * frames)
        .map(|i| {
            let (ch, f) = (i / frames, i % frames);
            let j = idx[f] as usize;
            stats[ch * t + j] + eps[i] * stats[(c + ch) * t + j].exp()
        })
        .collect();
    assert_close("expand prior", &got, &want, 1e-6, 1e-6);
}
