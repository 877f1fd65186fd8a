//! Every WGSL kernel against the plain-Rust reference, on the real adapter,
//! with fresh random non-zero inputs, shapes off the tile sizes, and outputs
//! poisoned with NaN before each run.

mod common;

use std::sync::Arc;

use common::{assert_close, gpu, randn, rng};
use gerbil::gpu::KernelId;
use gerbil::graph::ir::{AttnShape, RopeAttrs};
use gerbil::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::reference;
use gerbil::weights::int4::Int4Matrix;
use rand::Rng;

fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(&gpu(), label, data, cols).unwrap())
}

/// Builds, poisons, runs one step and returns the plan for reading outputs.
fn run(g: Graph, n_tokens: usize, pos0: usize, max_tokens: usize) -> Plan {
    let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: max_tokens, ..Default::default() }).unwrap();
    plan.poison_activations();
    plan.run(n_tokens, pos0);
    plan
}

#[test]
fn embed_f32_and_int4() {
    let mut r = rng("embed");
    for (vocab, width, m) in [(37, 64, 5), (11, 96, 1), (50, 256, 9)] {
        let table = randn(&mut r, vocab * width);
        let tokens: Vec<u32> = (0..m).map(|_| r.random_range(0..vocab as u32)).collect();
        let q = Int4Matrix::quantize(&table, vocab, width, 32).unwrap();
        for int4 in [false, true] {
            let mut g = Graph::default();
            let tok = g.bound("tokens", DeviceTensor::u32(&gpu(), "tokens", &tokens).unwrap());
            let tab = if int4 {
                g.bound("table", DeviceTensor::int4(&gpu(), "table", &q).unwrap())
            } else {
                f32t(&mut g, "table", &table, width)
            };
            let out = g.activation("out", width, Rows::Tokens);
            g.push(Op::Embed { tokens: tok, table: tab, out });
            g.outputs.push(out);
            let plan = run(g, m, 0, m);
            let src = if int4 { q.dequantize() } else { table.clone() };
            let want = reference::embed(&src, width, &tokens);
            // f32 rows are copied exactly; an INT4 row is s * q + m, which a driver may contract
            // into one FMA (NVIDIA's does): the product is not rounded, which moves the result by up
            // to an ulp of s * q, not of the result (m cancels part of it: 2 ulps of the result were
            // measured on the H200). |s * q| <= 2 max |table|.
            let max = table.iter().fold(0f32, |a, v| a.max(v.abs()));
            let atol = if int4 { f32::EPSILON * 2.0 * max } else { 0.0 };
            assert_close("embed", &plan.read_f32(out, m * width).unwrap(), &want, atol, 0.0);
        }
    }
}

#[test]
fn rmsnorm_rows_and_heads() {
    let mut r = rng("rmsnorm");
    for (dim, rpt, m, add_unit) in [(64, 1, 3, false), (100, 1, 1, true), (333, 2, 4, false), (16, 4, 7, true)] {
        let x = randn(&mut r, m * dim * rpt);
        let w = randn(&mut r, dim);
        let mut g = Graph::default();
        let xt = f32t(&mut g, "x", &x, dim * rpt);
        let wt = f32t(&mut g, "w", &w, dim);
        let out = g.activation("y", dim * rpt, Rows::Tokens);
        g.push(Op::RmsNorm { x: xt, weight: wt, out, dim, rows_per_token: rpt, eps: 1e-5, add_unit });
        g.outputs.push(out);
        let plan = run(g, m, 0, m);
        let want = reference::rmsnorm(&x, &w, dim, 1e-5, add_unit);
        assert_close("rmsnorm", &plan.read_f32(out, x.len()).unwrap(), &want, 1e-5, 1e-5);
    }
}

/// Rows of small values (|x| ~ 1e-3, so mean(x^2) ~ 3.5e-7) where eps is not negligible: it is
/// 3 to 30 times mean(x^2) at eps 1e-6 and 1e-5. Moving eps (rsqrt(mean) + eps, or dropping it)
/// changes the output by 41% or more (a factor of 1.4 to 5.5), against a tolerance of 6e-6 to 4.3e-5.
///
/// Tolerance from the error budget, relative to each output (y = x * inv * g is a product, so its
/// errors are relative to y itself; u = 2^-24): the sum of dim positive squares has relative error
/// below (dim - 1) u sequentially (the reference) and below (dim / 256 + 8) u as the kernel adds
/// them (strided partials, then a tree), so the two sums differ by at most ~(dim + 8) u; dividing
/// by dim and adding eps cost 2 u; the square root halves the relative error; WGSL's inverseSqrt
/// may be off by 2 ulp and the reference's sqrt and division round twice (4 u each way, say);
/// x * inv * g rounds twice on each side (4 u). In all (dim + 8) u / 2 + 12 u < (dim + 32) u, and
/// rtol = (dim + 32) * EPSILON (EPSILON = 2 u) is twice that: 5.7e-6 to 4.3e-5 for the dims below.
#[test]
fn rmsnorm_small_rows_where_eps_matters() {
    let mut r = rng("rmsnorm_eps");
    for (dim, rpt, m, add_unit, eps) in
        [(64, 1, 3, false, 1e-5), (333, 2, 4, false, 1e-6), (100, 1, 2, true, 1e-5), (16, 4, 7, true, 1e-6)]
    {
        let x: Vec<f32> = randn(&mut r, m * dim * rpt).iter().map(|v| v * 1e-3).collect();
        let w = randn(&mut r, dim);
        let mut g = Graph::default();
        let xt = f32t(&mut g, "x", &x, dim * rpt);
        let wt = f32t(&mut g, "w", &w, dim);
        let out = g.activation("y", dim * rpt, Rows::Tokens);
        g.push(Op::RmsNorm { x: xt, weight: wt, out, dim, rows_per_token: rpt, eps, add_unit });
        g.outputs.push(out);
        let plan = run(g, m, 0, m);
        let want = reference::rmsnorm(&x, &w, dim, eps, add_unit);
        let rtol = (dim as f32 + 32.0) * f32::EPSILON;
        assert_close("rmsnorm, small rows", &plan.read_f32(out, x.len()).unwrap(), &want, 0.0, rtol);
        // The inputs do make eps matter: the output without it is far off.
        let without = reference::rmsnorm(&x, &w, dim, 0.0, add_unit);
        let moved: f32 = want.iter().zip(&without).map(|(a, b)| (a - b).abs() / a.abs()).fold(f32::INFINITY, f32::min);
        assert!(moved > 0.3, "dim {dim} eps {eps}: eps moves the output by only {moved}");
    }
}

/// One matmul op over f32 or INT4 weights, with or without bias / last_row.
fn check_matmul(
    m: usize,
    n: usize,
    k: usize,
    int4_group: Option<usize>,
    bias: bool,
    last_row: bool,
    max_tokens: usize,
) -> KernelId {
    let mut r = rng("matmul");
    let x = randn(&mut r, m * k);
    let w = randn(&mut r, n * k);
    let b = randn(&mut r, n);
    let mut g = Graph::default();
    let xt = f32t(&mut g, "x", &x, k);
    let (wt, w_eff) = match int4_group {
        Some(group) => {
            let q = Int4Matrix::quantize(&w, n, k, group).unwrap();
            (g.bound("w", DeviceTensor::int4(&gpu(), "w", &q).unwrap()), q.dequantize())
        }
        None => (f32t(&mut g, "w", &w, k), w.clone()),
    };
    let bt = bias.then(|| f32t(&mut g, "b", &b, n));
    let rows = if last_row { Rows::One } else { Rows::Tokens };
    let out = g.activation("y", n, rows);
    g.push(Op::MatMul { x: xt, w: wt, bias: bt, out, last_row });
    g.outputs.push(out);
    let plan = run(g, m, 0, max_tokens);
    let kernel = plan.dispatch_specs().next().unwrap().kernel;
    let xs = if last_row { &x[(m - 1) * k..] } else { &x[..] };
    let want = reference::matmul(xs, &w_eff, bias.then_some(&b[..]), k);
    let got = plan.read_f32(out, want.len()).unwrap();
    let what = format!("{kernel:?} m={m} n={n} k={k} group={int4_group:?} bias={bias} last_row={last_row}");
    assert_close(&what, &got, &want, 2e-5 * (k as f32).sqrt(), 1e-5);
    kernel
}

#[test]
fn matvec_f32_shapes() {
    for (n, k) in [(1, 1), (7, 13), (100, 64), (257, 300), (1030, 40)] {
        check_matmul(1, n, k, None, false, false, 1);
        check_matmul(1, n, k, None, true, false, 1);
    }
    check_matmul(6, 33, 70, None, true, true, 6);
}

#[test]
fn matmul_f32_tiled_shapes() {
    for (m, n, k) in [(2, 5, 3), (33, 65, 31), (70, 130, 100), (32, 64, 64), (5, 200, 257)] {
        check_matmul(m, n, k, None, m % 2 == 0, false, m.max(2));
    }
}

#[test]
fn matvec_int4_shapes() {
    for (n, k, group) in [(1, 32, 32), (9, 64, 32), (100, 256, 64), (257, 576, 64), (300, 896, 128)] {
        check_matmul(1, n, k, Some(group), false, false, 1);
        check_matmul(1, n, k, Some(group), true, false, 1);
    }
    check_matmul(5, 70, 128, Some(32), true, true, 5);
    // Wide: the WIDE layout's two column slots per lane group, the last past the end.
    check_matmul(1, 16384 + 70, 96, Some(32), true, false, 1);
    check_matmul(1, 16384 + 8, 64, Some(32), false, true, 1);
    // Wider (lm_head-like): the streaming layout, whose workgroups walk six column blocks each (the
    // last workgroup fewer, the last block past the end); K of one lane step (x kept in registers)
    // and of two and three steps (the last one part empty), two group sizes.
    for (n, k, group, bias, last_row) in [
        (49152 + 70, 96, 32, true, false),
        (49152 + 8, 64, 32, false, true),
        (49152 + 100, 1056, 32, true, false),
        (49152 + 33, 2080, 32, false, false),
        (49152 + 300, 512, 64, true, false),
    ] {
        let kernel = check_matmul(1, n, k, Some(group), bias, last_row, 1);
        assert_eq!(kernel, KernelId::MatvecInt4Stream, "{n} x {k} runs in the streaming layout");
    }
    // Deep K: 2, 4 (one part empty) and 8 lane groups share each column's K, one and several rows.
    for (n, k, group) in [(70, 4096, 32), (33, 4864, 32), (17, 3584, 64), (9, 9024, 32)] {
        check_matmul(1, n, k, Some(group), n % 2 == 1, false, 1);
    }
    check_matmul(6, 40, 4608, Some(32), false, false, 6);
    check_matmul(3, 50, 2080, Some(32), true, true, 3);
}

/// Two streaming matvecs in one pass, run in three submissions with every output poisoned in
/// between: each run writes every column (a block left unwritten keeps its NaN).
#[test]
fn matvec_int4_stream_repeated() {
    let (k, n1, n2) = (128, 49152 + 200, 60000);
    let mut r = rng("stream repeated");
    let x = randn(&mut r, k);
    let mut g = Graph::default();
    let xt = f32t(&mut g, "x", &x, k);
    let mut want = Vec::new();
    let mut outs = Vec::new();
    for (i, n) in [n1, n2].into_iter().enumerate() {
        let q = Int4Matrix::quantize(&randn(&mut r, n * k), n, k, 32).unwrap();
        let w = g.bound(format!("w{i}"), DeviceTensor::int4(&gpu(), "w", &q).unwrap());
        let out = g.activation(format!("y{i}"), n, Rows::Tokens);
        g.push(Op::MatMul { x: xt, w, bias: None, out, last_row: false });
        g.outputs.push(out);
        want.push(reference::matmul(&x, &q.dequantize(), None, k));
        outs.push(out);
    }
    let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: 1, ..Default::default() }).unwrap();
    assert!(plan.dispatch_specs().all(|s| s.kernel == KernelId::MatvecInt4Stream));
    for round in 0..3 {
        plan.poison_activations();
        plan.run(1, 0);
        for (out, want) in outs.iter().zip(&want) {
            let got = plan.read_f32(*out, want.len()).unwrap();
            assert_close(&format!("round {round}, {} columns", want.len()), &got, want, 2e-5 * (k as f32).sqrt(), 1e-5);
        }
    }
}

#[test]
fn matmul_int4_tiled_shapes() {
    for (m, n, k, group) in [(2, 3, 32, 32), (33, 65, 96, 32), (70, 130, 256, 128), (17, 200, 576, 64)] {
        check_matmul(m, n, k, Some(group), m % 2 == 1, false, m);
    }
}

fn cos_sin_table(max_pos: usize, rotary: usize, theta: f32) -> Vec<[f32; 2]> {
    let half = rotary / 2;
    (0..max_pos)
        .flat_map(|p| {
            (0..half).map(move |i| {
                let inv = 1.0 / theta.powf(2.0 * i as f32 / rotary as f32);
                let a = p as f32 * inv;
                [a.cos(), a.sin()]
            })
        })
        .collect()
}

#[test]
fn rope_neox_interleaved_partial() {
    let mut r = rng("rope");
    for (nq, nkv, hd, rot, inter, m, pos0) in
        [(4, 2, 16, 16, false, 5, 0), (3, 1, 32, 16, false, 3, 7), (2, 2, 8, 8, true, 4, 11)]
    {
        let max_pos = 64;
        let q = randn(&mut r, m * nq * hd);
        let k = randn(&mut r, m * nkv * hd);
        let table = cos_sin_table(max_pos, rot, 10000.0);
        let mut g = Graph::default();
        let qt = f32t(&mut g, "q", &q, nq * hd);
        let kt = f32t(&mut g, "k", &k, nkv * hd);
        let flat: Vec<f32> = table.iter().flatten().copied().collect();
        let cs = f32t(&mut g, "cos_sin", &flat, 2);
        let qo = g.activation("q_out", nq * hd, Rows::Tokens);
        let ko = g.activation("k_out", nkv * hd, Rows::Tokens);
        let attrs =
            RopeAttrs { n_q_heads: nq, n_kv_heads: nkv, head_dim: hd, rotary_dim: rot, interleaved: inter, max_pos };
        g.push(Op::Rope { q: qt, k: kt, cos_sin: cs, q_out: qo, k_out: ko, attrs, rows: None });
        g.outputs.extend([qo, ko]);
        let plan = run(g, m, pos0, m);
        let pos: Vec<usize> = (pos0..pos0 + m).collect();
        let wq = reference::rope(&q, nq, hd, rot, inter, &table, &pos);
        let wk = reference::rope(&k, nkv, hd, rot, inter, &table, &pos);
        assert_close("rope q", &plan.read_f32(qo, q.len()).unwrap(), &wq, 1e-6, 1e-6);
        assert_close("rope k", &plan.read_f32(ko, k.len()).unwrap(), &wk, 1e-6, 1e-6);
    }
}

/// KV append then attention, over two consecutive steps (a prefill chunk then
/// a decode-sized step), so cached keys from the first step are attended.
#[test]
fn kv_append_and_attention_gqa() {
    let mut r = rng("attention");
    // hd 16: attention.wgsl; hd % 32 == 0 with several rows: attention_tiled.wgsl (several query
    // tiles, a partial last tile, chunked prefill at pos0 > 0, head_dim up to 256, 96 = 3 chunks).
    let cases = [
        (4, 2, 16, 5, 1, 32),
        (6, 3, 64, 300, 2, 400),
        (2, 1, 128, 1, 3, 8),
        (8, 2, 256, 40, 33, 80),
        (3, 1, 96, 37, 5, 50),
    ];
    for (nh, nkv, hd, m1, m2, max_seq) in cases {
        let scale = 1.0 / (hd as f32).sqrt();
        let mut cache = reference::KvCache::new(nkv, max_seq, hd);
        let kc = DeviceTensor::zeros(&gpu(), "k_cache", nkv * max_seq * hd, hd).unwrap();
        let vc = DeviceTensor::zeros(&gpu(), "v_cache", nkv * max_seq * hd, hd).unwrap();
        let mut pos0 = 0;
        for m in [m1, m2] {
            let q = randn(&mut r, m * nh * hd);
            let k = randn(&mut r, m * nkv * hd);
            let v = randn(&mut r, m * nkv * hd);
            let mut g = Graph::default();
            let (qt, kt, vt) =
                (f32t(&mut g, "q", &q, nh * hd), f32t(&mut g, "k", &k, nkv * hd), f32t(&mut g, "v", &v, nkv * hd));
            let (kct, vct) = (g.bound("kc", Arc::clone(&kc)), g.bound("vc", Arc::clone(&vc)));
            let out = g.activation("out", nh * hd, Rows::Tokens);
            let shape = AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq };
            g.push(Op::KvAppend { k: kt, v: vt, k_cache: kct, v_cache: vct, attrs: shape, rows: None });
            g.push(Op::Attention { q: qt, k_cache: kct, v_cache: vct, out, attrs: shape, scale, rows: None });
            g.outputs.push(out);
            let plan = run(g, m, pos0, m);
            cache.append(&k, &v, pos0);
            let want = reference::attention(&q, &cache, nh, pos0, scale);
            assert_close(
                &format!("attention m={m} pos0={pos0} hd={hd}"),
                &plan.read_f32(out, q.len()).unwrap(),
                &want,
                2e-5,
                1e-4,
            );
            let kv = gpu()
                .read_f32(
                    match kc.as_ref() {
                        DeviceTensor::F32 { buf, .. } => buf,
                        _ => unreachable!(),
                    },
                    cache.k.len(),
                )
                .unwrap();
            assert_close("k cache", &kv, &cache.k, 0.0, 0.0);
            pos0 += m;
        }
    }
}

#[test]
fn swiglu_and_add() {
    let mut r = rng("eltwise");
    for (width, m) in [(1, 1), (300, 3), (1000, 2)] {
        let a = randn(&mut r, m * width);
        let b = randn(&mut r, m * width);
        let mut g = Graph::default();
        let (at, bt) = (f32t(&mut g, "a", &a, width), f32t(&mut g, "b", &b, width));
        let s = g.activation("s", width, Rows::Tokens);
        let t = g.activation("t", width, Rows::Tokens);
        g.push(Op::SwiGlu { gate: at, up: bt, out: s });
        g.push(Op::Add { a: at, b: bt, out: t });
        g.outputs.extend([s, t]);
        let plan = run(g, m, 0, m);
        assert_close("swiglu", &plan.read_f32(s, a.len()).unwrap(), &reference::swiglu(&a, &b), 1e-6, 1e-5);
        assert_close("add", &plan.read_f32(t, a.len()).unwrap(), &reference::add(&a, &b), 0.0, 0.0);
    }
}

#[test]
fn argmax_rows_and_ties() {
    let mut r = rng("argmax");
    for (n, m, last_row, tie) in
        [(1, 1, false, false), (1000, 1, false, true), (49152, 3, true, false), (7, 4, true, true)]
    {
        let mut logits = randn(&mut r, n * m);
        let row = if last_row { m - 1 } else { 0 };
        if tie && n > 2 {
            let hi = 5.0;
            logits[row * n + n / 2] = hi;
            logits[row * n + n - 1] = hi;
        }
        let mut g = Graph::default();
        let lt = f32t(&mut g, "logits", &logits, n);
        let out = g.bound("token", DeviceTensor::u32(&gpu(), "token", &[u32::MAX]).unwrap());
        g.push(Op::Argmax { logits: lt, out, last_row });
        let plan = run(g, m, 0, m);
        let got = gpu().read_u32(plan.buffer(out), 1).unwrap()[0];
        assert_eq!(got, reference::argmax(&logits[row * n..(row + 1) * n]), "n={n} m={m}");
    }
}
