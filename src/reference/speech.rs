//! CPU oracles for the encoder-decoder ops in `crate::nn` (f64 accumulation).

/// torch LayerNorm over rows of `dim` (biased variance, two passes).
pub fn layer_norm(x: &[f32], w: &[f32], b: &[f32], dim: usize, eps: f32) -> Vec<f32> {
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks(dim) {
        let mean = row.iter().map(|v| *v as f64).sum::<f64>() / dim as f64;
        let var = row.iter().map(|v| (*v as f64 - mean).powi(2)).sum::<f64>() / dim as f64;
        let inv = 1.0 / (var + eps as f64).sqrt();
        for i in 0..dim {
            out.push(((row[i] as f64 - mean) * inv * w[i] as f64 + b[i] as f64) as f32);
        }
    }
    out
}

/// Exact GELU: x / 2 * (1 + erf(x / sqrt 2)).
pub fn gelu(x: &[f32]) -> Vec<f32> {
    x.iter().map(|&v| (0.5 * v as f64 * (1.0 + libm::erf(v as f64 / std::f64::consts::SQRT_2))) as f32).collect()
}

/// torch conv1d on time-major input x [t_in, c_in], weight [c_out, c_in, kernel],
/// returning time-major [t_out, c_out].
pub fn conv1d(
    x: &[f32],
    c_in: usize,
    w: &[f32],
    bias: Option<&[f32]>,
    kernel: usize,
    stride: usize,
    pad: usize,
) -> Vec<f32> {
    let t_in = x.len() / c_in;
    let c_out = w.len() / (c_in * kernel);
    let t_out = (t_in + 2 * pad - kernel) / stride + 1;
    let mut out = vec![0f32; t_out * c_out];
    for t in 0..t_out {
        for o in 0..c_out {
            let mut acc = bias.map_or(0.0, |b| b[o] as f64);
            for c in 0..c_in {
                for k in 0..kernel {
                    let src = (t * stride + k) as isize - pad as isize;
                    if src >= 0 && (src as usize) < t_in {
                        acc += w[(o * c_in + c) * kernel + k] as f64 * x[src as usize * c_in + c] as f64;
                    }
                }
            }
            out[t * c_out + o] = acc as f32;
        }
    }
    out
}

/// Multi-head softmax(q k^T / sqrt(hd)) v with strided rows (see `nn::AttnArgs`).
#[allow(clippy::too_many_arguments)]
pub fn attention(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    n_q: usize,
    n_heads: usize,
    hd: usize,
    kv_len: usize,
    q_stride: usize,
    kv_stride: usize,
    k_off: usize,
    v_off: usize,
    causal_from: Option<usize>,
) -> Vec<f32> {
    let mut out = vec![0f32; n_q * n_heads * hd];
    let scale = 1.0 / (hd as f64).sqrt();
    for r in 0..n_q {
        let len = causal_from.map_or(kv_len, |p| kv_len.min(p + r + 1));
        for h in 0..n_heads {
            let qv = &q[r * q_stride + h * hd..][..hd];
            let scores: Vec<f64> = (0..len)
                .map(|j| {
                    let kv = &k[j * kv_stride + k_off + h * hd..][..hd];
                    qv.iter().zip(kv).map(|(a, b)| *a as f64 * *b as f64).sum::<f64>() * scale
                })
                .collect();
            let m = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = scores.iter().map(|s| (s - m).exp()).collect();
            let z: f64 = e.iter().sum();
            for i in 0..hd {
                let acc: f64 = (0..len).map(|j| e[j] * v[j * kv_stride + v_off + h * hd + i] as f64).sum();
                out[(r * n_heads + h) * hd + i] = (acc / z) as f32;
            }
        }
    }
    out
}
