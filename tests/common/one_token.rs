//! Building and running one-token decode graphs by hand (the partial-sum kernel tests): bound
//! tensors, an INT4 matrix shared by two graphs (fused and unfused), a plan run at a position.

use std::sync::Arc;

use gerbil::gpu::Gpu;
use gerbil::graph::ir::{AttnShape, RopeAttrs};
use gerbil::graph::{DeviceTensor, Graph, Plan, PlanOptions, TensorId};
use gerbil::weights::int4::Int4Matrix;
use rand::rngs::StdRng;

use super::{gpu, randn};

/// `data` bound as an f32 tensor of rows `cols` wide.
pub fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    f32t_on(&gpu(), g, label, data, cols)
}

/// `f32t` on another device than the shared adapter.
pub fn f32t_on(gpu: &Arc<Gpu>, g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(gpu, label, data, cols).unwrap())
}

/// The same quantized random matrix bound into two graphs; its dequantized values.
pub fn int4_pair(
    r: &mut StdRng,
    gs: [&mut Graph; 2],
    label: &str,
    n: usize,
    k: usize,
    group: usize,
) -> ([TensorId; 2], Vec<f32>) {
    let q = Int4Matrix::quantize(&randn(r, n * k), n, k, group).unwrap();
    let t = DeviceTensor::int4(&gpu(), label, &q).unwrap();
    let [a, b] = gs;
    ([a.bound(label, t.clone()), b.bound(label, t)], q.dequantize())
}

/// A one-token plan of `g`, activations poisoned, run once at position `pos0`.
pub fn run(g: Graph, pos0: usize) -> Plan {
    let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: 1, ..Default::default() }).unwrap();
    plan.poison_activations();
    plan.run(1, pos0);
    plan
}

/// The tensor labelled `label` in a plan's graph.
pub fn tensor(p: &Plan, label: &str) -> TensorId {
    TensorId(p.graph.tensors.iter().position(|t| t.label == label).unwrap() as u32)
}

/// The attention shape and a rotary embedding over the whole head of `nh` q / `nkv` kv heads.
pub fn attn_shape(nh: usize, nkv: usize, hd: usize, max_seq: usize, interleaved: bool) -> (AttnShape, RopeAttrs) {
    (
        AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq },
        RopeAttrs { n_q_heads: nh, n_kv_heads: nkv, head_dim: hd, rotary_dim: hd, interleaved, max_pos: max_seq },
    )
}
