//! The decoder graph: embed, per layer (norm, q/k/v, [q/k norm], rope, KV
//! append, attention, o, residual, norm, gate/up, SwiGLU, down, residual),
//! final norm, lm_head, argmax.

use std::sync::Arc;

use super::{LlamaConfig, LlamaWeights};
use crate::graph::ir::AttentionDecode;
use crate::graph::{DeviceTensor, Graph, Op};
use crate::models::decoder::{Built, GraphIo, LayerState, Mode};
use crate::models::text_base::{act, attention, embed, input_tokens, logits, qkv, residual_mlp, rms_norm};

pub fn build_graph(c: &LlamaConfig, w: &LlamaWeights, io: &GraphIo, mode: Mode) -> Built {
    let mut g = Graph::default();
    let h = c.hidden;
    let tokens = input_tokens(&mut g, io, mode);
    let batched = mode == Mode::BatchedDecode;
    let packed = mode == Mode::PackedPrefill;
    let rows = io.rows.as_ref().filter(|_| batched || packed).map(|r| g.bound("rows", r.clone()));
    let next_token = g.bound("next_token", io.next_token.clone());
    let cos_sin = g.bound("rope.cos_sin", io.cos_sin.clone().expect("the llama family allocates a rope table"));
    let table = g.bound("embed_tokens", w.embed.clone());
    let mut x = embed(&mut g, tokens, table, h);
    let shape = c.attn_shape(io.max_seq);
    let rope = c.rope_attrs(c.rotary_dim, io.max_seq);
    for (i, l) in w.layers.iter().enumerate() {
        let mut bind = |name: &str, t: &Arc<DeviceTensor>| g.bound(format!("layers.{i}.{name}"), t.clone());
        let a = &l.mixer;
        let attn_norm = bind("input_layernorm", &l.attn_norm);
        let (wq, wk, wv, wo) = (bind("q_proj", &a.q), bind("k_proj", &a.k), bind("v_proj", &a.v), bind("o_proj", &a.o));
        let (bq, bk, bv) = (
            a.q_bias.as_ref().map(|t| bind("q_proj.bias", t)),
            a.k_bias.as_ref().map(|t| bind("k_proj.bias", t)),
            a.v_bias.as_ref().map(|t| bind("v_proj.bias", t)),
        );
        let qn = a.q_norm.as_ref().map(|t| bind("q_norm", t));
        let kn = a.k_norm.as_ref().map(|t| bind("k_norm", t));
        let mlp = [
            bind("post_attention_layernorm", &l.mlp_norm),
            bind("gate_proj", &l.mlp.gate),
            bind("up_proj", &l.mlp.up),
            bind("down_proj", &l.mlp.down),
        ];
        let LayerState::Attention { k_cache, v_cache } = &io.layers[i] else {
            unreachable!("the llama family allocates attention state for every layer")
        };
        let (kc, vc) = (bind("k_cache", k_cache), bind("v_cache", v_cache));

        let xn = rms_norm(&mut g, c, x, attn_norm, "attn_in", h, 1);
        let [q, k, v] = qkv(&mut g, c, xn, [wq, wk, wv], [bq, bk, bv]);
        let attn = if let Some(rows) = rows.filter(|_| batched) {
            let attn = act(&mut g, "attn", c.heads * c.head_dim);
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
                scale: 1.0 / (c.head_dim as f32).sqrt(),
            };
            g.push(Op::AttentionRows { attn: attn_op, rows });
            attn
        } else {
            // A packed prefill's rows of one sequence see each other's keys: the ops stay apart (all
            // rows appended before any attends).
            attention(&mut g, c, [q, k, v, kc, vc, cos_sin], qn.zip(kn), (shape, rope), rows)
        };
        let o = act(&mut g, "o", h);
        g.push(Op::MatMul { x: attn, w: wo, bias: None, out: o, last_row: false });
        x = residual_mlp(&mut g, c, x, o, mlp, ["resid_attn", "mlp_in", "resid_mlp"]);
    }
    logits(g, c, w, "norm", x, next_token, mode)
}
