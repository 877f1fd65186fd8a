//! CPU references of the VITS-specific layers (Piper voices): the text encoder's
//! self-attention with windowed relative positions.

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
