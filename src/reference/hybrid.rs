//! CPU references of the hybrid (Qwen3.5 Gated DeltaNet / gated attention) ops,
//! in the float order of transformers' torch fallbacks
//! (`causal_conv1d_update`, `torch_recurrent_gated_delta_rule`, `Qwen3_5RMSNormGated`).

fn silu(x: f32) -> f32 {
    x / (1.0 + (-x).exp())
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Causal depthwise conv + SiLU over `x` [T, C] with weights [C, K], starting
/// from `state` [C, K-1] (oldest input first), which is updated in place.
pub fn causal_conv(x: &[f32], w: &[f32], state: &mut [f32], channels: usize, kernel: usize) -> Vec<f32> {
    let km1 = kernel - 1;
    let t_len = x.len() / channels;
    let mut out = vec![0f32; x.len()];
    for c in 0..channels {
        let mut win: Vec<f32> = state[c * km1..(c + 1) * km1].to_vec();
        for t in 0..t_len {
            let xin = x[t * channels + c];
            let mut acc = 0f32;
            for (j, v) in win.iter().enumerate() {
                acc += w[c * kernel + j] * v;
            }
            acc += w[c * kernel + km1] * xin;
            out[t * channels + c] = silu(acc);
            if km1 > 0 {
                win.remove(0);
                win.push(xin);
            }
        }
        state[c * km1..(c + 1) * km1].copy_from_slice(&win);
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
