//! The fused decode kernels against compositions of the reference ops, on
//! random non-zero inputs, outputs poisoned before the run.

mod common;

use common::{assert_close, gpu, randn, rng, rope_table};
use gerbil::graph::ir::{AttentionDecode, AttnShape, Epilogue, FusedMatvec, MatOut, NormPrologue, RopeAttrs};
use gerbil::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::reference;
use gerbil::weights::int4::Int4Matrix;
use rand::rngs::StdRng;

fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(&gpu(), label, data, cols).unwrap())
}

fn int4(r: &mut StdRng, g: &mut Graph, label: &str, n: usize, k: usize, group: usize) -> (TensorId, Vec<f32>) {
    let q = Int4Matrix::quantize(&randn(r, n * k), n, k, group).unwrap();
    (g.bound(label, DeviceTensor::int4(&gpu(), label, &q).unwrap()), q.dequantize())
}

fn run(g: Graph, pos0: usize) -> Plan {
    let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: 1, ..Default::default() }).unwrap();
    plan.poison_activations();
    plan.run(1, pos0);
    plan
}

#[test]
fn fused_matvec_norm_up_to_four_matrices_bias() {
    let mut r = rng("fused_matvec_norm");
    // The fourth matrix (Qwen3.5's q | gate | k | v) takes no bias.
    for (k, ns, group, add_unit) in [
        (64, vec![40, 16, 16], 32, false),
        (576, vec![576, 192, 9], 64, true),
        (128, vec![7, 300, 1], 128, false),
        (256, vec![64, 64, 32, 33], 32, true),
        (96, vec![5, 1, 40, 70], 32, false),
        // Wide enough for the WIDE layout (two column slots per lane group), whose last
        // workgroup's second slot falls past the end; then with K split over two lane groups.
        (64, vec![16384 + 40, 96], 32, false),
        (2560, vec![16400], 64, true),
    ] {
        let x = randn(&mut r, k);
        let nw = randn(&mut r, k);
        let mut g = Graph::default();
        let xt = f32t(&mut g, "x", &x, k);
        let nwt = f32t(&mut g, "norm", &nw, k);
        let xn = reference::rmsnorm(&x, &nw, k, 1e-5, add_unit);
        let mut mats = vec![];
        let mut want = vec![];
        for (i, &n) in ns.iter().enumerate() {
            let (w, wd) = int4(&mut r, &mut g, &format!("w{i}"), n, k, group);
            let b = randn(&mut r, n);
            let biased = i != 1 && i != 3;
            let bias = biased.then(|| f32t(&mut g, &format!("b{i}"), &b, n));
            let out = g.activation(format!("y{i}"), n, Rows::Tokens);
            want.push((out, reference::matmul(&xn, &wd, biased.then_some(&b[..]), k)));
            mats.push(MatOut { w, bias, out });
        }
        let norm = Some(NormPrologue { weight: nwt, eps: 1e-5, add_unit });
        g.push(Op::FusedMatvec(FusedMatvec {
            x: xt,
            norm,
            gate: None,
            partials_in: None,
            mats,
            epilogue: Epilogue::None,
        }));
        g.outputs.extend(want.iter().map(|w| w.0));
        let plan = run(g, 0);
        for (out, w) in want {
            assert_close(
                &format!("fused k={k} ns={ns:?}"),
                &plan.read_f32(out, w.len()).unwrap(),
                &w,
                2e-5 * (k as f32).sqrt(),
                1e-5,
            );
        }
    }
}

#[test]
fn fused_matvec_swiglu_and_residual_epilogues() {
    let mut r = rng("fused_matvec_epilogues");
    for (k, n) in [(64, 128), (576, 1536), (1536, 576), (64, 16400)] {
        let x = randn(&mut r, k);
        let mut g = Graph::default();
        let xt = f32t(&mut g, "x", &x, k);
        let (wg, gd) = int4(&mut r, &mut g, "gate", n, k, 32);
        let (wu, ud) = int4(&mut r, &mut g, "up", n, k, 32);
        let (wo, od) = int4(&mut r, &mut g, "o", n, k, 32);
        let resid = randn(&mut r, n);
        let rt = f32t(&mut g, "resid", &resid, n);
        let (s, y, unused) = (
            g.activation("s", n, Rows::Tokens),
            g.activation("y", n, Rows::Tokens),
            g.activation("u", n, Rows::Tokens),
        );
        let mats = vec![MatOut { w: wg, bias: None, out: unused }, MatOut { w: wu, bias: None, out: unused }];
        g.push(Op::FusedMatvec(FusedMatvec {
            x: xt,
            norm: None,
            gate: None,
            partials_in: None,
            mats,
            epilogue: Epilogue::SwiGlu { out: s },
        }));
        let mats = vec![MatOut { w: wo, bias: None, out: y }];
        g.push(Op::FusedMatvec(FusedMatvec {
            x: xt,
            norm: None,
            gate: None,
            partials_in: None,
            mats,
            epilogue: Epilogue::Residual(rt),
        }));
        g.outputs.extend([s, y]);
        let plan = run(g, 0);
        let want_s = reference::swiglu(&reference::matmul(&x, &gd, None, k), &reference::matmul(&x, &ud, None, k));
        let want_y = reference::add(&resid, &reference::matmul(&x, &od, None, k));
        let tol = 2e-5 * (k as f32).sqrt();
        assert_close("swiglu epilogue", &plan.read_f32(s, n).unwrap(), &want_s, tol, 1e-5);
        assert_close("residual epilogue", &plan.read_f32(y, n).unwrap(), &want_y, tol, 1e-5);
    }
}

#[test]
fn attention_decode_with_norms_rope_and_append() {
    let mut r = rng("attention_decode");
    // Positions past 1024 take the kernel's multi-chunk path (online softmax across chunks); head_dim
    // 256 leaves 4 key slices per vec4 column, 16 leaves 64. Head dims up to 64 read their first key
    // rows from registers loaded at the start (pos 700: those plus keys past the first 256 and
    // value rows past the prefetched eight of a slice).
    for (nh, nkv, hd, rot, qk_norm, interleaved, pos) in [
        (4, 2, 16, 16, true, false, 0),
        (9, 3, 64, 64, false, false, 37),
        // SmolLM2's shape at the generate bench's mean context (past the eight value rows a slice
        // prefetches) and near its end.
        (9, 3, 64, 64, false, false, 136),
        (9, 3, 64, 64, false, false, 250),
        (3, 1, 64, 32, true, false, 700),
        (6, 2, 32, 16, true, true, 300),
        (4, 1, 128, 64, false, false, 1500),
        (2, 1, 256, 64, true, false, 2100),
    ] {
        let max_seq = pos + 20;
        let (qw, kvw) = (nh * hd, nkv * hd);
        let table = rope_table(max_seq, rot);
        // A cache already holding `pos` random positions.
        let mut cache = reference::KvCache::new(nkv, max_seq, hd);
        cache.append(&randn(&mut r, pos * kvw), &randn(&mut r, pos * kvw), 0);
        let (q, k, v) = (randn(&mut r, qw), randn(&mut r, kvw), randn(&mut r, kvw));
        let (qn, kn) = (randn(&mut r, hd), randn(&mut r, hd));
        let mut g = Graph::default();
        let (qt, kt, vt) = (f32t(&mut g, "q", &q, qw), f32t(&mut g, "k", &k, kvw), f32t(&mut g, "v", &v, kvw));
        let flat: Vec<f32> = table.iter().flatten().copied().collect();
        let cs = f32t(&mut g, "cos_sin", &flat, 2);
        let (qnt, knt) = (f32t(&mut g, "qn", &qn, hd), f32t(&mut g, "kn", &kn, hd));
        let kc = f32t(&mut g, "k_cache", &cache.k, hd);
        let vc = f32t(&mut g, "v_cache", &cache.v, hd);
        let out = g.activation("out", qw, Rows::Tokens);
        let attrs = AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq };
        let rope =
            RopeAttrs { n_q_heads: nh, n_kv_heads: nkv, head_dim: hd, rotary_dim: rot, interleaved, max_pos: max_seq };
        let scale = 1.0 / (hd as f32).sqrt();
        let qk = qk_norm.then_some((qnt, knt, 1e-6));
        g.push(Op::AttentionDecode(AttentionDecode {
            q: qt,
            k: kt,
            v: vt,
            cos_sin: cs,
            qk_norm: qk,
            k_cache: kc,
            v_cache: vc,
            out,
            attrs,
            rope,
            scale,
        }));
        g.outputs.push(out);
        let plan = run(g, pos);
        let (q1, k1) = if qk_norm {
            (reference::rmsnorm(&q, &qn, hd, 1e-6, false), reference::rmsnorm(&k, &kn, hd, 1e-6, false))
        } else {
            (q.clone(), k.clone())
        };
        let q2 = reference::rope(&q1, nh, hd, rot, interleaved, &table, &[pos]);
        let k2 = reference::rope(&k1, nkv, hd, rot, interleaved, &table, &[pos]);
        cache.append(&k2, &v, pos);
        let want = reference::attention(&q2, &cache, nh, pos, scale);
        assert_close(&format!("attention_decode pos={pos}"), &plan.read_f32(out, qw).unwrap(), &want, 2e-5, 1e-4);
        let kbuf = gpu().read_f32(plan.buffer(kc), cache.k.len()).unwrap();
        assert_close("k cache after append", &kbuf, &cache.k, 1e-6, 1e-6);
    }
}

/// Several decode rows in one dispatch (row blocks of 4, a partial last block): norm prologue per row,
/// two matrices, residual and SwiGLU epilogues, each row checked against the reference.
#[test]
fn fused_matvec_many_rows() {
    let mut r = rng("fused_matvec_rows");
    for (rows, k, n) in [(2, 64, 40), (5, 576, 100), (9, 128, 33)] {
        let x = randn(&mut r, rows * k);
        let nw = randn(&mut r, k);
        let resid = randn(&mut r, rows * n);
        let mut g = Graph::default();
        let xt = f32t(&mut g, "x", &x, k);
        let nwt = f32t(&mut g, "norm", &nw, k);
        let rt = f32t(&mut g, "resid", &resid, n);
        let (wa, ad) = int4(&mut r, &mut g, "a", n, k, 32);
        let (wb, bd) = int4(&mut r, &mut g, "b", n, k, 32);
        let (wo, od) = int4(&mut r, &mut g, "o", n, k, 32);
        let (ya, yb, s, y) = (
            g.activation("ya", n, Rows::Tokens),
            g.activation("yb", n, Rows::Tokens),
            g.activation("s", n, Rows::Tokens),
            g.activation("y", n, Rows::Tokens),
        );
        let norm = Some(NormPrologue { weight: nwt, eps: 1e-5, add_unit: false });
        let mats = vec![MatOut { w: wa, bias: None, out: ya }, MatOut { w: wb, bias: None, out: yb }];
        g.push(Op::FusedMatvec(FusedMatvec {
            x: xt,
            norm,
            gate: None,
            partials_in: None,
            mats,
            epilogue: Epilogue::None,
        }));
        let mats = vec![MatOut { w: wa, bias: None, out: ya }, MatOut { w: wo, bias: None, out: yb }];
        g.push(Op::FusedMatvec(FusedMatvec {
            x: xt,
            norm: None,
            gate: None,
            partials_in: None,
            mats,
            epilogue: Epilogue::SwiGlu { out: s },
        }));
        let mats = vec![MatOut { w: wo, bias: None, out: y }];
        g.push(Op::FusedMatvec(FusedMatvec {
            x: xt,
            norm: None,
            gate: None,
            partials_in: None,
            mats,
            epilogue: Epilogue::Residual(rt),
        }));
        g.outputs.extend([ya, yb, s, y]);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: rows, ..Default::default() }).unwrap();
        plan.poison_activations();
        plan.run(rows, 0);
        let xn = reference::rmsnorm(&x, &nw, k, 1e-5, false);
        let want_a = reference::matmul(&xn, &ad, None, k);
        let want_s = reference::swiglu(&reference::matmul(&x, &ad, None, k), &reference::matmul(&x, &od, None, k));
        let want_y = reference::add(&resid, &reference::matmul(&x, &od, None, k));
        let want_b = reference::matmul(&xn, &bd, None, k);
        let tol = 2e-5 * (k as f32).sqrt();
        let what = |s: &str| format!("{s} rows={rows} k={k} n={n}");
        assert_close(&what("norm prologue"), &plan.read_f32(ya, rows * n).unwrap(), &want_a, tol, 1e-5);
        assert_close(&what("second matrix"), &plan.read_f32(yb, rows * n).unwrap(), &want_b, tol, 1e-5);
        assert_close(&what("swiglu"), &plan.read_f32(s, rows * n).unwrap(), &want_s, tol, 1e-5);
        assert_close(&what("residual"), &plan.read_f32(y, rows * n).unwrap(), &want_y, tol, 1e-5);
    }
}
