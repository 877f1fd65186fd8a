//! Flash-decoding splits of one-token decode attention (attention_decode.wgsl): a long context is
//! split over several workgroups a head, and the last split to finish (an atomic ticket in a
//! scratch every attention dispatch of the plan shares) combines them. Against the reference
//! attention on random non-zero inputs, for 1, 3, 8 and 9 splits, with three attention ops in one
//! plan and the step run three times with outputs poisoned in between: a ticket left short of zero
//! after a dispatch would leave a later head unfinished.

mod common;

use common::one_token::{attn_shape, f32t_on as f32t};
use common::{assert_close, gpu, randn, rng, rope_table};
use std::sync::Arc;

use gerbil::gpu::{Gpu, GpuOptions, KernelId};
use gerbil::graph::dispatch::Dim;
use gerbil::graph::ir::AttentionDecode;
use gerbil::graph::{Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::reference;

/// One attention op's inputs and its expected output at the step's position.
struct Layer {
    out: TensorId,
    width: usize,
    want: Vec<f32>,
}

/// (heads, kv heads, head_dim, q/k norm): SmolLM2's attention; q/k norms with head_dim 32; head_dim
/// 128 (no key rows prefetched, eight column groups in the combine).
const SHAPES: [(usize, usize, usize, bool); 3] = [(9, 3, 64, false), (4, 2, 32, true), (2, 1, 128, false)];

fn layer(gpu: &Arc<Gpu>, r: &mut rand::rngs::StdRng, g: &mut Graph, i: usize, pos: usize, max_seq: usize) -> Layer {
    let (nh, nkv, hd, qk_norm) = SHAPES[i];
    let (qw, kvw) = (nh * hd, nkv * hd);
    let shape = attn_shape(nh, nkv, hd, max_seq, false);
    let table = rope_table(max_seq, hd);
    let mut cache = reference::KvCache::new(nkv, max_seq, hd);
    cache.append(&randn(r, pos * kvw), &randn(r, pos * kvw), 0);
    let (q, k, v) = (randn(r, qw), randn(r, kvw), randn(r, kvw));
    let (qn, kn) = (randn(r, hd), randn(r, hd));
    let name = |s: &str| format!("l{i}.{s}");
    let flat: Vec<f32> = table.iter().flatten().copied().collect();
    let out = g.activation(name("out"), qw, Rows::Tokens);
    let op = AttentionDecode {
        q: f32t(gpu, g, &name("q"), &q, qw),
        k: f32t(gpu, g, &name("k"), &k, kvw),
        v: f32t(gpu, g, &name("v"), &v, kvw),
        cos_sin: f32t(gpu, g, &name("cos_sin"), &flat, 2),
        qk_norm: qk_norm.then(|| (f32t(gpu, g, &name("qn"), &qn, hd), f32t(gpu, g, &name("kn"), &kn, hd), 1e-6)),
        k_cache: f32t(gpu, g, &name("k_cache"), &cache.k, hd),
        v_cache: f32t(gpu, g, &name("v_cache"), &cache.v, hd),
        out,
        attrs: shape.0,
        rope: shape.1,
        scale: 1.0 / (hd as f32).sqrt(),
    };
    g.push(Op::AttentionDecode(op));
    g.outputs.push(out);
    let (q1, k1) = if qk_norm {
        (reference::rmsnorm(&q, &qn, hd, 1e-6, false), reference::rmsnorm(&k, &kn, hd, 1e-6, false))
    } else {
        (q, k)
    };
    let q2 = reference::rope(&q1, nh, hd, hd, false, &table, &[pos]);
    let k2 = reference::rope(&k1, nkv, hd, hd, false, &table, &[pos]);
    cache.append(&k2, &v, pos);
    Layer { out, width: qw, want: reference::attention(&q2, &cache, nh, pos, 1.0 / (hd as f32).sqrt()) }
}

/// With the records read through a `@coherent` binding (where the adapter has it) and through
/// atomics (the fallback). Grid-barrier kernels read what other workgroups publish only through
/// such bindings, so a device without them refuses grid barriers (without running the probe).
#[test]
fn split_decode_attention_matches_the_reference_over_repeated_steps() {
    let atomic = Gpu::new(&GpuOptions { no_coherent: true, ..Default::default() }).unwrap();
    assert!(!atomic.caps.coherent_buffers);
    assert!(!atomic.grid_barriers_work());
    for gpu in [gpu(), atomic] {
        eprintln!("coherent records: {}", gpu.caps.coherent_buffers);
        check_splits(&gpu);
    }
}

fn check_splits(gpu: &Arc<Gpu>) {
    let mut r = rng("attention_split");
    // At most ceil(1100 / 128) = 9 workgroups a head. The step's context runs unsplit up to 256
    // positions (101, 256), then in runs of about 128: 3 splits at 257, 8 at 1001, all 9 at 1100.
    let max_seq = 1100;
    for (pos, splits) in [(100, 1), (255, 1), (256, 3), (1000, 8), (1099, 9)] {
        let mut g = Graph::default();
        let layers: Vec<Layer> = (0..SHAPES.len()).map(|i| layer(gpu, &mut r, &mut g, i, pos, max_seq)).collect();
        let plan = Plan::new(gpu, g, PlanOptions { max_rows: 1, ..Default::default() }).unwrap();
        let attention = || plan.dispatch_specs().filter(|s| s.kernel == KernelId::AttentionDecode);
        assert!(attention().all(|s| matches!(s.grid.y, Dim::KvSplits { most: 9, .. })), "split grids");
        for round in 0..3 {
            plan.poison_activations();
            plan.run(1, pos);
            let launched: Vec<u32> = attention().map(|s| plan.grid(s, 1).1).collect();
            assert_eq!(launched, vec![splits; SHAPES.len()], "workgroups a head at pos {pos}");
            for (i, l) in layers.iter().enumerate() {
                let got = plan.read_f32(l.out, l.width).unwrap();
                assert_close(&format!("layer {i} pos={pos} round {round}"), &got, &l.want, 2e-5, 1e-4);
            }
        }
    }
}
