//! The Qwen3.5 decoder graph: embed; per layer (1 + w) RMSNorm, then a Gated
//! DeltaNet (in_proj qkv/a/b/z as one matrix, causal conv + SiLU, gated delta rule,
//! RMSNormGated with z, out_proj) or gated attention (q + output gate, k, v,
//! per-head q/k norms, partial rope, KV append, attention, sigmoid gate,
//! o_proj); residual; (1 + w) RMSNorm, SwiGLU MLP, residual; final norm,
//! lm_head, argmax.

use std::sync::Arc;

use super::config::Qwen35Config;
use super::weights::{in_proj_parts, AttnWeights, DeltaWeights, Mixer, Qwen35Weights};
use crate::graph::hybrid::{CausalConv, DeltaConv, DeltaShape, GatedDelta, RmsNormGated, SigmoidGate};
use crate::graph::{DeviceTensor, Graph, Op, TensorId};
use crate::models::decoder::{Built, GraphIo, LayerState, Mode};
use crate::models::text_base::{self, act, embed, input_tokens, logits, residual_mlp, rms_norm};

fn matmul(g: &mut Graph, x: TensorId, w: TensorId, name: &str, width: usize) -> TensorId {
    let out = act(g, name, width);
    g.push(Op::MatMul { x, w, bias: None, out, last_row: false });
    out
}

/// The DeltaNet token mixer of layer `i` on the normed input `xn`.
fn delta(
    g: &mut Graph,
    c: &Qwen35Config,
    i: usize,
    d: &DeltaWeights,
    state: &[Arc<DeviceTensor>],
    xn: TensorId,
    rows: Option<TensorId>,
) -> TensorId {
    let mut bind = |name: &str, t: &Arc<DeviceTensor>| g.bound(format!("layers.{i}.linear_attn.{name}"), t.clone());
    let w_in = bind("in_proj", &d.in_proj);
    let (conv_w, a_log, dt_bias) = (bind("conv1d", &d.conv), bind("A_log", &d.a_log), bind("dt_bias", &d.dt_bias));
    let (norm_w, w_out) = (bind("norm", &d.norm), bind("out_proj", &d.out));
    let (conv_state, delta_state) = (bind("conv_state", &state[0]), bind("delta_state", &state[1]));
    // One matmul over the concatenated in_proj, split into its four parts (fused into one
    // dispatch writing the four tensors by the quad_matvec pass when decoding).
    let parts = in_proj_parts(c);
    let proj = matmul(g, xn, w_in, "in_proj", parts.iter().map(|p| p.1).sum());
    let [mixed, a, b, z] = parts.map(|(name, width)| act(g, name, width));
    g.push(Op::SplitCols { x: proj, outs: vec![mixed, a, b, z] });
    let core = act(g, "delta", c.value_dim());
    let attrs = DeltaShape { k_heads: c.k_heads, v_heads: c.v_heads, dk: c.dk, dv: c.dv };
    let delta = GatedDelta { qkv: mixed, a, b, a_log, dt_bias, state: delta_state, out: core, attrs, conv: None, rows };
    if rows.is_some() {
        // A batched step: each row's conv window and delta state are its slot's, in one op.
        let conv = DeltaConv { weight: conv_w, state: conv_state, kernel: c.conv_kernel };
        g.push(Op::GatedDelta(GatedDelta { conv: Some(conv), ..delta }));
    } else {
        let conv = act(g, "conv", c.conv_dim());
        g.push(Op::CausalConv(CausalConv {
            x: mixed,
            weight: conv_w,
            state: conv_state,
            out: conv,
            channels: c.conv_dim(),
            kernel: c.conv_kernel,
        }));
        g.push(Op::GatedDelta(GatedDelta { qkv: conv, ..delta }));
    }
    let gated = act(g, "delta_normed", c.value_dim());
    g.push(Op::RmsNormGated(RmsNormGated {
        x: core,
        z,
        weight: norm_w,
        out: gated,
        dim: c.dv,
        rows_per_token: c.v_heads,
        eps: c.eps,
    }));
    matmul(g, gated, w_out, "mixer_out", c.hidden)
}

/// The gated attention token mixer of layer `i`.
#[allow(clippy::too_many_arguments)]
fn attention(
    g: &mut Graph,
    c: &Qwen35Config,
    i: usize,
    w: &AttnWeights,
    (k_cache, v_cache): (&Arc<DeviceTensor>, &Arc<DeviceTensor>),
    cos_sin: TensorId,
    max_seq: usize,
    xn: TensorId,
    rows: Option<TensorId>,
) -> TensorId {
    let (qw, kvw) = (c.heads * c.head_dim, c.kv_heads * c.head_dim);
    let mut bind = |name: &str, t: &Arc<DeviceTensor>| g.bound(format!("layers.{i}.self_attn.{name}"), t.clone());
    let (wq, wgate, wk, wv, wo) = (
        bind("q_proj.query", &w.q),
        bind("q_proj.gate", &w.gate),
        bind("k_proj", &w.k),
        bind("v_proj", &w.v),
        bind("o_proj", &w.o),
    );
    let (qn, kn) = (bind("q_norm", &w.q_norm), bind("k_norm", &w.k_norm));
    let (kc, vc) = (bind("k_cache", k_cache), bind("v_cache", v_cache));
    let q = matmul(g, xn, wq, "q", qw);
    let gate = matmul(g, xn, wgate, "attn_gate", qw);
    let k = matmul(g, xn, wk, "k", kvw);
    let v = matmul(g, xn, wv, "v", kvw);
    let at = (c.attn_shape(max_seq), c.rope_attrs(c.rotary_dim, max_seq));
    let attn = text_base::attention(g, c, [q, k, v, kc, vc, cos_sin], Some((qn, kn)), at, rows);
    let gated = act(g, "attn_gated", qw);
    g.push(Op::SigmoidGate(SigmoidGate { x: attn, gate, out: gated }));
    matmul(g, gated, wo, "mixer_out", c.hidden)
}

pub fn build_graph(c: &Qwen35Config, w: &Qwen35Weights, io: &GraphIo, mode: Mode) -> Built {
    let mut g = Graph::default();
    let h = c.hidden;
    // (PackedPrefill is never asked of this family: its prompts prefill one at a time.)
    let tokens = input_tokens(&mut g, io, mode);
    let rows = io.rows.as_ref().filter(|_| mode == Mode::BatchedDecode).map(|r| g.bound("rows", r.clone()));
    let next_token = g.bound("next_token", io.next_token.clone());
    let cos_sin = g.bound("rope.cos_sin", io.cos_sin.clone().expect("qwen3_5 allocates a rope table"));
    let table = g.bound("embed_tokens", w.embed.clone());
    let mut x = embed(&mut g, tokens, table, h);
    for (i, l) in w.layers.iter().enumerate() {
        let attn_norm = g.bound(format!("layers.{i}.input_layernorm"), l.attn_norm.clone());
        let mlp = [
            g.bound(format!("layers.{i}.post_attention_layernorm"), l.mlp_norm.clone()),
            g.bound(format!("layers.{i}.gate_proj"), l.mlp.gate.clone()),
            g.bound(format!("layers.{i}.up_proj"), l.mlp.up.clone()),
            g.bound(format!("layers.{i}.down_proj"), l.mlp.down.clone()),
        ];
        let xn = rms_norm(&mut g, c, x, attn_norm, "attn_in", h, 1);
        let o = match (&l.mixer, &io.layers[i]) {
            (Mixer::Delta(d), LayerState::Recurrent(state)) => delta(&mut g, c, i, d, state, xn, rows),
            (Mixer::Attn(a), LayerState::Attention { k_cache, v_cache }) => {
                attention(&mut g, c, i, a, (k_cache, v_cache), cos_sin, io.max_seq, xn, rows)
            }
            _ => unreachable!("new_io allocates the state each layer kind needs"),
        };
        x = residual_mlp(&mut g, c, x, o, mlp, ["resid_attn", "mlp_in", "resid_mlp"]);
    }
    logits(g, c, w, "norm", x, next_token, mode)
}
