//! The LFM2 short-conv kernels and the fused add + RMSNorm against the
//! plain-Rust reference, on the real adapter, random non-zero inputs, outputs
//! poisoned with NaN. The conv state is carried over several steps of
//! different lengths (prefill chunks shorter and longer than L-1, decode steps).

mod common;

use common::{assert_close, gpu, randn, rng};
use gerbil::graph::ir::{ConvAttrs, ShortConv};
use gerbil::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::reference;

fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(&gpu(), label, data, cols).unwrap())
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Variant {
    /// short_conv.wgsl then conv_state_update.wgsl (the unfused graph).
    Separate,
    /// short_conv_update.wgsl (the short_conv_state fusion).
    Fused,
}

/// Runs steps of `lens` tokens through one conv layer, the state living on the
/// GPU across steps; every step's output and the state after it are checked.
fn check_conv(dim: usize, kernel: usize, bias: bool, lens: &[usize], variant: Variant) {
    let mut r = rng("short_conv");
    let w = randn(&mut r, dim * kernel);
    let b = randn(&mut r, dim);
    let init = randn(&mut r, (kernel - 1) * dim); // a state left by an earlier step
    let state = DeviceTensor::f32(&gpu(), "state", &init, dim).unwrap();
    let mut want_state = init.clone();
    for &m in lens {
        let bcx = randn(&mut r, m * 3 * dim);
        let mut g = Graph::default();
        let bt = f32t(&mut g, "bcx", &bcx, 3 * dim);
        let wt = f32t(&mut g, "w", &w, kernel);
        let biast = bias.then(|| f32t(&mut g, "bias", &b, dim));
        let st = g.bound("state", state.clone());
        let out = g.activation("out", dim, Rows::Tokens);
        let attrs = ConvAttrs { dim, kernel };
        let fused = variant == Variant::Fused;
        g.push(Op::ShortConv(ShortConv {
            bcx: bt,
            weight: wt,
            bias: biast,
            state: st,
            out,
            attrs,
            update_state: fused,
            rows: None,
        }));
        if !fused {
            g.push(Op::ConvStateUpdate { bcx: bt, state: st, attrs });
        }
        g.outputs.push(out);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: m, ..Default::default() }).unwrap();
        assert_eq!(plan.dispatch_count(), if fused { 1 } else { 2 });
        plan.poison_activations();
        plan.run(m, 0);
        let want = reference::short_conv(&bcx, &w, bias.then_some(&b[..]), &mut want_state, dim);
        let what = format!("{variant:?} dim={dim} L={kernel} bias={bias} m={m}");
        assert_close(&format!("{what} out"), &plan.read_f32(out, m * dim).unwrap(), &want, 1e-5, 1e-5);
        assert_close(&format!("{what} state"), &plan.read_f32(st, want_state.len()).unwrap(), &want_state, 0.0, 0.0);
    }
}

#[test]
fn short_conv_prefill_chunks_then_decode() {
    for variant in [Variant::Separate, Variant::Fused] {
        check_conv(64, 3, false, &[5, 1, 1, 2, 1], variant);
        check_conv(300, 4, true, &[1, 2, 7, 1], variant);
        check_conv(1030, 2, true, &[3, 1, 1], variant);
        check_conv(96, 8, false, &[2, 9, 1, 1], variant);
    }
}

/// A batched decode step: each row one token of the sequence in its own slot, convolved with that
/// slot's window and leaving it shifted; idle slots' states untouched. Two steps, rows in another
/// order the second time.
#[test]
fn short_conv_rows_each_with_its_slots_state() {
    let mut r = rng("short_conv_rows");
    for (dim, kernel, bias) in [(64, 3, false), (300, 4, true), (1030, 2, true), (96, 8, false)] {
        let slots = 5;
        let region = (kernel - 1) * dim;
        let w = randn(&mut r, dim * kernel);
        let b = randn(&mut r, dim);
        let mut states = randn(&mut r, slots * region);
        let mut g = Graph::default();
        let src = f32t(&mut g, "src", &vec![0.0; slots * 3 * dim], 3 * dim);
        let zeros = f32t(&mut g, "zeros", &vec![0.0; slots * 3 * dim], 3 * dim);
        let bt = g.activation("bcx", 3 * dim, Rows::Tokens);
        g.push(Op::Add { a: src, b: zeros, out: bt });
        let wt = f32t(&mut g, "w", &w, kernel);
        let biast = bias.then(|| f32t(&mut g, "bias", &b, dim));
        let st = f32t(&mut g, "states", &states, dim);
        let rows_t = g.bound("rows", DeviceTensor::u32(&gpu(), "rows", &[0; 2 * 5]).unwrap());
        let out = g.activation("out", dim, Rows::Tokens);
        let attrs = ConvAttrs { dim, kernel };
        let conv = ShortConv {
            bcx: bt,
            weight: wt,
            bias: biast,
            state: st,
            out,
            attrs,
            update_state: true,
            rows: Some(rows_t),
        };
        g.push(Op::ShortConv(conv));
        g.outputs.push(out);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: slots, ..Default::default() }).unwrap();
        plan.poison_activations();
        for step_slots in [[3usize, 0, 4], [0, 4, 1]] {
            let m = step_slots.len();
            let bcx = randn(&mut r, m * 3 * dim);
            gpu().queue.write_buffer(plan.buffer(src), 0, bytemuck::cast_slice(&bcx));
            // Positions are not read by the conv (its window is the state): any will do.
            let pairs: Vec<u32> = step_slots.iter().flat_map(|&s| [s as u32, 7]).collect();
            gpu().queue.write_buffer(plan.buffer(rows_t), 0, bytemuck::cast_slice(&pairs));
            plan.run(m, 0);
            let mut want = Vec::new();
            for (row, &slot) in step_slots.iter().enumerate() {
                let state = &mut states[slot * region..(slot + 1) * region];
                let x = &bcx[row * 3 * dim..(row + 1) * 3 * dim];
                want.extend(reference::short_conv(x, &w, bias.then_some(&b[..]), state, dim));
            }
            let what = format!("short_conv_rows dim={dim} L={kernel} bias={bias} slots {step_slots:?}");
            assert_close(&format!("{what} out"), &plan.read_f32(out, m * dim).unwrap(), &want, 1e-5, 1e-5);
            assert_close(&format!("{what} states"), &plan.read_f32(st, states.len()).unwrap(), &states, 0.0, 0.0);
        }
    }
}

#[test]
fn conv_state_update_alone() {
    // Only the state shift (in place, chunk shorter and longer than L-1).
    let mut r = rng("conv_state_update");
    for (dim, kernel, m) in [(40, 3, 1), (40, 3, 5), (257, 5, 2), (257, 5, 4)] {
        let init = randn(&mut r, (kernel - 1) * dim);
        let bcx = randn(&mut r, m * 3 * dim);
        let mut g = Graph::default();
        let bt = f32t(&mut g, "bcx", &bcx, 3 * dim);
        let st = f32t(&mut g, "state", &init, dim);
        g.push(Op::ConvStateUpdate { bcx: bt, state: st, attrs: ConvAttrs { dim, kernel } });
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: m, ..Default::default() }).unwrap();
        plan.run(m, 0);
        let mut want = init.clone();
        reference::short_conv(&bcx, &vec![0.5; dim * kernel], None, &mut want, dim);
        assert_close("conv_state_update", &plan.read_f32(st, want.len()).unwrap(), &want, 0.0, 0.0);
    }
}

#[test]
fn add_rmsnorm_writes_sum_and_norm() {
    let mut r = rng("add_rmsnorm");
    for (dim, m, add_unit) in [(64, 1, false), (333, 3, true), (1024, 2, false), (7, 5, false)] {
        let a = randn(&mut r, m * dim);
        let b = randn(&mut r, m * dim);
        let w = randn(&mut r, dim);
        let mut g = Graph::default();
        let (at, bt, wt) = (f32t(&mut g, "a", &a, dim), f32t(&mut g, "b", &b, dim), f32t(&mut g, "w", &w, dim));
        let sum = g.activation("sum", dim, Rows::Tokens);
        let out = g.activation("out", dim, Rows::Tokens);
        g.push(Op::AddRmsNorm { a: at, b: bt, weight: wt, sum, out, eps: 1e-5, add_unit });
        g.outputs.extend([sum, out]);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: m, ..Default::default() }).unwrap();
        plan.poison_activations();
        plan.run(m, 0);
        let want_sum = reference::add(&a, &b);
        let want = reference::rmsnorm(&want_sum, &w, dim, 1e-5, add_unit);
        assert_close("add_rmsnorm sum", &plan.read_f32(sum, m * dim).unwrap(), &want_sum, 0.0, 0.0);
        assert_close("add_rmsnorm out", &plan.read_f32(out, m * dim).unwrap(), &want, 1e-5, 1e-5);
    }
}
