//! What the decoder-only text families (llama/, lfm2/, qwen3_5/) share around their own token
//! mixers: the config numbers every family has, the weights every family loads the same way
//! (embedding, lm_head, final norm, and per layer two norms and a SwiGLU MLP), the KV caches and
//! rope table of attention layers, and the graph pieces every family builds alike (input and
//! embedding, rope'd attention over the cache, the residual MLP half of a layer, final norm,
//! logits and argmax). A family keeps its raw config.json mirror, its token mixers and the order
//! in which it binds and builds them.

use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use crate::gpu::Gpu;
use crate::graph::ir::{AttnShape, RopeAttrs};
use crate::graph::upload::{matrix, vector};
use crate::graph::{DeviceTensor, Graph, Op, Rows, TensorId};
use crate::models::decoder::{Built, GraphIo, KvSpec, LayerState, Mode};
use crate::models::rope::{cos_sin_table, inv_freq, RopeScaling};
use crate::models::{read_json, ModelError};
use crate::weights::{TensorSource, WeightError, WeightFormat};

// ---- config ----

use super::text_config::TextConfig;

/// config.json's `eos_token_id`: one id or a list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(u32),
    Many(Vec<u32>),
}

impl OneOrMany {
    pub fn to_vec(&self) -> Vec<u32> {
        match self {
            OneOrMany::One(v) => vec![*v],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// The end-of-sequence ids of an optional `eos_token_id` (none when absent).
pub fn eos_ids(e: &Option<OneOrMany>) -> Vec<u32> {
    e.as_ref().map(|e| e.to_vec()).unwrap_or_default()
}

/// Positive widths and layer count, and key/value heads (`num_key_value_heads`, by default the query
/// heads) that divide the query heads. Returns the key/value heads.
pub fn check_heads(hidden: usize, layers: usize, heads: usize, kv_heads: Option<usize>) -> Result<usize, String> {
    if heads == 0 || hidden == 0 || layers == 0 {
        return Err("hidden_size, num_attention_heads and num_hidden_layers must be positive".into());
    }
    let kv_heads = kv_heads.unwrap_or(heads);
    if kv_heads == 0 || !heads.is_multiple_of(kv_heads) {
        return Err(format!("num_attention_heads {heads} is not a multiple of num_key_value_heads {kv_heads}"));
    }
    Ok(kv_heads)
}

/// The MLP is SwiGLU: a `hidden_act` other than silu is refused.
pub fn check_silu(hidden_act: Option<&str>) -> Result<(), String> {
    match hidden_act {
        Some(act) if act != "silu" => Err(format!("hidden_act '{act}' is not supported (silu is)")),
        _ => Ok(()),
    }
}

/// The rotated dimensions of a head under `partial_rotary_factor` (rounded down to even).
pub fn rotary_dim(head_dim: usize, partial: f64) -> usize {
    ((head_dim as f64 * partial) as usize) & !1
}

/// A refusal of the config at `path`.
pub fn config_error(path: &Path) -> impl FnOnce(String) -> ModelError + '_ {
    move |msg| ModelError::Config { path: path.to_path_buf(), msg }
}

/// Parses the JSON at `path` as `R` and resolves it into a family's config, naming the file on failure.
pub fn read_config<R: serde::de::DeserializeOwned, C>(
    path: &Path,
    resolve: impl FnOnce(&R) -> Result<C, String>,
) -> Result<C, ModelError> {
    let raw: R = read_json(path)?;
    resolve(&raw).map_err(config_error(path))
}

// ---- per-sequence state ----

impl TextConfig {
    /// Attention layer `i`'s KV caches of `kv`'s values: `slots` regions [kv_heads, max_seq, head_dim],
    /// or `kv`'s paged pool [kv_heads, blocks, block_tokens, head_dim].
    pub fn kv_state(
        &self,
        gpu: &Gpu,
        i: usize,
        slots: usize,
        max_seq: usize,
        kv: &KvSpec,
    ) -> Result<LayerState, ModelError> {
        let cache = |name: &str| {
            let label = format!("{name}.{i}");
            let (hd, dtype) = (self.head_dim, kv.dtype);
            match &kv.pages {
                None => DeviceTensor::zeros_kv(gpu, &label, slots * self.kv_heads * max_seq * hd, hd, dtype),
                Some(p) => {
                    let len = self.kv_heads * p.paging.blocks as usize * p.paging.block_tokens() * hd;
                    DeviceTensor::zeros_kv_paged(gpu, &label, len, hd, dtype, p.clone())
                }
            }
        };
        Ok(LayerState::Attention { k_cache: cache("k_cache")?, v_cache: cache("v_cache")? })
    }

    /// The rope table [max_seq, rotary_dim/2, 2] at `rope_theta`.
    pub fn rope_table(
        &self,
        gpu: &Gpu,
        rotary_dim: usize,
        scaling: &RopeScaling,
        max_seq: usize,
    ) -> Result<Arc<DeviceTensor>, ModelError> {
        let table = cos_sin_table(&inv_freq(self.rope_theta, rotary_dim, scaling), max_seq);
        Ok(DeviceTensor::f32(gpu, "rope.cos_sin", &table, 2)?)
    }

    pub fn attn_shape(&self, max_seq: usize) -> AttnShape {
        AttnShape { n_heads: self.heads, n_kv_heads: self.kv_heads, head_dim: self.head_dim, max_seq }
    }

    /// Rotary attributes for `rotary_dim` of each head (not interleaved).
    pub fn rope_attrs(&self, rotary_dim: usize, max_seq: usize) -> RopeAttrs {
        RopeAttrs {
            n_q_heads: self.heads,
            n_kv_heads: self.kv_heads,
            head_dim: self.head_dim,
            rotary_dim,
            interleaved: false,
            max_pos: max_seq,
        }
    }
}

// ---- weights ----

/// A SwiGLU MLP: down(silu(gate x) * up x).
pub struct SwiGlu {
    pub gate: Arc<DeviceTensor>,
    pub up: Arc<DeviceTensor>,
    pub down: Arc<DeviceTensor>,
}

/// One layer: norm, the family's token mixer `M`, norm, SwiGLU MLP (each branch residual).
pub struct Layer<M> {
    /// Before the mixer (input_layernorm; LFM2's operator_norm).
    pub attn_norm: Arc<DeviceTensor>,
    pub mixer: M,
    /// Before the MLP (post_attention_layernorm; LFM2's ffn_norm).
    pub mlp_norm: Arc<DeviceTensor>,
    pub mlp: SwiGlu,
}

/// A text model's weights on the GPU.
pub struct TextWeights<M> {
    pub embed: Arc<DeviceTensor>,
    /// The embedding itself when tied (or when the checkpoint has no lm_head).
    pub lm_head: Arc<DeviceTensor>,
    /// The norm after the last layer.
    pub final_norm: Arc<DeviceTensor>,
    pub layers: Vec<Layer<M>>,
}

/// A token mixer's weights: the bytes a decode step reads of them.
pub trait MixerWeights {
    fn bytes(&self) -> u64;
}

/// Bytes of tensors, and of the present ones among optional tensors.
pub fn bytes_of(ts: &[&Arc<DeviceTensor>], opt: &[&Option<Arc<DeviceTensor>>]) -> u64 {
    ts.iter().map(|t| t.bytes()).sum::<u64>() + opt.iter().filter_map(|t| t.as_ref().map(|t| t.bytes())).sum::<u64>()
}

/// Reads one layer's tensors, named `{prefix}layers.{index}.<name>`.
pub struct LayerLoader<'a> {
    pub gpu: &'a Gpu,
    pub ck: &'a dyn TensorSource,
    pub format: WeightFormat,
    pub index: usize,
    prefix: String,
}

impl LayerLoader<'_> {
    /// The full tensor name of `name` in this layer.
    pub fn name(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// A [rows, cols] projection in the model's weight format.
    pub fn matrix(&self, name: &str, rows: usize, cols: usize) -> Result<Arc<DeviceTensor>, WeightError> {
        matrix(self.gpu, self.ck, &self.name(name), rows, cols, self.format)
    }

    /// A [len] vector (norm weight, bias), in f32.
    pub fn vector(&self, name: &str, len: usize) -> Result<Arc<DeviceTensor>, WeightError> {
        vector(self.gpu, self.ck, &self.name(name), len)
    }

    /// A vector the config says is there (`on`), else none.
    pub fn vector_if(&self, on: bool, name: &str, len: usize) -> Result<Option<Arc<DeviceTensor>>, WeightError> {
        if on {
            self.vector(name, len).map(Some)
        } else {
            Ok(None)
        }
    }

    /// The SwiGLU MLP from its gate, up and down projections' names.
    pub fn swiglu(&self, [gate, up, down]: [&str; 3], c: &TextConfig) -> Result<SwiGlu, WeightError> {
        Ok(SwiGlu {
            gate: self.matrix(gate, c.intermediate, c.hidden)?,
            up: self.matrix(up, c.intermediate, c.hidden)?,
            down: self.matrix(down, c.hidden, c.intermediate)?,
        })
    }
}

impl<M> TextWeights<M> {
    /// Reads `{prefix}embed_tokens.weight`, the lm_head (`lm_head.weight` unless tied or absent),
    /// `{prefix}{final_norm}` and, in order, each layer by `layer`.
    pub fn load_layers(
        gpu: &Gpu,
        ck: &dyn TensorSource,
        c: &TextConfig,
        format: WeightFormat,
        prefix: &str,
        final_norm: &str,
        mut layer: impl FnMut(&LayerLoader) -> Result<Layer<M>, WeightError>,
    ) -> Result<Self, WeightError> {
        let h = c.hidden;
        // A base model saved without its head (`Qwen3Model`: Qwen3-Embedding) names its tensors
        // without the prefix.
        let bare = !ck.contains(&format!("{prefix}embed_tokens.weight")) && ck.contains("embed_tokens.weight");
        let prefix = if bare { "" } else { prefix };
        let embed = matrix(gpu, ck, &format!("{prefix}embed_tokens.weight"), c.vocab, h, format)?;
        let lm_head = if c.tied || !ck.contains("lm_head.weight") {
            embed.clone()
        } else {
            matrix(gpu, ck, "lm_head.weight", c.vocab, h, format)?
        };
        let final_norm = vector(gpu, ck, &format!("{prefix}{final_norm}"), h)?;
        let mut layers = Vec::with_capacity(c.layers);
        for index in 0..c.layers {
            let prefix = format!("{prefix}layers.{index}.");
            layers.push(layer(&LayerLoader { gpu, ck, format, index, prefix })?);
        }
        Ok(TextWeights { embed, lm_head, final_norm, layers })
    }
}

impl<M: MixerWeights> TextWeights<M> {
    /// Bytes of weights one decode step reads (the lm_head counted once if tied).
    pub fn bytes(&self) -> u64 {
        let layers: u64 = self
            .layers
            .iter()
            .map(|l| l.mixer.bytes() + bytes_of(&[&l.attn_norm, &l.mlp_norm, &l.mlp.gate, &l.mlp.up, &l.mlp.down], &[]))
            .sum();
        layers + self.lm_head.bytes() + self.final_norm.bytes()
    }
}

// ---- graph pieces ----

/// An activation with a row per token.
pub fn act(g: &mut Graph, name: &str, width: usize) -> TensorId {
    g.activation(name, width, Rows::Tokens)
}

/// The model's RMSNorm of `x` into a new activation `name` (`rows` heads of `dim` per token).
pub fn rms_norm(
    g: &mut Graph,
    c: &TextConfig,
    x: TensorId,
    weight: TensorId,
    name: &str,
    dim: usize,
    rows: usize,
) -> TensorId {
    let out = act(g, name, dim * rows);
    g.push(Op::RmsNorm { x, weight, out, dim, rows_per_token: rows, eps: c.eps, add_unit: c.norm_add_unit });
    out
}

/// The step's token ids: the previous step's sampled id when decoding, else the prompt chunk (and
/// in batched decode, each sequence's last token).
pub fn input_tokens(g: &mut Graph, io: &GraphIo, mode: Mode) -> TensorId {
    match mode {
        Mode::Decode => g.bound("next_token", io.next_token.clone()),
        Mode::Prefill { .. } | Mode::BatchedDecode | Mode::PackedPrefill | Mode::Embed => {
            g.bound("tokens_in", io.tokens_in.clone())
        }
    }
}

/// Embeds `tokens` from `table` (bound by the caller).
pub fn embed(g: &mut Graph, tokens: TensorId, table: TensorId, hidden: usize) -> TensorId {
    let x = act(g, "embed", hidden);
    g.push(Op::Embed { tokens, table, out: x });
    x
}

/// q, k and v of the normed input `xn` (each with its optional bias).
pub fn qkv(
    g: &mut Graph,
    c: &TextConfig,
    xn: TensorId,
    [wq, wk, wv]: [TensorId; 3],
    [bq, bk, bv]: [Option<TensorId>; 3],
) -> [TensorId; 3] {
    let (qw, kvw) = (c.heads * c.head_dim, c.kv_heads * c.head_dim);
    let q = act(g, "q", qw);
    let k = act(g, "k", kvw);
    let v = act(g, "v", kvw);
    g.push(Op::MatMul { x: xn, w: wq, bias: bq, out: q, last_row: false });
    g.push(Op::MatMul { x: xn, w: wk, bias: bk, out: k, last_row: false });
    g.push(Op::MatMul { x: xn, w: wv, bias: bv, out: v, last_row: false });
    [q, k, v]
}

/// Attention as separate ops (per-head q/k norms when given, rope, KV append, attention at the
/// step's positions), which the decode fusion passes fold into one `AttentionDecode`; with `rows`
/// (a packed prefill), each row at its own slot and position. Returns the attention output.
pub fn attention(
    g: &mut Graph,
    c: &TextConfig,
    [mut q, mut k, v, kc, vc, cos_sin]: [TensorId; 6],
    qk_norm: Option<(TensorId, TensorId)>,
    (shape, rope): (AttnShape, RopeAttrs),
    rows: Option<TensorId>,
) -> TensorId {
    let (hd, qw, kvw) = (c.head_dim, c.heads * c.head_dim, c.kv_heads * c.head_dim);
    if let Some((qn, kn)) = qk_norm {
        let (q2, k2) = (act(g, "q_normed", qw), act(g, "k_normed", kvw));
        let (eps, add_unit) = (c.eps, c.norm_add_unit);
        g.push(Op::RmsNorm { x: q, weight: qn, out: q2, dim: hd, rows_per_token: c.heads, eps, add_unit });
        g.push(Op::RmsNorm { x: k, weight: kn, out: k2, dim: hd, rows_per_token: c.kv_heads, eps, add_unit });
        (q, k) = (q2, k2);
    }
    let (qr, kr) = (act(g, "q_rope", qw), act(g, "k_rope", kvw));
    g.push(Op::Rope { q, k, cos_sin, q_out: qr, k_out: kr, attrs: rope, rows });
    g.push(Op::KvAppend { k: kr, v, k_cache: kc, v_cache: vc, attrs: shape, rows });
    let attn = act(g, "attn", qw);
    let scale = 1.0 / (hd as f32).sqrt();
    g.push(Op::Attention { q: qr, k_cache: kc, v_cache: vc, out: attn, attrs: shape, scale, rows });
    attn
}

/// The MLP half of a layer: `x + o` (the mixer's output), norm, SwiGLU MLP, residual. `names`
/// label the first residual, the normed MLP input and the layer output. Returns the layer output.
pub fn residual_mlp(
    g: &mut Graph,
    c: &TextConfig,
    x: TensorId,
    o: TensorId,
    [norm, wg, wu, wd]: [TensorId; 4],
    [resid, mlp_in, out]: [&str; 3],
) -> TensorId {
    let h = c.hidden;
    let x2 = act(g, resid, h);
    g.push(Op::Add { a: x, b: o, out: x2 });
    let xn2 = rms_norm(g, c, x2, norm, mlp_in, h, 1);
    let (gt, up) = (act(g, "gate", c.intermediate), act(g, "up", c.intermediate));
    g.push(Op::MatMul { x: xn2, w: wg, bias: None, out: gt, last_row: false });
    g.push(Op::MatMul { x: xn2, w: wu, bias: None, out: up, last_row: false });
    let s = act(g, "swiglu", c.intermediate);
    g.push(Op::SwiGlu { gate: gt, up, out: s });
    let d = act(g, "down", h);
    g.push(Op::MatMul { x: s, w: wd, bias: None, out: d, last_row: false });
    let x3 = act(g, out, h);
    g.push(Op::Add { a: x2, b: d, out: x3 });
    x3
}

/// The end of every step's graph: the final norm (bound as `norm_label`), the lm_head, logits (every
/// row for a prefill with `all_logits` and in batched decode, else the last) and their argmax into
/// `next_token`.
pub fn logits<M>(
    mut g: Graph,
    c: &TextConfig,
    w: &TextWeights<M>,
    norm_label: &str,
    x: TensorId,
    next_token: TensorId,
    mode: Mode,
) -> Built {
    let final_norm = g.bound(norm_label, w.final_norm.clone());
    let xn = rms_norm(&mut g, c, x, final_norm, "final_norm", c.hidden, 1);
    if mode == Mode::Embed {
        g.outputs.push(xn);
        return Built { graph: g, logits: xn, next_token };
    }
    let lm_head = g.bound("lm_head", w.lm_head.clone());
    let all = matches!(mode, Mode::Prefill { all_logits: true });
    // Batched decode: a row of logits and an argmax per sequence; a packed prefill, per sequence
    // ending in the step (its first rows).
    let rows = match mode {
        Mode::PackedPrefill => Rows::Outputs,
        Mode::BatchedDecode => Rows::Tokens,
        _ if all => Rows::Tokens,
        _ => Rows::One,
    };
    let per_row = rows != Rows::One;
    let logits = g.activation("logits", c.vocab, rows);
    g.push(Op::MatMul { x: xn, w: lm_head, bias: None, out: logits, last_row: !per_row });
    g.argmax(logits, next_token, all);
    g.outputs.push(logits);
    Built { graph: g, logits, next_token }
}
