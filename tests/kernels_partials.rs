//! The partial-sum decode kernels: the MLP kernel (gate/up, SwiGLU, the down projection's per-word
//! partial rows), decode attention with o_proj's per-word partial rows, and the PARTIALS_IN
//! prologue that adds them to the residual. Each against the reference ops on random non-zero
//! inputs, and against the unfused chain it replaces (the same terms in the same tree: equal to
//! rounding).

mod common;

use common::one_token::{attn_shape, f32t, int4_pair, run, tensor};
use common::{assert_close, gpu, randn, rng, rope_table};
use gerbil::graph::ir::{
    AttentionDecode, Epilogue, FusedMatvec, MatOut, MlpPartials, NormPrologue, PartialsIn, PartialsNorm,
};
use gerbil::graph::{Graph, Op, Plan, Rows, TensorId};
use gerbil::reference;

/// Fused (`got`) against unfused (`want`) results of one computation: the same terms summed in the
/// same tree, so equal to rounding. (On lavapipe they match bit for bit while each lane of the
/// plain matvec holds one word, K <= 1024; with two words a lane the compiler rounds the plain
/// kernel's second step differently, by an ulp.)
/// `scale`: the size of the summed terms (a sum that cancels keeps their absolute rounding).
#[track_caller]
fn same_as_unfused(what: &str, got: &[f32], want: &[f32], scale: f32) {
    assert_close(what, got, want, 1e-6 * scale.max(1.0), 2e-6);
}

fn single(w: TensorId, out: TensorId) -> Vec<MatOut> {
    vec![MatOut { w, bias: None, out }]
}

#[test]
fn mlp_partials_and_their_consumer_match_the_unfused_layer() {
    let mut r = rng("mlp_partials");
    // (input width = residual width, intermediate, consumer outputs, group): SmolLM2's feed-forward
    // (48 words: lanes 0-15 hold two), a one-word intermediate, group 64.
    for (k, inter, n_next, group) in [(64, 32, 40, 32), (128, 256, 96, 64), (576, 1024, 960, 32), (576, 1536, 960, 32)]
    {
        let (x, resid) = (randn(&mut r, k), randn(&mut r, k));
        let (nw, nw2) = (randn(&mut r, k), randn(&mut r, k));
        let (mut u, mut f) = (Graph::default(), Graph::default());
        let ([gate_u, gate_f], gd) = int4_pair(&mut r, [&mut u, &mut f], "gate", inter, k, group);
        let ([up_u, up_f], ud) = int4_pair(&mut r, [&mut u, &mut f], "up", inter, k, group);
        let ([down_u, down_f], dd) = int4_pair(&mut r, [&mut u, &mut f], "down", k, inter, group);
        let ([next_u, next_f], nd) = int4_pair(&mut r, [&mut u, &mut f], "next", n_next, k, group);
        let io = |g: &mut Graph| {
            let xt = f32t(g, "x", &x, k);
            let rt = f32t(g, "resid", &resid, k);
            let n1 = NormPrologue { weight: f32t(g, "norm", &nw, k), eps: 1e-5, add_unit: false };
            let n2 = NormPrologue { weight: f32t(g, "norm2", &nw2, k), eps: 1e-5, add_unit: true };
            let (h, y) = (g.activation("h", k, Rows::Tokens), g.activation("y", n_next, Rows::Tokens));
            g.outputs.extend([h, y]);
            (xt, rt, n1, n2, h, y)
        };
        // Unfused: norm + gate/up + SwiGLU; down + residual; norm + matvec.
        let (xt, rt, n1, n2, h_u, y_u) = io(&mut u);
        let s = u.activation("s", inter, Rows::Tokens);
        let unused = u.activation("unused", inter, Rows::Tokens);
        let mats = vec![MatOut { w: gate_u, bias: None, out: unused }, MatOut { w: up_u, bias: None, out: unused }];
        let fm = |x, norm, mats, epilogue| FusedMatvec { x, norm, gate: None, partials_in: None, mats, epilogue };
        u.push(Op::FusedMatvec(fm(xt, Some(n1), mats, Epilogue::SwiGlu { out: s })));
        u.push(Op::FusedMatvec(fm(s, None, single(down_u, h_u), Epilogue::Residual(rt))));
        u.push(Op::FusedMatvec(fm(h_u, Some(n2.clone()), single(next_u, y_u), Epilogue::None)));
        // Fused: the MLP kernel's partial rows, summed by the next matvec's prologue.
        let (xt, rt, n1, n2, h_f, y_f) = io(&mut f);
        let words = inter / 32;
        let parts = f.activation("partials", words * k, Rows::One);
        f.outputs.push(parts);
        let mlp = MlpPartials {
            x: xt,
            partials_in: None,
            norm: Some(n1),
            gate: gate_f,
            up: up_f,
            down: down_f,
            partials: parts,
        };
        f.push(Op::MlpPartials(mlp));
        let pi = Some(PartialsIn { partials: parts, words, resid: rt });
        f.push(Op::FusedMatvec(FusedMatvec {
            partials_in: pi,
            ..fm(h_f, Some(n2), single(next_f, y_f), Epilogue::None)
        }));
        let (pu, pf) = (run(u, 0), run(f, 0));
        // The reference: per-word partials of the down projection over the reference SwiGLU.
        let xn = reference::rmsnorm(&x, &nw, k, 1e-5, false);
        let s_ref = reference::swiglu(&reference::matmul(&xn, &gd, None, k), &reference::matmul(&xn, &ud, None, k));
        // SwiGLU values reach hundreds here (gate and up ~ sqrt(k)): the f32 error of a dot product
        // scales with its terms, so the bound does too.
        let rms = (s_ref.iter().map(|v| v * v).sum::<f32>() / inter as f32).sqrt();
        let tol = 2e-5 * (inter as f32).sqrt() * rms.max(1.0);
        let what = |s: &str| format!("{s} k={k} inter={inter} group={group}");
        let want_parts = reference::matvec_word_partials(&s_ref, &dd, inter);
        assert_close(&what("down partial rows"), &pf.read_f32(parts, words * k).unwrap(), &want_parts, tol, 1e-4);
        let want_h = reference::add(&resid, &reference::matmul(&s_ref, &dd, None, inter));
        let h = pf.read_f32(h_f, k).unwrap();
        assert_close(&what("partial sum + residual"), &h, &want_h, tol, 1e-4);
        let want_y = reference::matmul(&reference::rmsnorm(&h, &nw2, k, 1e-5, true), &nd, None, k);
        assert_close(
            &what("consumer matvec"),
            &pf.read_f32(y_f, n_next).unwrap(),
            &want_y,
            2e-5 * (k as f32).sqrt(),
            1e-4,
        );
        let scale = rms * (inter as f32).sqrt();
        same_as_unfused(&what("h"), &h, &pu.read_f32(h_u, k).unwrap(), scale);
        same_as_unfused(&what("y"), &pf.read_f32(y_f, n_next).unwrap(), &pu.read_f32(y_u, n_next).unwrap(), scale);
    }
}

/// A decoder's last MLP: its partial rows summed with the residual by the final norm's kernel
/// (partials_norm.wgsl) instead of [down matvec] [add_rmsnorm].
#[test]
fn mlp_partials_into_the_final_norm_match_down_then_add_rmsnorm() {
    let mut r = rng("partials_norm");
    // (width, intermediate, group, (1 + w) norm): SmolLM2's last layer (48 words), one word, group 64.
    for (k, inter, group, add_unit) in [(576, 1536, 32, false), (64, 32, 32, true), (128, 256, 64, false)] {
        let (x, resid) = (randn(&mut r, k), randn(&mut r, k));
        let (nw, fw) = (randn(&mut r, k), randn(&mut r, k));
        let (mut u, mut f) = (Graph::default(), Graph::default());
        let ([gate_u, gate_f], gd) = int4_pair(&mut r, [&mut u, &mut f], "gate", inter, k, group);
        let ([up_u, up_f], ud) = int4_pair(&mut r, [&mut u, &mut f], "up", inter, k, group);
        let ([down_u, down_f], dd) = int4_pair(&mut r, [&mut u, &mut f], "down", k, inter, group);
        let io = |g: &mut Graph| {
            let xt = f32t(g, "x", &x, k);
            let rt = f32t(g, "resid", &resid, k);
            let n1 = NormPrologue { weight: f32t(g, "norm", &nw, k), eps: 1e-5, add_unit: false };
            let fwt = f32t(g, "final_norm", &fw, k);
            let (sum, out) = (g.activation("sum", k, Rows::Tokens), g.activation("out", k, Rows::Tokens));
            g.outputs.extend([sum, out]);
            (xt, rt, n1, fwt, sum, out)
        };
        // Unfused: norm + gate/up + SwiGLU; down; add + RMSNorm.
        let (xt, rt, n1, fwt, sum_u, out_u) = io(&mut u);
        let (sv, d) = (u.activation("s", inter, Rows::Tokens), u.activation("d", k, Rows::Tokens));
        let unused = u.activation("unused", inter, Rows::Tokens);
        let mats = vec![MatOut { w: gate_u, bias: None, out: unused }, MatOut { w: up_u, bias: None, out: unused }];
        let fm = |x, norm, mats, epilogue| FusedMatvec { x, norm, gate: None, partials_in: None, mats, epilogue };
        u.push(Op::FusedMatvec(fm(xt, Some(n1), mats, Epilogue::SwiGlu { out: sv })));
        u.push(Op::FusedMatvec(fm(sv, None, single(down_u, d), Epilogue::None)));
        u.push(Op::AddRmsNorm { a: rt, b: d, weight: fwt, sum: sum_u, out: out_u, eps: 1e-5, add_unit });
        // Fused: the MLP kernel's partial rows, summed and normed in one workgroup.
        let (xt, rt, n1, fwt, sum_f, out_f) = io(&mut f);
        let words = inter / 32;
        let partials = f.activation("partials", words * k, Rows::One);
        let mlp =
            MlpPartials { x: xt, partials_in: None, norm: Some(n1), gate: gate_f, up: up_f, down: down_f, partials };
        f.push(Op::MlpPartials(mlp));
        let partials_in = PartialsIn { partials, words, resid: rt };
        f.push(Op::PartialsNorm(PartialsNorm {
            partials_in,
            weight: fwt,
            sum: sum_f,
            out: out_f,
            eps: 1e-5,
            add_unit,
        }));
        let (pu, pf) = (run(u, 0), run(f, 0));
        let xn = reference::rmsnorm(&x, &nw, k, 1e-5, false);
        let s_ref = reference::swiglu(&reference::matmul(&xn, &gd, None, k), &reference::matmul(&xn, &ud, None, k));
        let rms = (s_ref.iter().map(|v| v * v).sum::<f32>() / inter as f32).sqrt();
        let tol = 2e-5 * (inter as f32).sqrt() * rms.max(1.0);
        let what = |s: &str| format!("{s} k={k} inter={inter} group={group} add_unit={add_unit}");
        let want_sum = reference::add(&resid, &reference::matmul(&s_ref, &dd, None, inter));
        let sum = pf.read_f32(sum_f, k).unwrap();
        assert_close(&what("residual sum"), &sum, &want_sum, tol, 1e-4);
        let out = pf.read_f32(out_f, k).unwrap();
        assert_close(&what("normed"), &out, &reference::rmsnorm(&sum, &fw, k, 1e-5, add_unit), 1e-5, 1e-5);
        let scale = rms * (inter as f32).sqrt();
        same_as_unfused(&what("sum"), &sum, &pu.read_f32(sum_u, k).unwrap(), scale);
        same_as_unfused(&what("out"), &out, &pu.read_f32(out_u, k).unwrap(), 1.0);
    }
}

#[test]
fn attention_partials_and_their_consumer_match_attention_then_o_proj() {
    let mut r = rng("attention_partials");
    // (heads, kv heads, head_dim, position, o_proj group): SmolLM2's attention (2 words a head),
    // one word a head with group 64 (a group spans two heads), 4 words a head.
    for (nh, nkv, hd, pos, group) in [(9, 3, 64, 37, 32), (4, 2, 32, 5, 64), (2, 1, 128, 300, 32)] {
        let max_seq = pos + 8;
        let shape = attn_shape(nh, nkv, hd, max_seq, false);
        let (qw, kvw) = (nh * hd, nkv * hd);
        let hidden = 96;
        let table: Vec<f32> = rope_table(max_seq, hd).concat();
        let (k_cache, v_cache) = (randn(&mut r, nkv * max_seq * hd), randn(&mut r, nkv * max_seq * hd));
        let (q, k, v) = (randn(&mut r, qw), randn(&mut r, kvw), randn(&mut r, kvw));
        let (resid, nw) = (randn(&mut r, hidden), randn(&mut r, hidden));
        let (mut u, mut f) = (Graph::default(), Graph::default());
        let ([o_u, o_f], od) = int4_pair(&mut r, [&mut u, &mut f], "o_proj", hidden, qw, group);
        let ([gate_u, gate_f], _) = int4_pair(&mut r, [&mut u, &mut f], "gate", 64, hidden, 32);
        let ([up_u, up_f], _) = int4_pair(&mut r, [&mut u, &mut f], "up", 64, hidden, 32);
        let io = |g: &mut Graph| {
            let attn = AttentionDecode {
                q: f32t(g, "q", &q, qw),
                k: f32t(g, "k", &k, kvw),
                v: f32t(g, "v", &v, kvw),
                cos_sin: f32t(g, "cos_sin", &table, 2),
                qk_norm: None,
                k_cache: f32t(g, "k_cache", &k_cache, hd),
                v_cache: f32t(g, "v_cache", &v_cache, hd),
                out: g.activation("attn", qw, Rows::Tokens),
                attrs: shape.0,
                rope: shape.1,
                scale: 1.0 / (hd as f32).sqrt(),
            };
            let rt = f32t(g, "resid", &resid, hidden);
            let norm = NormPrologue { weight: f32t(g, "norm", &nw, hidden), eps: 1e-5, add_unit: false };
            let (h, s) = (g.activation("h", hidden, Rows::Tokens), g.activation("s", 64, Rows::Tokens));
            let unused = g.activation("unused", 64, Rows::Tokens);
            g.outputs.extend([h, s]);
            (attn, rt, norm, h, s, unused)
        };
        let gate_up = |gate, up, unused| {
            vec![MatOut { w: gate, bias: None, out: unused }, MatOut { w: up, bias: None, out: unused }]
        };
        // Unfused: attention; o_proj + residual; norm + gate/up + SwiGLU.
        let (attn, rt, norm, h_u, s_u, unused) = io(&mut u);
        let a = attn.out;
        u.outputs.push(a);
        u.push(Op::AttentionDecode(attn));
        let fm = |x, norm, mats, epilogue| FusedMatvec { x, norm, gate: None, partials_in: None, mats, epilogue };
        u.push(Op::FusedMatvec(fm(a, None, single(o_u, h_u), Epilogue::Residual(rt))));
        u.push(Op::FusedMatvec(fm(h_u, Some(norm), gate_up(gate_u, up_u, unused), Epilogue::SwiGlu { out: s_u })));
        // Fused: attention with o_proj's partial rows, summed by the gate/up prologue.
        let (attn, rt, norm, h_f, s_f, unused) = io(&mut f);
        let words = qw / 32;
        let parts = f.activation("o_partials", words * hidden, Rows::One);
        f.outputs.push(parts);
        f.push(Op::AttentionPartials { attn, o_proj: o_f, partials: parts });
        let pi = Some(PartialsIn { partials: parts, words, resid: rt });
        let consumer = fm(h_f, Some(norm), gate_up(gate_f, up_f, unused), Epilogue::SwiGlu { out: s_f });
        f.push(Op::FusedMatvec(FusedMatvec { partials_in: pi, ..consumer }));
        let (pu, pf) = (run(u, pos), run(f, pos));
        let what = |s: &str| format!("{s} heads={nh} head_dim={hd} pos={pos} group={group}");
        // The reference partial rows over the attention output the unfused plan computed (the
        // attention itself is checked against reference::attention in kernels_fused.rs).
        let attn_out = pu.read_f32(a, qw).unwrap();
        let want_parts = reference::matvec_word_partials(&attn_out, &od, qw);
        let tol = 2e-5 * (qw as f32).sqrt();
        assert_close(
            &what("o_proj partial rows"),
            &pf.read_f32(parts, words * hidden).unwrap(),
            &want_parts,
            tol,
            1e-4,
        );
        let h = pf.read_f32(h_f, hidden).unwrap();
        let want_h = reference::add(&resid, &reference::matmul(&attn_out, &od, None, qw));
        assert_close(&what("partial sum + residual"), &h, &want_h, tol, 1e-4);
        let scale = (qw as f32).sqrt();
        same_as_unfused(&what("h"), &h, &pu.read_f32(h_u, hidden).unwrap(), scale);
        same_as_unfused(&what("swiglu"), &pf.read_f32(s_f, 64).unwrap(), &pu.read_f32(s_u, 64).unwrap(), scale);
        // The new token's K/V reached the cache in both plans.
        let kc = |p: &Plan, t| gpu().read_f32(p.buffer(t), k_cache.len()).unwrap();
        let (kt_u, kt_f) = (tensor(&pu, "k_cache"), tensor(&pf, "k_cache"));
        assert_eq!(kc(&pu, kt_u), kc(&pf, kt_f), "{}", what("k cache"));
    }
}
