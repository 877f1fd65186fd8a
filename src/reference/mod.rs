//! Plain-Rust CPU implementations of every op: the oracle the GPU kernels are
//! tested against. Written for clarity, in the same float order as the
//! PyTorch code they mirror, never for speed.

pub mod attention;
pub mod conv;
pub mod group_norm;
pub mod hybrid;
pub mod llama;
pub mod short_conv;
pub mod speech;
pub mod vits;

pub use attention::{attention, KvCache};
pub use short_conv::short_conv;

/// `out[r, :] = table[tokens[r], :]` for a [vocab, width] table.
pub fn embed(table: &[f32], width: usize, tokens: &[u32]) -> Vec<f32> {
    let vocab = table.len() / width;
    tokens
        .iter()
        .flat_map(|&t| {
            let t = (t as usize).min(vocab - 1);
            table[t * width..(t + 1) * width].iter().copied()
        })
        .collect()
}

/// RMSNorm over consecutive rows of `dim`; `add_unit` uses (1 + w).
pub fn rmsnorm(x: &[f32], w: &[f32], dim: usize, eps: f32, add_unit: bool) -> Vec<f32> {
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks(dim) {
        let ms = row.iter().map(|v| v * v).sum::<f32>() / dim as f32;
        let inv = 1.0 / (ms + eps).sqrt();
        for (v, g) in row.iter().zip(w) {
            let g = if add_unit { 1.0 + g } else { *g };
            out.push(v * inv * g);
        }
    }
    out
}

/// `Y[m, n] = X[m, k] . W[n, k]^T (+ bias[n])`, accumulated in f64 so the
/// reference is more exact than any kernel it judges.
pub fn matmul(x: &[f32], w: &[f32], bias: Option<&[f32]>, k: usize) -> Vec<f32> {
    let n = w.len() / k;
    let m = x.len() / k;
    let mut y = vec![0f32; m * n];
    for r in 0..m {
        let xr = &x[r * k..(r + 1) * k];
        for c in 0..n {
            let wc = &w[c * k..(c + 1) * k];
            let dot: f64 = xr.iter().zip(wc).map(|(a, b)| *a as f64 * *b as f64).sum();
            y[r * n + c] = dot as f32 + bias.map_or(0.0, |b| b[c]);
        }
    }
    y
}

/// Rotary embedding of one [rows, n_heads * head_dim] tensor; row r is at
/// `positions[r]`. `cos_sin[pos * rotary/2 + i]` as built by `rope_table`.
pub fn rope(
    x: &[f32],
    n_heads: usize,
    head_dim: usize,
    rotary_dim: usize,
    interleaved: bool,
    cos_sin: &[[f32; 2]],
    positions: &[usize],
) -> Vec<f32> {
    let half = rotary_dim / 2;
    let mut out = x.to_vec();
    for (r, &pos) in positions.iter().enumerate() {
        for h in 0..n_heads {
            let base = (r * n_heads + h) * head_dim;
            for i in 0..half {
                let (a, b) = if interleaved { (2 * i, 2 * i + 1) } else { (i, i + half) };
                let [c, s] = cos_sin[pos * half + i];
                let (xa, xb) = (x[base + a], x[base + b]);
                out[base + a] = xa * c - xb * s;
                out[base + b] = xb * c + xa * s;
            }
        }
    }
    out
}

/// `silu(gate) * up`, as PyTorch's `F.silu(g) * u`.
pub fn swiglu(gate: &[f32], up: &[f32]) -> Vec<f32> {
    gate.iter().zip(up).map(|(g, u)| (g / (1.0 + (-g).exp())) * u).collect()
}

pub fn add(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

/// Index of the largest value; ties pick the lowest index (torch.argmax).
pub fn argmax(v: &[f32]) -> u32 {
    let mut best = 0;
    for (i, x) in v.iter().enumerate() {
        if *x > v[best] {
            best = i;
        }
    }
    best as u32
}

/// Per-word partial rows of `x . w^T` ([words, n], words = k / 32): row p holds, for every output
/// column, the sum over x[32 p .. 32 p + 32] only (what the partial-sum decode kernels write),
/// accumulated in f64.
pub fn matvec_word_partials(x: &[f32], w: &[f32], k: usize) -> Vec<f32> {
    let n = w.len() / k;
    let words = k / 32;
    let mut out = vec![0f32; words * n];
    for p in 0..words {
        for c in 0..n {
            let row = &w[c * k + 32 * p..c * k + 32 * p + 32];
            let dot: f64 = row.iter().zip(&x[32 * p..32 * p + 32]).map(|(a, b)| *a as f64 * *b as f64).sum();
            out[p * n + c] = dot as f32;
        }
    }
    out
}
