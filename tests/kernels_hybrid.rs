//! The Qwen3.5 hybrid kernels (causal conv with state, gated delta rule,
//! gated RMSNorm, sigmoid gate) against `reference::hybrid`, on the real
//! adapter with fresh random non-zero inputs and NaN-poisoned outputs. The
//! stateful kernels run two steps so the state carried between them is checked too.

mod common;

use common::{assert_close, gpu, randn, rng};
use gerbil::graph::hybrid::{CausalConv, DeltaConv, DeltaShape, DualRmsNorm, GatedDelta, RmsNormGated, SigmoidGate};
use gerbil::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::reference::{self, hybrid, hybrid::DeltaDims};

fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(&gpu(), label, data, cols).unwrap())
}

/// Activations a test fills per step: for each (name, width) a bound source tensor of `rows` rows
/// (filled with `write`) and the activation `src + 0` (an op output, as the kernels' inputs are).
fn step_inputs<const N: usize>(g: &mut Graph, inputs: [(&str, usize); N], rows: usize) -> [(TensorId, TensorId); N] {
    inputs.map(|(name, w)| {
        let src = f32t(g, &format!("src_{name}"), &vec![0.0; rows * w], w);
        let zeros = f32t(g, &format!("z_{name}"), &vec![0.0; rows * w], w);
        let out = g.activation(name, w, Rows::Tokens);
        g.push(Op::Add { a: src, b: zeros, out });
        (src, out)
    })
}

/// Writes `data` into the activation buffer of `t` (the op's input for this step).
fn write(plan: &Plan, t: TensorId, data: &[f32]) {
    gpu().queue.write_buffer(plan.buffer(t), 0, bytemuck::cast_slice(data));
}

#[test]
fn causal_conv_carries_state_across_steps() {
    let mut r = rng("causal_conv");
    // Positions start at pos0 (0: the window starts with zeros; else the random ring holds
    // earlier inputs); chunks longer than the ring check the write of its last slots.
    for (channels, kernel, steps, pos0) in [
        (70, 4, [5usize, 1], 0usize),
        (128, 4, [1, 1], 9),
        (33, 3, [7, 3], 2),
        (200, 2, [2, 1], 5),
        (64, 4, [1, 1], 1),
        (40, 4, [2, 9], 13),
    ] {
        let w = randn(&mut r, channels * kernel);
        let mut state = randn(&mut r, channels * kernel);
        let mut g = Graph::default();
        let max = steps[0].max(steps[1]);
        // The input is an activation written by a copy-free trick: bind it as an f32 tensor per step.
        let x_all: Vec<Vec<f32>> = steps.iter().map(|&m| randn(&mut r, m * channels)).collect();
        let xt = g.activation("x", channels, Rows::Tokens);
        let wt = f32t(&mut g, "w", &w, kernel);
        let st = f32t(&mut g, "state", &state, kernel);
        let out = g.activation("out", channels, Rows::Tokens);
        // An Add of x with zeros makes x an op output the test can fill.
        let zeros = f32t(&mut g, "zeros", &vec![0.0; max * channels], channels);
        let src = f32t(&mut g, "src", &vec![0.0; max * channels], channels);
        g.push(Op::Add { a: src, b: zeros, out: xt });
        g.push(Op::CausalConv(CausalConv { x: xt, weight: wt, state: st, out, channels, kernel }));
        g.outputs.push(out);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: max, ..Default::default() }).unwrap();
        plan.poison_activations();
        let mut pos = pos0;
        for (m, x) in steps.iter().zip(&x_all) {
            write(&plan, src, x);
            plan.run(*m, pos);
            let want = hybrid::causal_conv(x, &w, &mut state, channels, kernel, pos);
            pos += m;
            let what = format!("causal_conv c={channels} k={kernel} m={m} pos={pos}");
            assert_close(&what, &plan.read_f32(out, m * channels).unwrap(), &want, 1e-5, 1e-5);
            assert_close(&format!("{what} state"), &plan.read_f32(st, state.len()).unwrap(), &state, 0.0, 0.0);
        }
    }
}

#[test]
fn gated_delta_carries_state_across_steps() {
    let mut r = rng("gated_delta");
    for (k_heads, v_heads, dk, dv, steps) in
        // Steps of one token plan the recurrent (decode) kernel, longer ones the chunked one.
        [
            (2, 4, 16, 16, [6usize, 1]),
            (1, 1, 128, 128, [1, 1]),
            (2, 2, 40, 70, [3, 2]),
            (4, 8, 64, 130, [1, 4]),
            (2, 4, 16, 16, [1, 1]),
            (2, 2, 44, 70, [1, 1]),
            (1, 2, 256, 33, [1, 1]),
        ]
    {
        let d = DeltaDims { k_heads, v_heads, dk, dv };
        let width = 2 * k_heads * dk + v_heads * dv;
        let a_log = randn(&mut r, v_heads);
        let dt_bias = randn(&mut r, v_heads);
        let mut state = randn(&mut r, v_heads * dk * dv);
        let max = steps[0].max(steps[1]);
        let mut g = Graph::default();
        let [(src_qkv, qkv), (src_a, a), (src_b, b)] =
            step_inputs(&mut g, [("qkv", width), ("a", v_heads), ("b", v_heads)], max);
        let (alt, dtt) = (f32t(&mut g, "a_log", &a_log, v_heads), f32t(&mut g, "dt_bias", &dt_bias, v_heads));
        let st = f32t(&mut g, "state", &state, dv);
        let out = g.activation("out", v_heads * dv, Rows::Tokens);
        let attrs = DeltaShape { k_heads, v_heads, dk, dv };
        g.push(Op::GatedDelta(GatedDelta {
            qkv,
            a,
            b,
            a_log: alt,
            dt_bias: dtt,
            state: st,
            out,
            attrs,
            conv: None,
            rows: None,
        }));
        g.outputs.push(out);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: max, ..Default::default() }).unwrap();
        plan.poison_activations();
        for &m in &steps {
            let (xq, xa, xb) = (randn(&mut r, m * width), randn(&mut r, m * v_heads), randn(&mut r, m * v_heads));
            write(&plan, src_qkv, &xq);
            write(&plan, src_a, &xa);
            write(&plan, src_b, &xb);
            plan.run(m, 0);
            let want = hybrid::gated_delta(&xq, &xa, &xb, &a_log, &dt_bias, &mut state, d);
            let what = format!("gated_delta {k_heads}k/{v_heads}v dk={dk} dv={dv} m={m}");
            assert_close(&what, &plan.read_f32(out, want.len()).unwrap(), &want, 2e-5, 1e-4);
            assert_close(&format!("{what} state"), &plan.read_f32(st, state.len()).unwrap(), &state, 2e-5, 1e-4);
        }
    }
}

/// The decode gated delta kernel with the causal conv folded in (`delta_conv` pass) against
/// the reference conv then delta rule, over decode steps from position 0 (the window's
/// zeros) on, with several workgroups per head reading the q/k channels whose ring slots
/// one of them rewrites.
#[test]
fn gated_delta_with_fused_conv_matches_conv_then_delta() {
    let mut r = rng("gated_delta_conv");
    for (k_heads, v_heads, dk, dv, kernel) in [(1, 1, 128, 128, 4), (2, 4, 16, 70, 4), (2, 2, 44, 33, 3)] {
        let d = DeltaDims { k_heads, v_heads, dk, dv };
        let width = 2 * k_heads * dk + v_heads * dv;
        let (a_log, dt_bias) = (randn(&mut r, v_heads), randn(&mut r, v_heads));
        let conv_w = randn(&mut r, width * kernel);
        let mut conv_state = vec![0.0; width * kernel];
        let mut state = randn(&mut r, v_heads * dk * dv);
        let mut g = Graph::default();
        let [(src_x, x), (src_a, a), (src_b, b)] =
            step_inputs(&mut g, [("x", width), ("a", v_heads), ("b", v_heads)], 1);
        let (alt, dtt) = (f32t(&mut g, "a_log", &a_log, v_heads), f32t(&mut g, "dt_bias", &dt_bias, v_heads));
        let (cw, cs) = (f32t(&mut g, "conv_w", &conv_w, kernel), f32t(&mut g, "conv_state", &conv_state, kernel));
        let st = f32t(&mut g, "state", &state, dv);
        let out = g.activation("out", v_heads * dv, Rows::Tokens);
        let attrs = DeltaShape { k_heads, v_heads, dk, dv };
        let conv = Some(DeltaConv { weight: cw, state: cs, kernel });
        g.push(Op::GatedDelta(GatedDelta {
            qkv: x,
            a,
            b,
            a_log: alt,
            dt_bias: dtt,
            state: st,
            out,
            attrs,
            conv,
            rows: None,
        }));
        g.outputs.push(out);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: 1, ..Default::default() }).unwrap();
        plan.poison_activations();
        for pos in 0..kernel + 2 {
            let (xr, xa, xb) = (randn(&mut r, width), randn(&mut r, v_heads), randn(&mut r, v_heads));
            write(&plan, src_x, &xr);
            write(&plan, src_a, &xa);
            write(&plan, src_b, &xb);
            plan.run(1, pos);
            let conv_out = hybrid::causal_conv(&xr, &conv_w, &mut conv_state, width, kernel, pos);
            let want = hybrid::gated_delta(&conv_out, &xa, &xb, &a_log, &dt_bias, &mut state, d);
            let what = format!("gated_delta+conv {k_heads}k/{v_heads}v dk={dk} dv={dv} K={kernel} pos={pos}");
            assert_close(&what, &plan.read_f32(out, want.len()).unwrap(), &want, 2e-5, 1e-4);
            assert_close(&format!("{what} state"), &plan.read_f32(st, state.len()).unwrap(), &state, 2e-5, 1e-4);
            let ring = plan.read_f32(cs, conv_state.len()).unwrap();
            assert_close(&format!("{what} conv ring"), &ring, &conv_state, 0.0, 0.0);
        }
    }
}

/// A batched decode step of the fused conv + delta rule: each row one token of the sequence in its own
/// slot at its own position (0: the window's zeros), with that slot's conv ring and delta state; idle
/// slots' states untouched. Several steps, rows changing order and membership.
#[test]
fn gated_delta_conv_rows_each_with_its_slots_states() {
    let mut r = rng("gated_delta_conv_rows");
    for (k_heads, v_heads, dk, dv, kernel) in [(1, 1, 128, 128, 4), (2, 4, 16, 70, 4), (2, 2, 44, 33, 3)] {
        let slots = 4;
        let d = DeltaDims { k_heads, v_heads, dk, dv };
        let width = 2 * k_heads * dk + v_heads * dv;
        let (ring, region) = (width * kernel, v_heads * dk * dv);
        let (a_log, dt_bias) = (randn(&mut r, v_heads), randn(&mut r, v_heads));
        let conv_w = randn(&mut r, width * kernel);
        // Slots mid-sequence hold earlier inputs in their rings; slot 0 starts at position 0 below.
        let mut rings = randn(&mut r, slots * ring);
        let mut states = randn(&mut r, slots * region);
        rings[..ring].fill(0.0);
        states[..region].fill(0.0);
        let mut pos = [0usize, 11, 5, 2];
        let mut g = Graph::default();
        let [(src_x, x), (src_a, a), (src_b, b)] =
            step_inputs(&mut g, [("x", width), ("a", v_heads), ("b", v_heads)], slots);
        let (alt, dtt) = (f32t(&mut g, "a_log", &a_log, v_heads), f32t(&mut g, "dt_bias", &dt_bias, v_heads));
        let (cw, cs) = (f32t(&mut g, "conv_w", &conv_w, kernel), f32t(&mut g, "conv_states", &rings, kernel));
        let st = f32t(&mut g, "states", &states, dv);
        let rows_t = g.bound("rows", DeviceTensor::u32(&gpu(), "rows", &[0; 2 * 4]).unwrap());
        let out = g.activation("out", v_heads * dv, Rows::Tokens);
        let attrs = DeltaShape { k_heads, v_heads, dk, dv };
        let conv = Some(DeltaConv { weight: cw, state: cs, kernel });
        let rows = Some(rows_t);
        g.push(Op::GatedDelta(GatedDelta {
            qkv: x,
            a,
            b,
            a_log: alt,
            dt_bias: dtt,
            state: st,
            out,
            attrs,
            conv,
            rows,
        }));
        g.outputs.push(out);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: slots, ..Default::default() }).unwrap();
        plan.poison_activations();
        for step_slots in [vec![2usize, 0, 3], vec![0, 2], vec![3, 1, 0, 2], vec![1]] {
            let m = step_slots.len();
            let (xr, xa, xb) = (randn(&mut r, m * width), randn(&mut r, m * v_heads), randn(&mut r, m * v_heads));
            write(&plan, src_x, &xr);
            write(&plan, src_a, &xa);
            write(&plan, src_b, &xb);
            let pairs: Vec<u32> = step_slots.iter().flat_map(|&s| [s as u32, pos[s] as u32]).collect();
            gpu().queue.write_buffer(plan.buffer(rows_t), 0, bytemuck::cast_slice(&pairs));
            // The step's pos0 is not the rows' positions: the kernel must read its row's.
            plan.run(m, 1000);
            let mut want = Vec::new();
            for (row, &slot) in step_slots.iter().enumerate() {
                let ring_s = &mut rings[slot * ring..(slot + 1) * ring];
                let conv_out =
                    hybrid::causal_conv(&xr[row * width..(row + 1) * width], &conv_w, ring_s, width, kernel, pos[slot]);
                let (ra, rb) = (&xa[row * v_heads..(row + 1) * v_heads], &xb[row * v_heads..(row + 1) * v_heads]);
                let state_s = &mut states[slot * region..(slot + 1) * region];
                want.extend(hybrid::gated_delta(&conv_out, ra, rb, &a_log, &dt_bias, state_s, d));
                pos[slot] += 1;
            }
            let what =
                format!("gated_delta_conv_rows {k_heads}k/{v_heads}v dk={dk} dv={dv} K={kernel} slots {step_slots:?}");
            assert_close(&what, &plan.read_f32(out, want.len()).unwrap(), &want, 2e-5, 1e-4);
            assert_close(&format!("{what} states"), &plan.read_f32(st, states.len()).unwrap(), &states, 2e-5, 1e-4);
            assert_close(&format!("{what} conv rings"), &plan.read_f32(cs, rings.len()).unwrap(), &rings, 0.0, 0.0);
        }
    }
}

#[test]
fn rmsnorm_gated_and_sigmoid_gate() {
    let mut r = rng("rmsnorm_gated");
    for (dim, rows, m) in [(16, 4, 3), (128, 16, 1), (100, 3, 5)] {
        let n = m * dim * rows;
        let (x, z, w) = (randn(&mut r, n), randn(&mut r, n), randn(&mut r, dim));
        let mut g = Graph::default();
        let (xt, zt, wt) =
            (f32t(&mut g, "x", &x, dim * rows), f32t(&mut g, "z", &z, dim * rows), f32t(&mut g, "w", &w, dim));
        let out = g.activation("y", dim * rows, Rows::Tokens);
        g.push(Op::RmsNormGated(RmsNormGated { x: xt, z: zt, weight: wt, out, dim, rows_per_token: rows, eps: 1e-6 }));
        let gated = g.activation("gated", dim * rows, Rows::Tokens);
        g.push(Op::SigmoidGate(SigmoidGate { x: xt, gate: zt, out: gated }));
        g.outputs.extend([out, gated]);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: m, ..Default::default() }).unwrap();
        plan.poison_activations();
        plan.run(m, 0);
        let want = hybrid::rmsnorm_gated(&x, &z, &w, dim, 1e-6);
        assert_close("rmsnorm_gated", &plan.read_f32(out, n).unwrap(), &want, 1e-5, 1e-5);
        let want = hybrid::sigmoid_gate(&x, &z);
        assert_close("sigmoid_gate", &plan.read_f32(gated, n).unwrap(), &want, 1e-6, 1e-6);
    }
}

#[test]
fn dual_rmsnorm_matches_two_norms() {
    let mut r = rng("dual_rmsnorm");
    for (dim, q_rows, k_rows, m, add_unit) in [(16, 4, 2, 1, true), (256, 8, 2, 3, true), (100, 3, 1, 2, false)] {
        let (q, k) = (randn(&mut r, m * q_rows * dim), randn(&mut r, m * k_rows * dim));
        let (qw, kw) = (randn(&mut r, dim), randn(&mut r, dim));
        let mut g = Graph::default();
        let (qt, kt) = (f32t(&mut g, "q", &q, q_rows * dim), f32t(&mut g, "k", &k, k_rows * dim));
        let (qwt, kwt) = (f32t(&mut g, "qw", &qw, dim), f32t(&mut g, "kw", &kw, dim));
        let q_out = g.activation("q_out", q_rows * dim, Rows::Tokens);
        let k_out = g.activation("k_out", k_rows * dim, Rows::Tokens);
        g.push(Op::DualRmsNorm(DualRmsNorm {
            q: qt,
            q_weight: qwt,
            q_out,
            q_rows,
            k: kt,
            k_weight: kwt,
            k_out,
            k_rows,
            dim,
            eps: 1e-6,
            add_unit,
        }));
        g.outputs.extend([q_out, k_out]);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: m, ..Default::default() }).unwrap();
        plan.poison_activations();
        plan.run(m, 0);
        let want_q = reference::rmsnorm(&q, &qw, dim, 1e-6, add_unit);
        let want_k = reference::rmsnorm(&k, &kw, dim, 1e-6, add_unit);
        assert_close("dual_rmsnorm q", &plan.read_f32(q_out, q.len()).unwrap(), &want_q, 1e-5, 1e-5);
        assert_close("dual_rmsnorm k", &plan.read_f32(k_out, k.len()).unwrap(), &want_k, 1e-5, 1e-5);
    }
}
