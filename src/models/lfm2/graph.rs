//! The LFM2 decoder graph: embed; per layer operator_norm, then either the
//! short conv (in_proj -> [B | C | x], C * conv(B * x) with the rolling state,
//! out_proj) or attention (q/k/v, per-head q/k norm, rope, KV append,
//! attention, out_proj); residual; ffn_norm, SwiGLU (w1, w3, w2); residual.
//! Final embedding_norm, tied lm_head, argmax.

use std::sync::Arc;

use super::config::Lfm2Config;
use super::weights::{Lfm2Weights, Mixer};
use crate::graph::ir::{AttnShape, ConvAttrs, RopeAttrs, ShortConv};
use crate::graph::{DeviceTensor, Graph, Op, Rows};
use crate::models::decoder::{Built, GraphIo, LayerState, Mode};

pub fn build_graph(c: &Lfm2Config, w: &Lfm2Weights, io: &GraphIo, mode: Mode) -> Built {
    let mut g = Graph::default();
    let (h, hd) = (c.hidden, c.head_dim);
    let act = |g: &mut Graph, name: &str, width| g.activation(name, width, Rows::Tokens);
    let norm = |g: &mut Graph, x, weight, out, dim, rows_per_token| {
        g.push(Op::RmsNorm { x, weight, out, dim, rows_per_token, eps: c.eps, add_unit: false })
    };
    let tokens = match mode {
        Mode::Decode => g.bound("next_token", io.next_token.clone()),
        // (BatchedDecode is never asked of this family: supports_batched_decode() is false.)
        Mode::Prefill { .. } | Mode::BatchedDecode => g.bound("tokens_in", io.tokens_in.clone()),
    };
    let next_token = g.bound("next_token", io.next_token.clone());
    let cos_sin = io.cos_sin.clone().map(|t| g.bound("rope.cos_sin", t));
    let table = g.bound("embed_tokens", w.embed.clone());
    let mut x = act(&mut g, "embed", h);
    g.push(Op::Embed { tokens, table, out: x });
    let shape = AttnShape { n_heads: c.heads, n_kv_heads: c.kv_heads, head_dim: hd, max_seq: io.max_seq };
    let rope = RopeAttrs {
        n_q_heads: c.heads,
        n_kv_heads: c.kv_heads,
        head_dim: hd,
        rotary_dim: hd,
        interleaved: false,
        max_pos: io.max_seq,
    };
    for (i, l) in w.layers.iter().enumerate() {
        let mut bind = |name: &str, t: &Arc<DeviceTensor>| g.bound(format!("layers.{i}.{name}"), t.clone());
        let op_norm = bind("operator_norm", &l.operator_norm);
        let ffn_norm = bind("ffn_norm", &l.ffn_norm);
        let (w1, w3, w2) = (bind("w1", &l.w1), bind("w3", &l.w3), bind("w2", &l.w2));
        let xn = act(&mut g, "operator_in", h);
        norm(&mut g, x, op_norm, xn, h, 1);
        let o = act(&mut g, "mixer_out", h);
        match (&l.mixer, &io.layers[i]) {
            (Mixer::Conv { in_proj, in_bias, conv, conv_bias, out_proj, out_bias }, LayerState::Recurrent(st)) => {
                let mut bind = |name: &str, t: &Arc<DeviceTensor>| g.bound(format!("layers.{i}.{name}"), t.clone());
                let (wi, wc, wo, state) = (
                    bind("in_proj", in_proj),
                    bind("conv", conv),
                    bind("out_proj", out_proj),
                    bind("conv_state", &st[0]),
                );
                let bi = in_bias.as_ref().map(|t| bind("in_proj.bias", t));
                let bc = conv_bias.as_ref().map(|t| bind("conv.bias", t));
                let bo = out_bias.as_ref().map(|t| bind("out_proj.bias", t));
                let bcx = act(&mut g, "bcx", 3 * h);
                g.push(Op::MatMul { x: xn, w: wi, bias: bi, out: bcx, last_row: false });
                let y = act(&mut g, "conv_out", h);
                let attrs = ConvAttrs { dim: h, kernel: c.conv_kernel };
                g.push(Op::ShortConv(ShortConv {
                    bcx,
                    weight: wc,
                    bias: bc,
                    state,
                    out: y,
                    attrs,
                    update_state: false,
                }));
                g.push(Op::ConvStateUpdate { bcx, state, attrs });
                g.push(Op::MatMul { x: y, w: wo, bias: bo, out: o, last_row: false });
            }
            (Mixer::Attention { q, k, v, out, q_norm, k_norm }, LayerState::Attention { k_cache, v_cache }) => {
                let mut bind = |name: &str, t: &Arc<DeviceTensor>| g.bound(format!("layers.{i}.{name}"), t.clone());
                let (wq, wk, wv, wo) = (bind("q_proj", q), bind("k_proj", k), bind("v_proj", v), bind("out_proj", out));
                let (qn, kn) = (bind("q_layernorm", q_norm), bind("k_layernorm", k_norm));
                let (kc, vc) = (bind("k_cache", k_cache), bind("v_cache", v_cache));
                let (qw, kvw) = (c.heads * hd, c.kv_heads * hd);
                let (qt, kt, vt) = (act(&mut g, "q", qw), act(&mut g, "k", kvw), act(&mut g, "v", kvw));
                g.push(Op::MatMul { x: xn, w: wq, bias: None, out: qt, last_row: false });
                g.push(Op::MatMul { x: xn, w: wk, bias: None, out: kt, last_row: false });
                g.push(Op::MatMul { x: xn, w: wv, bias: None, out: vt, last_row: false });
                let (q2, k2) = (act(&mut g, "q_normed", qw), act(&mut g, "k_normed", kvw));
                norm(&mut g, qt, qn, q2, hd, c.heads);
                norm(&mut g, kt, kn, k2, hd, c.kv_heads);
                let (qr, kr) = (act(&mut g, "q_rope", qw), act(&mut g, "k_rope", kvw));
                let cs = cos_sin.expect("attention layers have a rope table");
                g.push(Op::Rope { q: q2, k: k2, cos_sin: cs, q_out: qr, k_out: kr, attrs: rope });
                g.push(Op::KvAppend { k: kr, v: vt, k_cache: kc, v_cache: vc, attrs: shape });
                let attn = act(&mut g, "attn", qw);
                let scale = 1.0 / (hd as f32).sqrt();
                g.push(Op::Attention { q: qr, k_cache: kc, v_cache: vc, out: attn, attrs: shape, scale });
                g.push(Op::MatMul { x: attn, w: wo, bias: None, out: o, last_row: false });
            }
            _ => unreachable!("new_io allocates each layer's state to match its mixer"),
        }
        let x2 = act(&mut g, "resid_mixer", h);
        g.push(Op::Add { a: x, b: o, out: x2 });
        let xn2 = act(&mut g, "ffn_in", h);
        norm(&mut g, x2, ffn_norm, xn2, h, 1);
        let (gt, up) = (act(&mut g, "gate", c.intermediate), act(&mut g, "up", c.intermediate));
        g.push(Op::MatMul { x: xn2, w: w1, bias: None, out: gt, last_row: false });
        g.push(Op::MatMul { x: xn2, w: w3, bias: None, out: up, last_row: false });
        let s = act(&mut g, "swiglu", c.intermediate);
        g.push(Op::SwiGlu { gate: gt, up, out: s });
        let d = act(&mut g, "down", h);
        g.push(Op::MatMul { x: s, w: w2, bias: None, out: d, last_row: false });
        let x3 = act(&mut g, "resid_ffn", h);
        g.push(Op::Add { a: x2, b: d, out: x3 });
        x = x3;
    }
    let final_norm = g.bound("embedding_norm", w.final_norm.clone());
    let xn = act(&mut g, "final_norm", h);
    norm(&mut g, x, final_norm, xn, h, 1);
    let lm_head = g.bound("lm_head", w.lm_head.clone());
    let all = matches!(mode, Mode::Prefill { all_logits: true });
    let logits = g.activation("logits", c.vocab, if all { Rows::Tokens } else { Rows::One });
    g.push(Op::MatMul { x: xn, w: lm_head, bias: None, out: logits, last_row: !all });
    g.argmax(logits, next_token, all);
    g.outputs.push(logits);
    Built { graph: g, logits, next_token }
}
