//! CPU references of the hybrid (Qwen3.5 Gated DeltaNet / gated attention) ops,
//! in the float order of transformers' torch fallbacks
//! (`causal_conv1d_update`, `torch_recurrent_gated_delta_rule`, `Qwen3_5RMSNormGated`).

fn silu(x: f32) -> f32 {
    x / (1.0 + (-x).exp())
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Causal depthwise conv + SiLU over `x` [T, C] with weights [C, K] at positions
/// `pos0..`, reading earlier inputs from `state` [C, K], a ring (slot Q % K holds the
/// input at position Q; before position 0 the input is 0), which is updated in place.
pub fn causal_conv(x: &[f32], w: &[f32], state: &mut [f32], channels: usize, kernel: usize, pos0: usize) -> Vec<f32> {
    let t_len = x.len() / channels;
    let mut out = vec![0f32; x.len()];
    for c in 0..channels {
        let input = |q: usize| if q >= pos0 { x[(q - pos0) * channels + c] } else { state[c * kernel + q % kernel] };
        for t in 0..t_len {
            let pos = pos0 + t;
            let mut acc = 0f32;
            for j in 0..kernel - 1 {
                let back = kernel - 1 - j;
                let v = if back <= pos { input(pos - back) } else { 0.0 };
                acc += w[c * kernel + j] * v;
            }
            acc += w[c * kernel + kernel - 1] * x[t * channels + c];
            out[t * channels + c] = silu(acc);
        }
        for t in t_len.saturating_sub(kernel)..t_len {
            state[c * kernel + (pos0 + t) % kernel] = x[t * channels + c];
        }
    }
    out
}

/// Heads of the gated delta rule.
#[derive(Debug, Clone, Copy)]
pub struct DeltaDims {
    pub k_heads: usize,
    pub v_heads: usize,
    pub dk: usize,
    pub dv: usize,
}

fn softplus(x: f32) -> f32 {
    // torch.nn.functional.softplus (beta 1, threshold 20)
    if x > 20.0 {
        x
    } else {
        (1.0 + x.exp()).ln()
    }
}

/// The gated delta rule, recurrent form, over `qkv` rows [T, 2 k_heads dk + v_heads dv]
/// with per-token `a`, `b` [T, v_heads]; `state` [v_heads, dk, dv] is updated in place.
pub fn gated_delta(
    qkv: &[f32],
    a: &[f32],
    b: &[f32],
    a_log: &[f32],
    dt_bias: &[f32],
    state: &mut [f32],
    d: DeltaDims,
) -> Vec<f32> {
    let key_dim = d.k_heads * d.dk;
    let width = 2 * key_dim + d.v_heads * d.dv;
    let t_len = qkv.len() / width;
    let mut out = vec![0f32; t_len * d.v_heads * d.dv];
    let l2 = |v: &[f32]| {
        let inv = 1.0 / (v.iter().map(|x| x * x).sum::<f32>() + 1e-6).sqrt();
        v.iter().map(|x| x * inv).collect::<Vec<f32>>()
    };
    for t in 0..t_len {
        let row = &qkv[t * width..(t + 1) * width];
        for h in 0..d.v_heads {
            let kh = h / (d.v_heads / d.k_heads);
            let scale = 1.0 / (d.dk as f32).sqrt();
            let q: Vec<f32> = l2(&row[kh * d.dk..(kh + 1) * d.dk]).iter().map(|x| x * scale).collect();
            let k = l2(&row[key_dim + kh * d.dk..key_dim + (kh + 1) * d.dk]);
            let v = &row[2 * key_dim + h * d.dv..2 * key_dim + (h + 1) * d.dv];
            let beta = sigmoid(b[t * d.v_heads + h]);
            let g = -a_log[h].exp() * softplus(a[t * d.v_heads + h] + dt_bias[h]);
            let decay = g.exp();
            let s = &mut state[h * d.dk * d.dv..(h + 1) * d.dk * d.dv];
            s.iter_mut().for_each(|x| *x *= decay);
            for j in 0..d.dv {
                let kv_mem: f32 = (0..d.dk).map(|i| s[i * d.dv + j] * k[i]).sum();
                let delta = (v[j] - kv_mem) * beta;
                for i in 0..d.dk {
                    s[i * d.dv + j] += k[i] * delta;
                }
                out[t * d.v_heads * d.dv + h * d.dv + j] = (0..d.dk).map(|i| s[i * d.dv + j] * q[i]).sum();
            }
        }
    }
    out
}

/// `rmsnorm(x) * w * silu(z)` over rows of `dim` (plain weight).
pub fn rmsnorm_gated(x: &[f32], z: &[f32], w: &[f32], dim: usize, eps: f32) -> Vec<f32> {
    let normed = super::rmsnorm(x, w, dim, eps, false);
    normed.iter().zip(z).map(|(n, g)| n * silu(*g)).collect()
}

/// `x * sigmoid(gate)`.
pub fn sigmoid_gate(x: &[f32], gate: &[f32]) -> Vec<f32> {
    x.iter().zip(gate).map(|(v, g)| v * sigmoid(*g)).collect()
}

/// The gated delta rule in chunked form, as transformers' `torch_chunk_gated_delta_rule` computes it
/// (chunks of `chunk` tokens: the in-chunk triangular solve by its row loop, `value = T v_beta`,
/// `k_cumdecay = T (k_beta e^G)`, then the inter-chunk state recurrence). Same arguments and result
/// as `gated_delta` up to rounding: the oracle that the two forms agree.
#[allow(clippy::too_many_arguments)]
pub fn gated_delta_chunked(
    qkv: &[f32],
    a: &[f32],
    b: &[f32],
    a_log: &[f32],
    dt_bias: &[f32],
    state: &mut [f32],
    d: DeltaDims,
    chunk: usize,
) -> Vec<f32> {
    let key_dim = d.k_heads * d.dk;
    let width = 2 * key_dim + d.v_heads * d.dv;
    let t_len = qkv.len() / width;
    let (dk, dv) = (d.dk, d.dv);
    let mut out = vec![0f32; t_len * d.v_heads * dv];
    let l2 = |v: &[f32]| {
        let inv = 1.0 / (v.iter().map(|x| x * x).sum::<f32>() + 1e-6).sqrt();
        v.iter().map(|x| x * inv).collect::<Vec<f32>>()
    };
    let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
    for h in 0..d.v_heads {
        let kh = h / (d.v_heads / d.k_heads);
        let scale = 1.0 / (dk as f32).sqrt();
        let s = &mut state[h * dk * dv..(h + 1) * dk * dv];
        for c0 in (0..t_len).step_by(chunk) {
            let n = chunk.min(t_len - c0);
            let row = |t: usize| &qkv[(c0 + t) * width..(c0 + t + 1) * width];
            let q: Vec<Vec<f32>> =
                (0..n).map(|t| l2(&row(t)[kh * dk..(kh + 1) * dk]).iter().map(|x| x * scale).collect()).collect();
            let k: Vec<Vec<f32>> = (0..n).map(|t| l2(&row(t)[key_dim + kh * dk..key_dim + (kh + 1) * dk])).collect();
            let v: Vec<&[f32]> = (0..n).map(|t| &row(t)[2 * key_dim + h * dv..2 * key_dim + (h + 1) * dv]).collect();
            let beta: Vec<f32> = (0..n).map(|t| sigmoid(b[(c0 + t) * d.v_heads + h])).collect();
            let mut g: Vec<f32> =
                (0..n).map(|t| -a_log[h].exp() * softplus(a[(c0 + t) * d.v_heads + h] + dt_bias[h])).collect();
            for t in 1..n {
                g[t] += g[t - 1];
            }
            // attn = -(k_beta k^T * decay) strictly below the diagonal, then the row loop: T = (I + L)^-1.
            let mut t_mat = vec![vec![0f32; n]; n];
            for i in 0..n {
                for m in 0..i {
                    t_mat[i][m] = -(beta[i] * dot(&k[i], &k[m])) * (g[i] - g[m]).exp();
                }
            }
            for i in 1..n {
                let row_i = t_mat[i].clone();
                for m in 0..i {
                    t_mat[i][m] = row_i[m] + (m + 1..i).map(|l| row_i[l] * t_mat[l][m]).sum::<f32>();
                }
            }
            for (i, r) in t_mat.iter_mut().enumerate() {
                r[i] = 1.0;
            }
            // value = T (v beta), k_cumdecay = T (k beta e^G).
            let value: Vec<Vec<f32>> = (0..n)
                .map(|i| (0..dv).map(|j| (0..=i).map(|m| t_mat[i][m] * v[m][j] * beta[m]).sum()).collect())
                .collect();
            let k_cd: Vec<Vec<f32>> = (0..n)
                .map(|i| (0..dk).map(|r| (0..=i).map(|m| t_mat[i][m] * k[m][r] * beta[m] * g[m].exp()).sum()).collect())
                .collect();
            // v_new = value - k_cumdecay S; o = (q e^G) S + (q k^T * decay, causal) v_new.
            let s_t = |r: usize, j: usize, s: &[f32]| s[r * dv + j];
            let v_new: Vec<Vec<f32>> = (0..n)
                .map(|i| {
                    (0..dv).map(|j| value[i][j] - (0..dk).map(|r| k_cd[i][r] * s_t(r, j, s)).sum::<f32>()).collect()
                })
                .collect();
            for i in 0..n {
                for j in 0..dv {
                    let inter: f32 = (0..dk).map(|r| q[i][r] * g[i].exp() * s_t(r, j, s)).sum();
                    let intra: f32 = (0..=i).map(|m| dot(&q[i], &k[m]) * (g[i] - g[m]).exp() * v_new[m][j]).sum();
                    out[(c0 + i) * d.v_heads * dv + h * dv + j] = inter + intra;
                }
            }
            let gl = g[n - 1];
            for r in 0..dk {
                for j in 0..dv {
                    let add: f32 = (0..n).map(|m| k[m][r] * (gl - g[m]).exp() * v_new[m][j]).sum();
                    s[r * dv + j] = s[r * dv + j] * gl.exp() + add;
                }
            }
        }
    }
    out
}
