//! The decoder graph: embed, per layer (norm, q/k/v, [q/k norm], rope, KV
//! append, attention, o, residual, norm, gate/up, SwiGLU, down, residual),
//! final norm, lm_head, argmax.

use std::sync::Arc;

use super::{LlamaConfig, LlamaWeights};
use crate::graph::ir::{AttentionDecode, AttnShape, RopeAttrs};
use crate::graph::TensorId;
use crate::graph::{DeviceTensor, Graph, Op, Rows};
use crate::models::decoder::{Built, GraphIo, LayerState, Mode};

pub fn build_graph(c: &LlamaConfig, w: &LlamaWeights, io: &GraphIo, mode: Mode) -> Built {
    let mut g = Graph::default();
    let (h, hd) = (c.hidden, c.head_dim);
    let (qw, kvw) = (c.heads * hd, c.kv_heads * hd);
    let act = |g: &mut Graph, name: &str, width| g.activation(name, width, Rows::Tokens);
    let tokens = match mode {
        Mode::Decode => g.bound("next_token", io.next_token.clone()),
        Mode::Prefill { .. } | Mode::BatchedDecode => g.bound("tokens_in", io.tokens_in.clone()),
    };
    let batched = mode == Mode::BatchedDecode;
    let rows = io.rows.as_ref().filter(|_| batched).map(|r| g.bound("rows", r.clone()));
    let next_token = g.bound("next_token", io.next_token.clone());
    let cos_sin = g.bound("rope.cos_sin", io.cos_sin.clone().expect("the llama family allocates a rope table"));
    let table = g.bound("embed_tokens", w.embed.clone());
    let mut x = act(&mut g, "embed", h);
    g.push(Op::Embed { tokens, table, out: x });
    let shape = AttnShape { n_heads: c.heads, n_kv_heads: c.kv_heads, head_dim: hd, max_seq: io.max_seq };
    let rope = RopeAttrs {
        n_q_heads: c.heads,
        n_kv_heads: c.kv_heads,
        head_dim: hd,
        rotary_dim: c.rotary_dim,
        interleaved: false,
        max_pos: io.max_seq,
    };
    for (i, l) in w.layers.iter().enumerate() {
        let mut bind = |name: &str, t: &Arc<DeviceTensor>| g.bound(format!("layers.{i}.{name}"), t.clone());
        let attn_norm = bind("input_layernorm", &l.attn_norm);
        let (wq, wk, wv, wo) = (bind("q_proj", &l.q), bind("k_proj", &l.k), bind("v_proj", &l.v), bind("o_proj", &l.o));
        let (bq, bk, bv) = (
            l.q_bias.as_ref().map(|t| bind("q_proj.bias", t)),
            l.k_bias.as_ref().map(|t| bind("k_proj.bias", t)),
            l.v_bias.as_ref().map(|t| bind("v_proj.bias", t)),
        );
        let qn = l.q_norm.as_ref().map(|t| bind("q_norm", t));
        let kn = l.k_norm.as_ref().map(|t| bind("k_norm", t));
        let mlp_norm = bind("post_attention_layernorm", &l.mlp_norm);
        let (wg, wu, wd) = (bind("gate_proj", &l.gate), bind("up_proj", &l.up), bind("down_proj", &l.down));
        let LayerState::Attention { k_cache, v_cache } = &io.layers[i] else {
            unreachable!("the llama family allocates attention state for every layer")
        };
        let (kc, vc) = (bind("k_cache", k_cache), bind("v_cache", v_cache));

        let xn = act(&mut g, "attn_in", h);
        g.push(Op::RmsNorm { x, weight: attn_norm, out: xn, dim: h, rows_per_token: 1, eps: c.eps, add_unit: false });
        let q = act(&mut g, "q", qw);
        let k = act(&mut g, "k", kvw);
        let v = act(&mut g, "v", kvw);
        g.push(Op::MatMul { x: xn, w: wq, bias: bq, out: q, last_row: false });
        g.push(Op::MatMul { x: xn, w: wk, bias: bk, out: k, last_row: false });
        g.push(Op::MatMul { x: xn, w: wv, bias: bv, out: v, last_row: false });
        let scale = 1.0 / (hd as f32).sqrt();
        let attn = if let Some(rows) = rows {
            let attn = act(&mut g, "attn", qw);
            // Batched decode: q/k norms, rope, KV append and attention per row in one op (its kernel reads
            // each row's slot and position).
            let attn_op = AttentionDecode {
                q,
                k,
                v,
                cos_sin,
                qk_norm: qn.zip(kn).map(|(qn, kn)| (qn, kn, c.eps)),
                k_cache: kc,
                v_cache: vc,
                out: attn,
                attrs: shape,
                rope,
                scale,
            };
            g.push(Op::AttentionRows { attn: attn_op, rows });
            attn
        } else {
            single_attention(&mut g, c, [q, k, v, kc, vc, cos_sin], qn.zip(kn), shape, rope)
        };
        let o = act(&mut g, "o", h);
        g.push(Op::MatMul { x: attn, w: wo, bias: None, out: o, last_row: false });
        let x2 = act(&mut g, "resid_attn", h);
        g.push(Op::Add { a: x, b: o, out: x2 });
        let xn2 = act(&mut g, "mlp_in", h);
        g.push(Op::RmsNorm {
            x: x2,
            weight: mlp_norm,
            out: xn2,
            dim: h,
            rows_per_token: 1,
            eps: c.eps,
            add_unit: false,
        });
        let (gt, up) = (act(&mut g, "gate", c.intermediate), act(&mut g, "up", c.intermediate));
        g.push(Op::MatMul { x: xn2, w: wg, bias: None, out: gt, last_row: false });
        g.push(Op::MatMul { x: xn2, w: wu, bias: None, out: up, last_row: false });
        let s = act(&mut g, "swiglu", c.intermediate);
        g.push(Op::SwiGlu { gate: gt, up, out: s });
        let d = act(&mut g, "down", h);
        g.push(Op::MatMul { x: s, w: wd, bias: None, out: d, last_row: false });
        let x3 = act(&mut g, "resid_mlp", h);
        g.push(Op::Add { a: x2, b: d, out: x3 });
        x = x3;
    }
    let final_norm = g.bound("norm", w.final_norm.clone());
    let xn = act(&mut g, "final_norm", h);
    g.push(Op::RmsNorm { x, weight: final_norm, out: xn, dim: h, rows_per_token: 1, eps: c.eps, add_unit: false });
    let lm_head = g.bound("lm_head", w.lm_head.clone());
    let all = matches!(mode, Mode::Prefill { all_logits: true });
    // Batched decode: a row of logits and an argmax per sequence.
    let per_row = all || batched;
    let logits = g.activation("logits", c.vocab, if per_row { Rows::Tokens } else { Rows::One });
    g.push(Op::MatMul { x: xn, w: lm_head, bias: None, out: logits, last_row: !per_row });
    g.argmax(logits, next_token, all);
    g.outputs.push(logits);
    Built { graph: g, logits, next_token }
}

/// Single-sequence attention as separate ops ([q/k norm], rope, KV append, attention at the step's
/// positions), which the decode fusion passes fold into one `AttentionDecode`. Returns the output.
fn single_attention(
    g: &mut Graph,
    c: &LlamaConfig,
    [mut q, mut k, v, kc, vc, cos_sin]: [TensorId; 6],
    qk_norm: Option<(TensorId, TensorId)>,
    shape: AttnShape,
    rope: RopeAttrs,
) -> TensorId {
    let (hd, qw, kvw) = (c.head_dim, c.heads * c.head_dim, c.kv_heads * c.head_dim);
    let act = |g: &mut Graph, name: &str, width| g.activation(name, width, Rows::Tokens);
    if let Some((qn, kn)) = qk_norm {
        let (q2, k2) = (act(g, "q_normed", qw), act(g, "k_normed", kvw));
        g.push(Op::RmsNorm {
            x: q,
            weight: qn,
            out: q2,
            dim: hd,
            rows_per_token: c.heads,
            eps: c.eps,
            add_unit: false,
        });
        g.push(Op::RmsNorm {
            x: k,
            weight: kn,
            out: k2,
            dim: hd,
            rows_per_token: c.kv_heads,
            eps: c.eps,
            add_unit: false,
        });
        (q, k) = (q2, k2);
    }
    let (qr, kr) = (act(g, "q_rope", qw), act(g, "k_rope", kvw));
    g.push(Op::Rope { q, k, cos_sin, q_out: qr, k_out: kr, attrs: rope });
    g.push(Op::KvAppend { k: kr, v, k_cache: kc, v_cache: vc, attrs: shape });
    let attn = act(g, "attn", qw);
    g.push(Op::Attention { q: qr, k_cache: kc, v_cache: vc, out: attn, attrs: shape, scale: 1.0 / (hd as f32).sqrt() });
    attn
}
