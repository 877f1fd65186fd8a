//! The LFM2 decoder graph: embed; per layer operator_norm, then either the
//! short conv (in_proj -> [B | C | x], C * conv(B * x) with the rolling state,
//! out_proj) or attention (q/k/v, per-head q/k norm, rope, KV append,
//! attention, out_proj); residual; ffn_norm, SwiGLU (w1, w3, w2); residual.
//! Final embedding_norm, tied lm_head, argmax.

use std::sync::Arc;

use super::config::Lfm2Config;
use super::weights::{Lfm2Weights, Mixer};
use crate::graph::ir::{ConvAttrs, ShortConv};
use crate::graph::{DeviceTensor, Graph, Op};
use crate::models::decoder::{Built, GraphIo, LayerState, Mode};
use crate::models::text_base::{act, attention, embed, input_tokens, logits, qkv, residual_mlp, rms_norm};

pub fn build_graph(c: &Lfm2Config, w: &Lfm2Weights, io: &GraphIo, mode: Mode) -> Built {
    let mut g = Graph::default();
    let h = c.hidden;
    // (PackedPrefill is never asked of this family: its prompts prefill one at a time.)
    let tokens = input_tokens(&mut g, io, mode);
    let rows = io.rows.as_ref().filter(|_| mode == Mode::BatchedDecode).map(|r| g.bound("rows", r.clone()));
    let next_token = g.bound("next_token", io.next_token.clone());
    let cos_sin = io.cos_sin.clone().map(|t| g.bound("rope.cos_sin", t));
    let table = g.bound("embed_tokens", w.embed.clone());
    let mut x = embed(&mut g, tokens, table, h);
    let shape = c.attn_shape(io.max_seq);
    let rope = c.rope_attrs(c.head_dim, io.max_seq);
    for (i, l) in w.layers.iter().enumerate() {
        let mut bind = |name: &str, t: &Arc<DeviceTensor>| g.bound(format!("layers.{i}.{name}"), t.clone());
        let op_norm = bind("operator_norm", &l.attn_norm);
        let ffn_norm = bind("ffn_norm", &l.mlp_norm);
        let mlp = [ffn_norm, bind("w1", &l.mlp.gate), bind("w3", &l.mlp.up), bind("w2", &l.mlp.down)];
        let xn = rms_norm(&mut g, c, x, op_norm, "operator_in", h, 1);
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
                // A batched step convolves each row with its own slot's window and updates it in
                // one op; otherwise conv, then state update (fused by short_conv_state when decoding).
                let update_state = rows.is_some();
                g.push(Op::ShortConv(ShortConv {
                    bcx,
                    weight: wc,
                    bias: bc,
                    state,
                    out: y,
                    attrs,
                    update_state,
                    rows,
                }));
                if rows.is_none() {
                    g.push(Op::ConvStateUpdate { bcx, state, attrs });
                }
                g.push(Op::MatMul { x: y, w: wo, bias: bo, out: o, last_row: false });
            }
            (Mixer::Attention { q, k, v, out, q_norm, k_norm }, LayerState::Attention { k_cache, v_cache }) => {
                let mut bind = |name: &str, t: &Arc<DeviceTensor>| g.bound(format!("layers.{i}.{name}"), t.clone());
                let (wq, wk, wv, wo) = (bind("q_proj", q), bind("k_proj", k), bind("v_proj", v), bind("out_proj", out));
                let (qn, kn) = (bind("q_layernorm", q_norm), bind("k_layernorm", k_norm));
                let (kc, vc) = (bind("k_cache", k_cache), bind("v_cache", v_cache));
                let [qt, kt, vt] = qkv(&mut g, c, xn, [wq, wk, wv], [None; 3]);
                let cs = cos_sin.expect("attention layers have a rope table");
                let attn = attention(&mut g, c, [qt, kt, vt, kc, vc, cs], Some((qn, kn)), (shape, rope), rows);
                g.push(Op::MatMul { x: attn, w: wo, bias: None, out: o, last_row: false });
            }
            _ => unreachable!("new_io allocates each layer's state to match its mixer"),
        }
        x = residual_mlp(&mut g, c, x, o, mlp, ["resid_mixer", "ffn_in", "resid_ffn"]);
    }
    logits(g, c, w, "embedding_norm", x, next_token, mode)
}
