//! 1-D convolution family over channel-major `[channels, time]` tensors (batch 1), as
//! PyTorch's `Conv1d` / `ConvTranspose1d` / VITS `LayerNorm` compute them. The CPU oracle of
//! `shaders/conv1d.wgsl` and `shaders/conv_transpose1d.wgsl`, and the CPU path of the
//! small parts of the Piper voice (text encoder, duration predictor).

/// Shape and attributes of a `Conv1d` (stride 1, symmetric zero padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conv1dShape {
    pub c_in: usize,
    pub c_out: usize,
    pub kernel: usize,
    pub dilation: usize,
    pub padding: usize,
    pub groups: usize,
}

impl Conv1dShape {
    /// A dense "same" convolution (odd kernel, dilation 1).
    pub fn same(c_in: usize, c_out: usize, kernel: usize) -> Self {
        Conv1dShape { c_in, c_out, kernel, dilation: 1, padding: (kernel - 1) / 2, groups: 1 }
    }

    pub fn t_out(&self, t_in: usize) -> usize {
        (t_in + 2 * self.padding).saturating_sub(self.dilation * (self.kernel - 1))
    }

    /// Elements of the weight, `[c_out, c_in / groups, kernel]`.
    pub fn weight_len(&self) -> usize {
        self.c_out * (self.c_in / self.groups) * self.kernel
    }
}

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

/// Shape and attributes of a `ConvTranspose1d` (groups 1, dilation 1, no output padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvTranspose1dShape {
    pub c_in: usize,
    pub c_out: usize,
    pub kernel: usize,
    pub stride: usize,
    pub padding: usize,
}

impl ConvTranspose1dShape {
    pub fn t_out(&self, t_in: usize) -> usize {
        ((t_in.max(1) - 1) * self.stride + self.kernel).saturating_sub(2 * self.padding)
    }
}

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
