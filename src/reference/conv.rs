//! 1-D convolution family over channel-major `[channels, time]` tensors (batch 1), as
//! PyTorch's `Conv1d` / `ConvTranspose1d` / VITS `LayerNorm` compute them: the CPU oracle of
//! `shaders/conv1d.wgsl`, `shaders/conv_transpose1d.wgsl`, `shaders/snake.wgsl` and
//! `shaders/layernorm_channels.wgsl`. The ops the Piper voice also runs on the CPU live with
//! it (`models::piper::cpu_ops`), the shapes with the GPU layers (`nn`); both are re-exported.

pub use crate::models::piper::cpu_ops::{conv1d, erf, gelu, layer_norm_channels, leaky_relu};
pub use crate::nn::{Conv1dShape, ConvTranspose1dShape};

/// `y[co, i*stride + k - padding] += w[ci, co, k] * x[ci, i]`, plus bias; weight `[c_in, c_out, kernel]`.
pub fn conv_transpose1d(
    x: &[f32],
    t_in: usize,
    w: &[f32],
    bias: Option<&[f32]>,
    s: ConvTranspose1dShape,
    pre_slope: Option<f32>,
) -> Vec<f32> {
    assert_eq!(x.len(), s.c_in * t_in, "conv_transpose1d input");
    assert_eq!(w.len(), s.c_in * s.c_out * s.kernel, "conv_transpose1d weight");
    let t_out = s.t_out(t_in);
    let mut y = vec![0f32; s.c_out * t_out];
    for co in 0..s.c_out {
        if let Some(b) = bias {
            y[co * t_out..(co + 1) * t_out].fill(b[co]);
        }
    }
    for ci in 0..s.c_in {
        for i in 0..t_in {
            let mut xv = x[ci * t_in + i];
            if let Some(a) = pre_slope {
                xv = leaky_relu(xv, a);
            }
            for co in 0..s.c_out {
                for k in 0..s.kernel {
                    let o = (i * s.stride + k) as isize - s.padding as isize;
                    if o >= 0 && (o as usize) < t_out {
                        y[co * t_out + o as usize] += xv * w[(ci * s.c_out + co) * s.kernel + k];
                    }
                }
            }
        }
    }
    y
}

/// Snake activation over `[channels, t]` (DAC): `x + 1/(alpha + 1e-9) * sin(alpha * x)^2`, alpha per channel.
pub fn snake(x: &[f32], t: usize, alpha: &[f32]) -> Vec<f32> {
    assert_eq!(x.len(), alpha.len() * t, "snake input");
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let a = alpha[i / t.max(1)];
            let s = (a * v).sin();
            v + s * s / (a + 1e-9)
        })
        .collect()
}
