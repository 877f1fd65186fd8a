//! CPU oracle for `nn::Recorder::group_norm` (f64 accumulation).

/// torch `GroupNorm(1, C)` of (optionally tanh of) the time-major block `x`
/// [T, C]: one mean and biased variance over every value, affine per channel.
pub fn group_norm(x: &[f32], w: &[f32], b: &[f32], channels: usize, eps: f32, tanh: bool) -> Vec<f32> {
    let v: Vec<f64> = x.iter().map(|&a| if tanh { (a as f64).tanh() } else { a as f64 }).collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / n;
    let inv = 1.0 / (var + eps as f64).sqrt();
    v.iter()
        .enumerate()
        .map(|(i, a)| ((a - mean) * inv * w[i % channels] as f64 + b[i % channels] as f64) as f32)
        .collect()
}
