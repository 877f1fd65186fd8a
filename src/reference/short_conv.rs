//! Reference LFM2 short convolution with a rolling state, as transformers'
//! `Lfm2ShortConv` (causal depthwise conv1d of B*x, gated by C).

/// Runs `rows` of `bcx` ([rows, 3 * dim] = [B | C | x]) through the conv,
/// continuing from `state` ([L-1, dim], the previous B*x rows, oldest first),
/// and leaves the state holding the last L-1 B*x rows. `w` is [dim, L].
pub fn short_conv(bcx: &[f32], w: &[f32], bias: Option<&[f32]>, state: &mut [f32], dim: usize) -> Vec<f32> {
    let l = w.len() / dim;
    let s = l - 1;
    assert_eq!(state.len(), s * dim);
    let rows = bcx.len() / (3 * dim);
    // The whole window: state rows, then this step's B*x rows.
    let mut win: Vec<f32> = state.to_vec();
    for r in bcx.chunks(3 * dim) {
        win.extend((0..dim).map(|c| r[c] * r[2 * dim + c]));
    }
    let mut out = vec![0f32; rows * dim];
    for t in 0..rows {
        for c in 0..dim {
            let acc: f64 = (0..l).map(|k| w[c * l + k] as f64 * win[(t + k) * dim + c] as f64).sum();
            let acc = acc as f32 + bias.map_or(0.0, |b| b[c]);
            out[t * dim + c] = bcx[t * 3 * dim + dim + c] * acc;
        }
    }
    state.copy_from_slice(&win[rows * dim..]);
    out
}
