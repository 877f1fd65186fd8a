//! The VITS reverse flow on the GPU: per coupling layer (last to first) a channel
//! flip, then `z[half..] -= post(WaveNet(pre(z[..half])))`.
//!
//! z lives in two buffers, its halves, so no dispatch moves data for a flip: a flip
//! swaps which buffer is the first half and reverses the channel order of both,
//! and that order is baked into the weights at load (`pre` reads its input
//! channels reversed, `post` writes its outputs reversed). After an even number of
//! flips (Piper's 4 couplings) the halves are back in order; the decoder's first
//! conv reads them as two inputs. WaveNet: the in-layer conv, the gated activation
//! (`wavenet_gate.wgsl`), and res/skip 1x1 convs split into two convs that add
//! into the running input and the skip sum; `post` subtracts by accumulating with
//! scale -1.

use std::sync::Arc;

use super::flow::Flow;
use super::layers::{upload, Conv};
use crate::gpu::Gpu;
use crate::nn::{Conv1dEpilogue, Conv1dShape, GpuConv1d, GpuGate, Recorder};

struct GpuWaveNetLayer {
    conv: GpuConv1d,
    /// Adds into the running input (absent on the last layer).
    res: Option<GpuConv1d>,
    /// Adds into the skip sum (the first layer overwrites it).
    skip: GpuConv1d,
}

struct GpuCoupling {
    pre: GpuConv1d,
    layers: Vec<GpuWaveNetLayer>,
    post: GpuConv1d,
    /// Which buffer holds the first half when this coupling runs.
    first_is_b: bool,
}

pub struct GpuFlow {
    gpu: Arc<Gpu>,
    couplings: Vec<GpuCoupling>,
    gate: GpuGate,
    pub half: usize,
    hidden: usize,
}

/// Output channels [lo, hi) of a conv.
fn out_rows(c: &Conv, lo: usize, hi: usize) -> Conv {
    let per = c.w.len() / c.shape.c_out;
    Conv {
        shape: Conv1dShape { c_out: hi - lo, ..c.shape },
        w: c.w[lo * per..hi * per].to_vec(),
        b: c.b.as_ref().map(|b| b[lo..hi].to_vec()),
    }
}

/// A 1x1-style conv with its input channels (`inputs`) and / or output channels (`outputs`) reversed.
fn reversed(c: &Conv, inputs: bool, outputs: bool) -> Conv {
    let (co, ci, k) = (c.shape.c_out, c.shape.c_in / c.shape.groups, c.shape.kernel);
    let mut w = vec![0f32; c.w.len()];
    for o in 0..co {
        for i in 0..ci {
            let (so, si) = (if outputs { co - 1 - o } else { o }, if inputs { ci - 1 - i } else { i });
            w[(o * ci + i) * k..(o * ci + i + 1) * k].copy_from_slice(&c.w[(so * ci + si) * k..(so * ci + si + 1) * k]);
        }
    }
    let b = c.b.as_ref().map(|b| if outputs { b.iter().rev().copied().collect() } else { b.clone() });
    Conv { shape: c.shape, w, b }
}

impl GpuFlow {
    /// None when the flow has an odd number of couplings (its output would end up
    /// flipped) or grouped convs: the CPU flow runs then.
    pub fn new(gpu: &Arc<Gpu>, flow: &Flow) -> Option<GpuFlow> {
        if !flow.layers.len().is_multiple_of(2)
            || flow.layers.iter().any(|l| l.pre.shape.groups != 1 || l.post.shape.groups != 1)
        {
            return None;
        }
        let hidden = flow.layers[0].enc.hidden;
        let overwrite = Conv1dEpilogue::default();
        let add = Conv1dEpilogue { accumulate: true, ..Default::default() };
        let mut couplings = Vec::new();
        for (j, l) in flow.layers.iter().rev().enumerate() {
            // Before coupling j, j + 1 flips: odd -> halves swapped and channel order reversed.
            let flipped = (j + 1) % 2 == 1;
            let pre = upload(gpu, "flow.pre", &reversed(&l.pre, flipped, false), overwrite);
            let subtract = Conv1dEpilogue { accumulate: true, out_scale: -1.0, ..Default::default() };
            let post = upload(gpu, "flow.post", &reversed(&l.post, false, flipped), subtract);
            let n = l.enc.in_layers.len();
            let layers = (0..n)
                .map(|i| {
                    let rs = &l.enc.res_skip[i];
                    let last = i + 1 == n;
                    let skip_conv = if last { out_rows(rs, 0, hidden) } else { out_rows(rs, hidden, 2 * hidden) };
                    GpuWaveNetLayer {
                        conv: upload(gpu, "flow.in", &l.enc.in_layers[i], overwrite),
                        res: (!last).then(|| upload(gpu, "flow.res", &out_rows(rs, 0, hidden), add)),
                        skip: upload(gpu, "flow.skip", &skip_conv, if i == 0 { overwrite } else { add }),
                    }
                })
                .collect();
            couplings.push(GpuCoupling { pre, layers, post, first_is_b: flipped });
        }
        let half = flow.channels / 2;
        Some(GpuFlow { gpu: gpu.clone(), couplings, gate: GpuGate::new(gpu, hidden), half, hidden })
    }

    /// Records z = f^-1(z) for z given as its halves `a` = z[..half] and `b` = z[half..]
    /// ([half, t] each); on return they hold the result's halves, in order.
    pub fn record(&self, rec: &mut Recorder, t: usize, a: &wgpu::Buffer, b: &wgpu::Buffer) {
        let g = &*self.gpu;
        let bytes = |c: usize| (c * t * 4) as u64;
        let (x, acts, skip) = (
            g.storage("flow.x", bytes(self.hidden)),
            g.storage("flow.acts", bytes(self.hidden)),
            g.storage("flow.skip", bytes(self.hidden)),
        );
        let gated = g.storage("flow.in", bytes(2 * self.hidden));
        for c in &self.couplings {
            let (first, second) = if c.first_is_b { (b, a) } else { (a, b) };
            c.pre.record(rec, t, first, None, &x);
            for l in &c.layers {
                l.conv.record(rec, t, &x, None, &gated);
                self.gate.record(rec, t, &gated, &acts);
                if let Some(res) = &l.res {
                    res.record(rec, t, &acts, None, &x);
                }
                l.skip.record(rec, t, &acts, None, &skip);
            }
            c.post.record(rec, t, &skip, None, second);
        }
    }
}
