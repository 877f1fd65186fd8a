//! Kernels added for Qwen3.5 decode/prefill speed, on the real adapter against
//! plain-Rust references (fresh random non-zero inputs, activations poisoned
//! with NaN): the chunked gated delta rule (prefill) against the recurrence, the
//! two-stage argmax against the CPU sampler (ties, NaN, -inf, a 248k vocabulary),
//! the split INT4 matvec (in_proj qkv | a | b | z), the column split, and the
//! sigmoid-gate prologue of the fused matvec.

mod common;

use common::{assert_close, gpu, randn, rng};
use gerbil::graph::hybrid::{DeltaShape, GatedDelta};
use gerbil::graph::ir::{Epilogue, FusedMatvec, MatOut};
use gerbil::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::reference::{self, hybrid, hybrid::DeltaDims};
use gerbil::text::sampling;
use gerbil::weights::int4::Int4Matrix;
use rand::Rng;

fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(&gpu(), label, data, cols).unwrap())
}

fn write(plan: &Plan, t: TensorId, data: &[f32]) {
    gpu().queue.write_buffer(plan.buffer(t), 0, bytemuck::cast_slice(data));
}

/// An activation the test fills before each run: `src + 0` (an op output, so it gets a pool buffer).
fn input(g: &mut Graph, label: &str, width: usize, max: usize) -> (TensorId, TensorId) {
    let src = f32t(g, &format!("{label}_src"), &vec![0.0; max * width], width);
    let zeros = f32t(g, &format!("{label}_zero"), &vec![0.0; max * width], width);
    let t = g.activation(label, width, Rows::Tokens);
    g.push(Op::Add { a: src, b: zeros, out: t });
    (src, t)
}

#[test]
fn chunked_delta_rule_cpu_equals_recurrence() {
    let mut r = rng("chunked_delta_cpu");
    for (k_heads, v_heads, dk, dv, t_len, chunk) in [(2, 4, 16, 24, 70, 64), (1, 2, 32, 16, 33, 8), (2, 2, 8, 8, 5, 64)]
    {
        let d = DeltaDims { k_heads, v_heads, dk, dv };
        let width = 2 * k_heads * dk + v_heads * dv;
        let (qkv, a, b) =
            (randn(&mut r, t_len * width), randn(&mut r, t_len * v_heads), randn(&mut r, t_len * v_heads));
        let (a_log, dt_bias) = (randn(&mut r, v_heads), randn(&mut r, v_heads));
        let s0 = randn(&mut r, v_heads * dk * dv);
        let (mut s_seq, mut s_chunk) = (s0.clone(), s0);
        let want = hybrid::gated_delta(&qkv, &a, &b, &a_log, &dt_bias, &mut s_seq, d);
        let got = hybrid::gated_delta_chunked(&qkv, &a, &b, &a_log, &dt_bias, &mut s_chunk, d, chunk);
        let what = format!("cpu chunked T={t_len} chunk={chunk}");
        assert_close(&what, &got, &want, 1e-4, 1e-4);
        assert_close(&format!("{what} state"), &s_chunk, &s_seq, 1e-4, 1e-4);
    }
}

#[test]
fn chunked_delta_kernel_matches_recurrence() {
    let mut r = rng("gated_delta_chunked");
    // Steps longer than the kernel's 32-token chunk, a one-token step in a prefill plan, dv off the
    // 32-column tile, Qwen3.5's 128 x 128 heads, and state carried between steps.
    for (k_heads, v_heads, dk, dv, steps) in
        [(2, 4, 16, 24, [70usize, 1]), (1, 2, 128, 128, [40, 33]), (2, 2, 40, 70, [3, 32]), (1, 1, 64, 16, [65, 64])]
    {
        let d = DeltaDims { k_heads, v_heads, dk, dv };
        let width = 2 * k_heads * dk + v_heads * dv;
        let a_log = randn(&mut r, v_heads);
        let dt_bias = randn(&mut r, v_heads);
        let mut state = randn(&mut r, v_heads * dk * dv);
        let max = steps[0].max(steps[1]);
        let mut g = Graph::default();
        let (src_qkv, qkv) = input(&mut g, "qkv", width, max);
        let (src_a, a) = input(&mut g, "a", v_heads, max);
        let (src_b, b) = input(&mut g, "b", v_heads, max);
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
        let kernels: Vec<_> = plan.dispatch_specs().map(|s| s.kernel).collect();
        assert_eq!(
            kernels.last(),
            Some(&gerbil::gpu::KernelId::GatedDeltaChunked),
            "prefill plans run the chunked form"
        );
        plan.poison_activations();
        for &m in &steps {
            let (xq, xa, xb) = (randn(&mut r, m * width), randn(&mut r, m * v_heads), randn(&mut r, m * v_heads));
            write(&plan, src_qkv, &xq);
            write(&plan, src_a, &xa);
            write(&plan, src_b, &xb);
            plan.run(m, 0);
            let want = hybrid::gated_delta(&xq, &xa, &xb, &a_log, &dt_bias, &mut state, d);
            let what = format!("gated_delta_chunked {k_heads}k/{v_heads}v dk={dk} dv={dv} m={m}");
            assert_close(&what, &plan.read_f32(out, want.len()).unwrap(), &want, 1e-4, 1e-4);
            assert_close(&format!("{what} state"), &plan.read_f32(st, state.len()).unwrap(), &state, 1e-4, 1e-4);
        }
    }
}

#[test]
fn two_stage_argmax_matches_the_cpu_sampler() {
    let mut r = rng("argmax_two_stage");
    // (n, rows, last_row): one element, one block, a block boundary, Qwen3.5's 248,320 vocabulary.
    for (n, rows, last_row) in [(1, 1, false), (7, 3, true), (2048, 1, false), (2049, 2, true), (248_320, 2, true)] {
        let mut logits = randn(&mut r, n * rows);
        let row = if last_row { rows - 1 } else { 0 };
        if n > 4 {
            // The maximum twice, in different blocks when n allows: the lower index wins.
            let (i, j) = (r.random_range(0..n / 2), r.random_range(n / 2..n));
            logits[row * n + i] = 7.0;
            logits[row * n + j] = 7.0;
            // NaN never wins.
            logits[row * n + (i + 1) % n] = f32::NAN;
        }
        let mut g = Graph::default();
        let (src, lt) = input(&mut g, "logits", n, rows);
        let out = g.bound("token", DeviceTensor::u32(&gpu(), "token", &[u32::MAX]).unwrap());
        g.argmax(lt, out, last_row);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: rows, ..Default::default() }).unwrap();
        plan.poison_activations();
        write(&plan, src, &logits);
        plan.run(rows, 0);
        let got = gpu().read_u32(plan.buffer(out), 1).unwrap()[0];
        let want = sampling::argmax(&logits[row * n..(row + 1) * n]);
        assert_eq!(got, want, "n={n} rows={rows} last_row={last_row}");
    }
    // Rows of -inf and of NaN give 0, as the sampler does.
    for fill in [f32::NEG_INFINITY, f32::NAN] {
        let n = 5000;
        let mut g = Graph::default();
        let lt = f32t(&mut g, "logits", &vec![fill; n], n);
        let out = g.bound("token", DeviceTensor::u32(&gpu(), "token", &[u32::MAX]).unwrap());
        g.argmax(lt, out, false);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: 1, ..Default::default() }).unwrap();
        plan.run(1, 0);
        assert_eq!(gpu().read_u32(plan.buffer(out), 1).unwrap()[0], sampling::argmax(&vec![fill; n]), "{fill}");
    }
}

#[test]
fn two_stage_argmax_per_row() {
    let mut r = rng("argmax_two_stage_rows");
    let (n, m, max_rows) = (5000, 5, 8);
    let mut logits = randn(&mut r, max_rows * n);
    logits[n + 10] = 5.0;
    logits[n + 4500] = 5.0;
    let mut g = Graph::default();
    let (src, l) = input(&mut g, "logits", n, max_rows);
    let out = g.bound("tokens", DeviceTensor::u32(&gpu(), "tokens", &vec![u32::MAX; max_rows]).unwrap());
    g.argmax(l, out, false);
    g.outputs.push(l);
    let plan = Plan::new(&gpu(), g, PlanOptions { max_rows, ..Default::default() }).unwrap();
    plan.poison_activations();
    write(&plan, src, &logits);
    plan.run(m, 0);
    let got = gpu().read_u32(plan.buffer(out), max_rows).unwrap();
    for row in 0..m {
        assert_eq!(got[row], reference::argmax(&logits[row * n..(row + 1) * n]), "row {row}");
    }
    assert_eq!(got[1], 10, "ties pick the lowest index");
    assert!(got[m..].iter().all(|&t| t == u32::MAX), "rows past the step are not written: {got:?}");
}

#[test]
fn split_matvec_and_split_cols() {
    let mut r = rng("split_matvec");
    // Heights like in_proj's qkv | a | b | z (a and b a few heads), and fewer segments.
    for (k, parts, group, rows) in [
        (64, vec![96, 4, 4, 64], 32, 1),
        (256, vec![40, 3, 3, 37], 64, 3),
        (128, vec![33, 31], 32, 1),
        (96, vec![8], 32, 5),
    ] {
        let total: usize = parts.iter().sum();
        let w = randn(&mut r, total * k);
        let q = Int4Matrix::quantize(&w, total, k, group).unwrap();
        let wd = q.dequantize();
        let x = randn(&mut r, rows * k);
        let mut g = Graph::default();
        let xt = f32t(&mut g, "x", &x, k);
        let wt = g.bound("w", DeviceTensor::int4(&gpu(), "w", &q).unwrap());
        let proj = g.activation("proj", total, Rows::Tokens);
        let fused: Vec<TensorId> =
            (0..parts.len()).map(|i| g.activation(format!("f{i}"), parts[i], Rows::Tokens)).collect();
        let split: Vec<TensorId> =
            (0..parts.len()).map(|i| g.activation(format!("s{i}"), parts[i], Rows::Tokens)).collect();
        let mut routed = [None; 4];
        for (s, o) in routed.iter_mut().zip(&fused) {
            *s = Some(*o);
        }
        let unused = g.activation("unused", total, Rows::Tokens);
        let mats = vec![MatOut { w: wt, bias: None, out: unused }];
        g.push(Op::FusedMatvec(FusedMatvec {
            x: xt,
            norm: None,
            gate: None,
            partials_in: None,
            mats,
            epilogue: Epilogue::Split(routed),
        }));
        g.push(Op::MatMul { x: xt, w: wt, bias: None, out: proj, last_row: false });
        g.push(Op::SplitCols { x: proj, outs: split.clone() });
        g.outputs.extend(fused.iter().chain(&split));
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: rows, ..Default::default() }).unwrap();
        plan.poison_activations();
        plan.run(rows, 0);
        let want = reference::matmul(&x, &wd, None, k);
        let mut off = 0;
        for (i, &p) in parts.iter().enumerate() {
            let seg: Vec<f32> =
                (0..rows).flat_map(|row| want[row * total + off..row * total + off + p].to_vec()).collect();
            let what = format!("k={k} parts={parts:?} rows={rows} segment {i}");
            let got_f = plan.read_f32(fused[i], rows * p).unwrap();
            assert_close(&format!("split matvec {what}"), &got_f, &seg, 2e-5 * (k as f32).sqrt(), 1e-5);
            // The plain matvec of the whole matrix then split_cols: the same bits as the fused split.
            assert_close(&format!("split_cols {what}"), &plan.read_f32(split[i], rows * p).unwrap(), &got_f, 0.0, 0.0);
            off += p;
        }
    }
}

#[test]
fn gate_prologue_matches_sigmoid_gate_then_matvec() {
    let mut r = rng("gate_prologue");
    for (k, n, rows) in [(64, 40, 1), (512, 96, 3), (128, 256, 1)] {
        let (x, gate, resid) = (randn(&mut r, rows * k), randn(&mut r, rows * k), randn(&mut r, rows * n));
        let q = Int4Matrix::quantize(&randn(&mut r, n * k), n, k, 32).unwrap();
        let wd = q.dequantize();
        let mut g = Graph::default();
        let (xt, gt) = (f32t(&mut g, "x", &x, k), f32t(&mut g, "gate", &gate, k));
        let rt = f32t(&mut g, "resid", &resid, n);
        let wt = g.bound("w", DeviceTensor::int4(&gpu(), "w", &q).unwrap());
        let y = g.activation("y", n, Rows::Tokens);
        let mats = vec![MatOut { w: wt, bias: None, out: y }];
        let f = FusedMatvec {
            x: xt,
            norm: None,
            gate: Some(gt),
            partials_in: None,
            mats,
            epilogue: Epilogue::Residual(rt),
        };
        g.push(Op::FusedMatvec(f));
        g.outputs.push(y);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: rows, ..Default::default() }).unwrap();
        plan.poison_activations();
        plan.run(rows, 0);
        let gated = hybrid::sigmoid_gate(&x, &gate);
        let want = reference::add(&resid, &reference::matmul(&gated, &wd, None, k));
        let what = format!("gate prologue k={k} n={n} rows={rows}");
        assert_close(&what, &plan.read_f32(y, rows * n).unwrap(), &want, 2e-5 * (k as f32).sqrt(), 1e-5);
    }
}
