//! attention_qkv_o.wgsl: a decode layer's attention half in one dispatch (partial rows + residual,
//! RMSNorm, the q / k / v matvec per head, q / k norms, rope, the cache append, attention, o_proj's
//! per-word partial rows). Against the reference ops on random non-zero inputs, and against the
//! two dispatches it replaces (the qkv matvec, then attention with o_proj partials): the same
//! terms in the same order, so equal to the bit.

mod common;

use common::one_token::{attn_shape, f32t, int4_pair, run, tensor};
use common::{assert_close, exec, gpu, randn, rng, rope_table};
use gerbil::graph::ir::{AttentionDecode, Epilogue, FusedMatvec, MatOut, NormPrologue, PartialsIn};
use gerbil::graph::{Graph, Op, Plan, Rows, TensorId};
use gerbil::reference;
use rand::rngs::StdRng;

#[derive(Clone, Copy, Debug)]
struct Case {
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    hidden: usize,
    pos: usize,
    group: usize,
    /// x = resid + partial rows (every layer but the first) instead of an input row.
    partials_in: bool,
    bias: bool,
    qk_norm: bool,
    interleaved: bool,
}

#[test]
fn attention_qkv_matches_the_reference_and_the_two_dispatches_it_replaces() {
    let mut r = rng("attention_qkv");
    let case = |heads, kv_heads, head_dim, hidden, pos, group, partials_in, bias, qk_norm, interleaved| Case {
        heads,
        kv_heads,
        head_dim,
        hidden,
        pos,
        group,
        partials_in,
        bias,
        qk_norm,
        interleaved,
    };
    for c in [
        // SmolLM2 at the generate bench's mean context.
        case(9, 3, 64, 576, 136, 32, true, false, false, false),
        // Qwen2.5-0.5B's shape with its q / k / v biases, first position.
        case(14, 2, 64, 896, 0, 32, true, true, false, false),
        // Qwen3-style q / k norms, head_dim 128 (two rounds of six column slots), K 1024, group 64;
        // past 256 positions, where the dispatches it replaces split the attention.
        case(8, 2, 128, 1024, 300, 64, true, false, true, false),
        // The first layer (x read, not summed), head_dim 32 (three slots), interleaved rope, group 128.
        case(4, 2, 32, 128, 5, 128, false, true, true, true),
    ] {
        check(&mut r, c);
    }
}

fn check(r: &mut StdRng, c: Case) {
    let (nh, nkv, hd, hidden, pos) = (c.heads, c.kv_heads, c.head_dim, c.hidden, c.pos);
    let what = |s: &str| format!("{s} {c:?}");
    let max_seq = pos + 8;
    let shape = attn_shape(nh, nkv, hd, max_seq, c.interleaved);
    let (qw, kvw) = (nh * hd, nkv * hd);
    let words = hidden / 32;
    let table = rope_table(max_seq, hd);
    let flat: Vec<f32> = table.iter().flatten().copied().collect();
    let mut cache = reference::KvCache::new(nkv, max_seq, hd);
    cache.append(&randn(r, pos * kvw), &randn(r, pos * kvw), 0);
    // Partial rows small next to the residual, as a layer's o_proj / down words are.
    let parts: Vec<f32> = randn(r, words * hidden).iter().map(|v| v * 0.1).collect();
    let (x_in, resid, nw) = (randn(r, hidden), randn(r, hidden), randn(r, hidden));
    let (qn, kn) = (randn(r, hd), randn(r, hd));
    let biases = [randn(r, qw), randn(r, kvw), randn(r, kvw)];
    let (mut u, mut f) = (Graph::default(), Graph::default());
    let mut mats = vec![];
    for (i, (label, n)) in [("wq", qw), ("wk", kvw), ("wv", kvw)].into_iter().enumerate() {
        let (w, d) = int4_pair(r, [&mut u, &mut f], label, n, hidden, c.group);
        mats.push((w, d, i));
    }
    let (o, od) = int4_pair(r, [&mut u, &mut f], "o_proj", hidden, qw, c.group);
    let build = |g: &mut Graph, side: usize| -> (FusedMatvec, AttentionDecode, TensorId, TensorId) {
        let (q, k, v) = (
            g.activation("q", qw, Rows::Tokens),
            g.activation("k", kvw, Rows::Tokens),
            g.activation("v", kvw, Rows::Tokens),
        );
        let outs = [q, k, v];
        let ms = mats
            .iter()
            .map(|(w, _, i)| MatOut {
                w: w[side],
                bias: c.bias.then(|| f32t(g, &format!("b{i}"), &biases[*i], biases[*i].len())),
                out: outs[*i],
            })
            .collect();
        let norm = Some(NormPrologue { weight: f32t(g, "norm", &nw, hidden), eps: 1e-5, add_unit: false });
        let (x, partials_in) = if c.partials_in {
            let pt = f32t(g, "in_partials", &parts, words * hidden);
            let rt = f32t(g, "resid", &resid, hidden);
            (g.activation("x", hidden, Rows::Tokens), Some(PartialsIn { partials: pt, words, resid: rt }))
        } else {
            (f32t(g, "x", &x_in, hidden), None)
        };
        let qkv = FusedMatvec { x, norm, gate: None, partials_in, mats: ms, epilogue: Epilogue::None };
        let attn = AttentionDecode {
            q,
            k,
            v,
            cos_sin: f32t(g, "cos_sin", &flat, 2),
            qk_norm: c.qk_norm.then(|| (f32t(g, "qn", &qn, hd), f32t(g, "kn", &kn, hd), 1e-6)),
            k_cache: f32t(g, "k_cache", &cache.k, hd),
            v_cache: f32t(g, "v_cache", &cache.v, hd),
            out: g.activation("attn", qw, Rows::Tokens),
            attrs: shape.0,
            rope: shape.1,
            scale: 1.0 / (hd as f32).sqrt(),
        };
        let partials = g.activation("o_partials", (qw / 32) * hidden, Rows::One);
        g.outputs.extend([attn.out, partials]);
        if c.partials_in {
            g.outputs.push(x);
        }
        (qkv, attn, x, partials)
    };
    let (qkv, attn, x_u, parts_u) = build(&mut u, 0);
    let out_u = attn.out;
    u.push(Op::FusedMatvec(qkv));
    u.push(Op::AttentionPartials { attn, o_proj: o[0], partials: parts_u });
    let (qkv, attn, x_f, parts_f) = build(&mut f, 1);
    let out_f = attn.out;
    f.push(Op::AttentionQkv { qkv, attn, o_proj: o[1], partials: parts_f });
    let (pu, pf) = (run(u, pos), run(f, pos));
    assert_eq!(pf.dispatch_specs().count(), 1, "{}", what("one dispatch"));

    // The reference: x, its norm, q / k / v, their norms and rope, the cache, attention, o_proj words.
    let x = if c.partials_in {
        let mut s = resid.clone();
        for row in parts.chunks(hidden) {
            s = reference::add(&s, row);
        }
        s
    } else {
        x_in.clone()
    };
    let xn = reference::rmsnorm(&x, &nw, hidden, 1e-5, false);
    let proj = |i: usize| reference::matmul(&xn, &mats[i].1, c.bias.then_some(&biases[i][..]), hidden);
    let (q, k, v) = (proj(0), proj(1), proj(2));
    let (q1, k1) = if c.qk_norm {
        (reference::rmsnorm(&q, &qn, hd, 1e-6, false), reference::rmsnorm(&k, &kn, hd, 1e-6, false))
    } else {
        (q, k)
    };
    let q2 = reference::rope(&q1, nh, hd, hd, c.interleaved, &table, &[pos]);
    let k2 = reference::rope(&k1, nkv, hd, hd, c.interleaved, &table, &[pos]);
    cache.append(&k2, &v, pos);
    let want_attn = reference::attention(&q2, &cache, nh, pos, 1.0 / (hd as f32).sqrt());
    let got_attn = pf.read_f32(out_f, qw).unwrap();
    // q / k / v carry the INT4 matvec's rounding over K (and the norm's over hidden).
    let tol = 1e-5 * (hidden as f32).sqrt();
    assert_close(&what("attention output"), &got_attn, &want_attn, tol, 1e-3);
    let kbuf = gpu().read_f32(pf.buffer(tensor(&pf, "k_cache")), cache.k.len()).unwrap();
    assert_close(&what("k cache after append"), &kbuf, &cache.k, tol, 1e-3);
    let vbuf = gpu().read_f32(pf.buffer(tensor(&pf, "v_cache")), cache.v.len()).unwrap();
    assert_close(&what("v cache after append"), &vbuf, &cache.v, tol, 1e-3);
    let got_parts = pf.read_f32(parts_f, (qw / 32) * hidden).unwrap();
    let want_parts = reference::matvec_word_partials(&got_attn, &od, qw);
    assert_close(&what("o_proj partial rows"), &got_parts, &want_parts, 2e-5 * (qw as f32).sqrt(), 1e-4);
    if c.partials_in {
        assert_close(&what("x (partials + residual)"), &pf.read_f32(x_f, hidden).unwrap(), &x, 1e-5, 1e-5);
    }

    // Against the two dispatches it replaces: bit for bit up to 256 positions. Past them the replaced
    // attention_decode_o splits the context over several workgroups a head (attention_decode.wgsl) and
    // attention_qkv_o does not, so the attention sums round differently: equal to rounding.
    let bits = |p: &Plan, t: TensorId, n: usize| -> Vec<u32> {
        p.read_f32(t, n).unwrap().iter().map(|v| v.to_bits()).collect()
    };
    let parts_n = (qw / 32) * hidden;
    if pos < 256 {
        assert_eq!(bits(&pf, out_f, qw), bits(&pu, out_u, qw), "{}", what("attention output vs unfused"));
        assert_eq!(bits(&pf, parts_f, parts_n), bits(&pu, parts_u, parts_n), "{}", what("partials vs unfused"));
    } else {
        let (a, b) = (pf.read_f32(out_f, qw).unwrap(), pu.read_f32(out_u, qw).unwrap());
        assert_close(&what("attention output vs split unfused"), &a, &b, 1e-6, 1e-5);
        // The partials carry that difference through o_proj's weights: each may move by
        // sum |w| * |attention diff| over its word, on top of its own rounding.
        let diff: Vec<f32> = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).collect();
        let abs_w: Vec<f32> = od.iter().map(|w| w.abs()).collect();
        let carried = reference::matvec_word_partials(&diff, &abs_w, qw);
        let (a, b) = (pf.read_f32(parts_f, parts_n).unwrap(), pu.read_f32(parts_u, parts_n).unwrap());
        for (i, ((g, w), c)) in a.iter().zip(&b).zip(&carried).enumerate() {
            let allowed = 1e-6 + 1e-5 * w.abs() + c;
            assert!((g - w).abs() <= allowed, "{}: element {i}: got {g}, want {w}", what("partials vs split unfused"));
        }
    }
    if c.partials_in {
        assert_eq!(bits(&pf, x_f, hidden), bits(&pu, x_u, hidden), "{}", what("x vs unfused"));
    }
    let cache_bits = |p: &Plan, label| -> Vec<u32> {
        gpu().read_f32(p.buffer(tensor(p, label)), cache.k.len()).unwrap().iter().map(|v| v.to_bits()).collect()
    };
    for label in ["k_cache", "v_cache"] {
        assert_eq!(cache_bits(&pf, label), cache_bits(&pu, label), "{}", what(&format!("{label} vs unfused")));
    }
}

/// Below 32 KB of workgroup memory (WebGPU's default is 16 KB) the pass leaves the two dispatches.
#[test]
fn attention_qkv_skips_without_the_workgroup_memory() {
    use gerbil::passes::{FusionConfig, PassLimits};
    let fixture = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen3");
    let opts = gerbil::models::llm::LoadOptions {
        format: gerbil::weights::WeightFormat::Int4 { group: 32 },
        max_context: 64,
        prefill_chunk: 16,
        fusion: FusionConfig::default(),
        ..Default::default()
    };
    let m = gerbil::models::llm::TextModel::load(&exec(), &fixture, opts).unwrap();
    let io = m.arch.new_io(&gpu(), 8, 32, gerbil::gpu::KvDtype::F32).unwrap();
    for (bytes, want) in [(16384, 0), (32768, 2)] {
        let mut built = m.arch.build_graph(&io, gerbil::models::decoder::Mode::Decode);
        let limits = PassLimits {
            max_storage_buffers_per_stage: 32,
            one_token: true,
            max_workgroup_storage: bytes,
            grid_barrier: false,
        };
        let cfg = FusionConfig { attention_qkv: true, ..FusionConfig::default() };
        let reports = gerbil::passes::run(&mut built.graph, &cfg, limits);
        let report = reports.iter().find(|r| r.pass == "attention_qkv").unwrap();
        assert_eq!(report.fused, want, "{bytes} bytes: {report:?}");
        if want == 0 {
            assert!(report.skipped.iter().all(|s| s.contains("workgroup memory")) && !report.skipped.is_empty());
        }
    }
}
