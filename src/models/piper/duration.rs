//! VITS stochastic duration predictor, reverse direction only (inference): noise
//! `z ~ N(0, noise_w^2)` of 2 channels goes through the flows (Flip, ConvFlow, ... ,
//! ElementwiseAffine; the first ConvFlow is skipped as in VITS `flows[:-2] + [flows[-1]]`)
//! conditioned on the encoder states, giving log-durations.

use super::cpu_ops::gelu;
use super::layers::{add_in_place, bad, Conv, LayerNorm};
use crate::models::ModelError;
use crate::weights::safetensors::Checkpoint;

/// Dilated depth-separable conv stack (VITS `DDSConv`).
pub(super) struct DdsConv {
    pub(super) sep: Vec<Conv>,
    pub(super) one: Vec<Conv>,
    pub(super) norm1: Vec<LayerNorm>,
    pub(super) norm2: Vec<LayerNorm>,
}

impl DdsConv {
    fn load(ck: &Checkpoint, p: &str, c: usize) -> Result<Self, ModelError> {
        let n = super::layers::count(ck, &format!("{p}.convs_sep"), "weight");
        let k = ck.shape(&format!("{p}.convs_sep.0.weight"))?[2];
        let mut s = DdsConv { sep: vec![], one: vec![], norm1: vec![], norm2: vec![] };
        for i in 0..n {
            s.sep.push(Conv::load(ck, &format!("{p}.convs_sep.{i}"), k.pow(i as u32), c)?);
            s.one.push(Conv::load(ck, &format!("{p}.convs_1x1.{i}"), 1, 1)?);
            s.norm1.push(LayerNorm::load(ck, &format!("{p}.norms_1.{i}"), c)?);
            s.norm2.push(LayerNorm::load(ck, &format!("{p}.norms_2.{i}"), c)?);
        }
        Ok(s)
    }

    fn forward(&self, x: &mut [f32], t: usize) {
        for i in 0..self.sep.len() {
            let mut y = self.sep[i].forward(x, t);
            self.norm1[i].apply(&mut y);
            y.iter_mut().for_each(|v| *v = gelu(*v));
            let mut y = self.one[i].forward(&y, t);
            self.norm2[i].apply(&mut y);
            y.iter_mut().for_each(|v| *v = gelu(*v));
            add_in_place(x, &y);
        }
    }
}

pub(super) struct ConvFlow {
    pub(super) pre: Conv,
    pub(super) convs: DdsConv,
    pub(super) proj: Conv,
    pub(super) filter: usize,
    pub(super) bins: usize,
}

pub struct DurationPredictor {
    pub(super) pre: Conv,
    pub(super) convs: DdsConv,
    pub(super) proj: Conv,
    /// In application order (reverse): Flip, flows[7], Flip, flows[5], ...
    pub(super) conv_flows: Vec<ConvFlow>,
    affine_m: Vec<f32>,
    affine_logs: Vec<f32>,
}

const TAIL_BOUND: f32 = 5.0;
const MIN_BIN: f32 = 1e-3;
const MIN_DERIV: f32 = 1e-3;

impl DurationPredictor {
    pub fn load(ck: &Checkpoint, hidden: usize) -> Result<Self, ModelError> {
        if !ck.contains("dp.flows.0.m") {
            return Err(bad(ck, "only the stochastic duration predictor (dp.flows.*) is supported"));
        }
        let filter = ck.shape("dp.pre.weight")?[0];
        // ConvFlows sit at odd indices 1, 3, 5, ...; reverse inference skips flows.1.
        let mut idx: Vec<usize> =
            (3..64).step_by(2).filter(|i| ck.contains(&format!("dp.flows.{i}.pre.weight"))).collect();
        idx.reverse();
        let mut conv_flows = Vec::new();
        for i in idx {
            let p = format!("dp.flows.{i}");
            let proj = Conv::load(ck, &format!("{p}.proj"), 1, 1)?;
            let f = ck.shape(&format!("{p}.pre.weight"))?[0];
            conv_flows.push(ConvFlow {
                pre: Conv::load(ck, &format!("{p}.pre"), 1, 1)?,
                convs: DdsConv::load(ck, &format!("{p}.convs"), f)?,
                bins: (proj.shape.c_out + 1) / 3,
                proj,
                filter: f,
            });
        }
        Ok(DurationPredictor {
            pre: Conv::load(ck, "dp.pre", 1, 1)?,
            convs: DdsConv::load(ck, "dp.convs", filter)?,
            proj: Conv::load(ck, "dp.proj", 1, 1)?,
            conv_flows,
            affine_m: ck.f32("dp.flows.0.m", &[2, 1])?,
            affine_logs: ck.f32("dp.flows.0.logs", &[2, 1])?,
        })
        .and_then(|d| {
            if d.pre.shape.c_in == hidden {
                Ok(d)
            } else {
                Err(bad(ck, "dp.pre does not read the encoder's hidden size"))
            }
        })
    }

    /// Log-durations `[t]` of encoder states `x: [hidden, t]`; `noise: [2, t]` is N(0,1) * noise_w.
    pub fn forward(&self, x: &[f32], t: usize, noise: Vec<f32>) -> Vec<f32> {
        let mut g = self.pre.forward(x, t);
        self.convs.forward(&mut g, t);
        let g = self.proj.forward(&g, t);
        let mut z = noise;
        for cf in &self.conv_flows {
            flip2(&mut z, t);
            cf.reverse(&mut z, &g, t);
        }
        flip2(&mut z, t);
        z.truncate(t);
        self.affine_reverse(&mut z);
        z
    }

    /// The ElementwiseAffine flow reversed on channel 0, the only one kept:
    /// `(z - m) * exp(-logs)` gives the log-durations.
    pub fn affine_reverse(&self, z: &mut [f32]) {
        for v in z {
            *v = (*v - self.affine_m[0]) * (-self.affine_logs[0]).exp();
        }
    }
}

fn flip2(z: &mut [f32], t: usize) {
    let (a, b) = z.split_at_mut(t);
    a.swap_with_slice(&mut b[..t]);
}

impl ConvFlow {
    fn reverse(&self, z: &mut [f32], g: &[f32], t: usize) {
        let mut h = self.pre.forward(&z[..t], t);
        add_in_place(&mut h, g);
        self.convs.forward(&mut h, t);
        let h = self.proj.forward(&h, t);
        let nb = self.bins;
        let sf = (self.filter as f32).sqrt();
        let mut params = vec![0f32; 3 * nb - 1];
        for j in 0..t {
            for (k, p) in params.iter_mut().enumerate() {
                *p = h[k * t + j];
            }
            let w: Vec<f32> = params[..nb].iter().map(|v| v / sf).collect();
            let hh: Vec<f32> = params[nb..2 * nb].iter().map(|v| v / sf).collect();
            let d = &params[2 * nb..];
            z[t + j] = spline_inverse(z[t + j], &w, &hh, d);
        }
    }
}

fn softmax(v: &[f32]) -> Vec<f32> {
    let m = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = v.iter().map(|x| (x - m).exp()).collect();
    let s: f32 = e.iter().sum();
    e.iter().map(|x| x / s).collect()
}

fn softplus(x: f32) -> f32 {
    if x > 20.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

/// Knot positions of a rational-quadratic spline on [-B, B] from unnormalized bin sizes.
fn knots(u: &[f32]) -> Vec<f32> {
    let n = u.len() as f32;
    let s = softmax(u);
    let mut cum = vec![0f32; u.len() + 1];
    let mut acc = 0f32;
    for (i, v) in s.iter().enumerate() {
        acc += MIN_BIN + (1.0 - MIN_BIN * n) * v;
        cum[i + 1] = acc;
    }
    let mut c: Vec<f32> = cum.iter().map(|v| 2.0 * TAIL_BOUND * v - TAIL_BOUND).collect();
    c[0] = -TAIL_BOUND;
    *c.last_mut().unwrap() = TAIL_BOUND;
    c
}

/// Inverse of the unconstrained rational-quadratic spline with linear tails
/// (`piecewise_rational_quadratic_transform(..., inverse=True, tails="linear")`).
pub fn spline_inverse(y: f32, uw: &[f32], uh: &[f32], ud: &[f32]) -> f32 {
    if !(-TAIL_BOUND..=TAIL_BOUND).contains(&y) {
        return y;
    }
    let nb = uw.len();
    let cw = knots(uw);
    let ch = knots(uh);
    // Derivatives at the knots; the two ends are pinned to 1 (the linear tails).
    let end = ((1.0 - MIN_DERIV).exp() - 1.0).ln();
    let mut deriv = Vec::with_capacity(nb + 1);
    deriv.push(MIN_DERIV + softplus(end));
    deriv.extend(ud.iter().map(|&v| MIN_DERIV + softplus(v)));
    deriv.push(MIN_DERIV + softplus(end));
    // searchsorted over the heights with the last knot nudged up by eps.
    let mut bin = 0usize;
    for (i, &k) in ch.iter().enumerate() {
        let k = if i == nb { k + 1e-6 } else { k };
        if y >= k {
            bin = i;
        }
    }
    let bin = bin.min(nb - 1);
    let (x0, w) = (cw[bin], cw[bin + 1] - cw[bin]);
    let (y0, h) = (ch[bin], ch[bin + 1] - ch[bin]);
    let delta = h / w;
    let (d0, d1) = (deriv[bin], deriv[bin + 1]);
    let dy = y - y0;
    let a = dy * (d0 + d1 - 2.0 * delta) + h * (delta - d0);
    let b = h * d0 - dy * (d0 + d1 - 2.0 * delta);
    let c = -delta * dy;
    let disc = b * b - 4.0 * a * c;
    let root = (2.0 * c) / (-b - disc.max(0.0).sqrt());
    root * w + x0
}
