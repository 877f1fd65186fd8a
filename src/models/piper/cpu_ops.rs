//! The plain-Rust ops of the Piper voice's CPU modules (text encoder, duration predictor, flow),
//! over channel-major `[channels, time]` tensors as PyTorch / VITS compute them. The CPU modules
//! run a voice whose shapes the GPU kernels do not take, and are what the GPU path is tested
//! against; `reference::conv` and `reference::vits` re-export these ops as the kernels' oracle.

use crate::nn::Conv1dShape;

/// `y[co, t] = bias[co] + sum_{ci in group, k} w[co, ci, k] * x[ci, t + k*dilation - padding]`.
/// `pre_slope` applies a leaky ReLU to the input first (HiFi-GAN's `conv(leaky_relu(x))`).
pub fn conv1d(
    x: &[f32],
    t_in: usize,
    w: &[f32],
    bias: Option<&[f32]>,
    s: Conv1dShape,
    pre_slope: Option<f32>,
) -> Vec<f32> {
    assert_eq!(x.len(), s.c_in * t_in, "conv1d input");
    assert_eq!(w.len(), s.weight_len(), "conv1d weight");
    let t_out = s.t_out(t_in);
    let cig = s.c_in / s.groups;
    let cog = s.c_out / s.groups;
    let xs: Vec<f32> = match pre_slope {
        Some(a) => x.iter().map(|&v| leaky_relu(v, a)).collect(),
        None => x.to_vec(),
    };
    let mut y = vec![0f32; s.c_out * t_out];
    for co in 0..s.c_out {
        let g = co / cog;
        let row = &mut y[co * t_out..(co + 1) * t_out];
        if let Some(b) = bias {
            row.fill(b[co]);
        }
        for cl in 0..cig {
            let ci = g * cig + cl;
            let xr = &xs[ci * t_in..(ci + 1) * t_in];
            for k in 0..s.kernel {
                let wv = w[(co * cig + cl) * s.kernel + k];
                // Output t reads input t + off; keep 0 <= t + off < t_in.
                let off = (k * s.dilation) as isize - s.padding as isize;
                let t0 = (-off).max(0) as usize;
                let t1 = ((t_in as isize - off).max(0) as usize).min(t_out);
                for t in t0..t1 {
                    row[t] += wv * xr[(t as isize + off) as usize];
                }
            }
        }
    }
    y
}

pub fn leaky_relu(v: f32, slope: f32) -> f32 {
    if v >= 0.0 {
        v
    } else {
        v * slope
    }
}

/// VITS `LayerNorm`: normalizes each time step over the channels of `[c, t]`.
pub fn layer_norm_channels(x: &mut [f32], c: usize, gamma: &[f32], beta: &[f32], eps: f32) {
    let t = x.len() / c;
    for j in 0..t {
        let mean = (0..c).map(|i| x[i * t + j]).sum::<f32>() / c as f32;
        let var = (0..c).map(|i| (x[i * t + j] - mean).powi(2)).sum::<f32>() / c as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for i in 0..c {
            x[i * t + j] = (x[i * t + j] - mean) * inv * gamma[i] + beta[i];
        }
    }
}

/// Exact (erf) GELU, as `torch.nn.functional.gelu`.
pub fn gelu(v: f32) -> f32 {
    0.5 * v * (1.0 + erf(v / std::f32::consts::SQRT_2))
}

/// erf to ~1e-7 absolute (Abramowitz-Stegun 7.1.26 is too coarse for parity; this is the
/// W. J. Cody rational form via f64 `libm`-free series/continued fraction split).
pub fn erf(x: f32) -> f32 {
    let x = x as f64;
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    // Numerical Recipes erfc Chebyshev fit, relative error < 1.2e-7.
    let y = t
        * (-x * x - 1.26551223
            + t * (1.00002368
                + t * (0.37409196
                    + t * (0.09678418
                        + t * (-0.18628806
                            + t * (0.27886807
                                + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
            .exp();
    (if x >= 0.0 { 1.0 - y } else { y - 1.0 }) as f32
}

/// VITS `MultiHeadAttention` core (batch 1, no mask, `heads_share` relative embeddings):
/// `q`, `k`, `v`: `[heads * head_dim, t]`; `rel_k`, `rel_v`: `[2 * window + 1, head_dim]`.
/// Scores are `q_i . k_j / sqrt(d)` plus `q_i . rel_k[j - i + window] / sqrt(d)` for
/// `|j - i| <= window`; the output adds `p_ij * rel_v[j - i + window]` likewise.
#[allow(clippy::too_many_arguments)]
pub fn rel_attention(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    t: usize,
    head_dim: usize,
    window: usize,
    rel_k: &[f32],
    rel_v: &[f32],
) -> Vec<f32> {
    let d = head_dim;
    let heads = q.len() / t / d;
    let w = window as isize;
    let scale = 1.0 / (d as f32).sqrt();
    let mut out = vec![0f32; q.len()];
    let mut scores = vec![0f32; t];
    for h in 0..heads {
        let (qh, kh, vh) =
            (rows(q, t, h * d, (h + 1) * d), rows(k, t, h * d, (h + 1) * d), rows(v, t, h * d, (h + 1) * d));
        for i in 0..t {
            // Absolute scores plus the windowed relative-key term, as VITS adds them.
            for (j, s) in scores.iter_mut().enumerate() {
                let rel = j as isize - i as isize;
                let mut acc = 0f32;
                for c in 0..d {
                    acc += qh[c * t + i] * scale * kh[c * t + j];
                }
                if rel.abs() <= w {
                    let r = (rel + w) as usize;
                    let mut rk = 0f32;
                    for c in 0..d {
                        rk += qh[c * t + i] * scale * rel_k[r * d + c];
                    }
                    acc += rk;
                }
                *s = acc;
            }
            let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0f32;
            for s in scores.iter_mut() {
                *s = (*s - max).exp();
                sum += *s;
            }
            for s in scores.iter_mut() {
                *s /= sum;
            }
            for c in 0..d {
                let mut acc = 0f32;
                for (j, p) in scores.iter().enumerate() {
                    acc += p * vh[c * t + j];
                }
                let lo = (i as isize - w).max(0) as usize;
                let hi = ((i as isize + w) as usize).min(t - 1);
                for (j, p) in scores.iter().enumerate().take(hi + 1).skip(lo) {
                    let r = (j as isize - i as isize + w) as usize;
                    acc += p * rel_v[r * d + c];
                }
                out[(h * d + c) * t + i] = acc;
            }
        }
    }
    out
}

/// Rows `[from, to)` of a `[c, t]` tensor.
fn rows(x: &[f32], t: usize, from: usize, to: usize) -> &[f32] {
    &x[from * t..to * t]
}
