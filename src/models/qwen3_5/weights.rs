//! Loading Qwen3.5 tensors (transformers names) onto the GPU.

use std::sync::Arc;

use super::config::{LayerKind, Qwen35Config};
use crate::gpu::Gpu;
use crate::graph::upload::matrix_from;
use crate::graph::DeviceTensor;
use crate::models::text_base::{bytes_of, Layer, MixerWeights, TextWeights};
use crate::weights::int4::Int4Matrix;
use crate::weights::{TensorSource, WeightError, WeightFormat};

/// A Gated DeltaNet token mixer.
pub struct DeltaWeights {
    /// in_proj_qkv | in_proj_a | in_proj_b | in_proj_z, rows concatenated once at load
    /// ([conv_dim + 2 v_heads + value_dim, hidden]): one matvec reads x once for all four.
    pub in_proj: Arc<DeviceTensor>,
    /// [conv_dim, kernel] (the checkpoint's [conv_dim, 1, kernel]).
    pub conv: Arc<DeviceTensor>,
    pub a_log: Arc<DeviceTensor>,
    pub dt_bias: Arc<DeviceTensor>,
    /// RMSNormGated weight [dv] (plain, not 1 + w).
    pub norm: Arc<DeviceTensor>,
    pub out: Arc<DeviceTensor>,
}

/// A gated attention token mixer; q_proj's interleaved [query | gate] rows per
/// head are split at load into two matrices.
pub struct AttnWeights {
    pub q: Arc<DeviceTensor>,
    pub gate: Arc<DeviceTensor>,
    pub k: Arc<DeviceTensor>,
    pub v: Arc<DeviceTensor>,
    pub o: Arc<DeviceTensor>,
    pub q_norm: Arc<DeviceTensor>,
    pub k_norm: Arc<DeviceTensor>,
}

pub enum Mixer {
    Delta(DeltaWeights),
    Attn(AttnWeights),
}

pub type LayerWeights = Layer<Mixer>;
pub type Qwen35Weights = TextWeights<Mixer>;

impl MixerWeights for Mixer {
    fn bytes(&self) -> u64 {
        match self {
            Mixer::Delta(d) => bytes_of(&[&d.in_proj, &d.conv, &d.a_log, &d.dt_bias, &d.norm, &d.out], &[]),
            Mixer::Attn(a) => bytes_of(&[&a.q, &a.gate, &a.k, &a.v, &a.o, &a.q_norm, &a.k_norm], &[]),
        }
    }
}

/// The Gated DeltaNet input projections in the order `in_proj` concatenates them, with their heights.
pub fn in_proj_parts(c: &Qwen35Config) -> [(&'static str, usize); 4] {
    [("in_proj_qkv", c.conv_dim()), ("in_proj_a", c.v_heads), ("in_proj_b", c.v_heads), ("in_proj_z", c.value_dim())]
}

/// Matrices [rows_i, cols] stacked into one [sum rows_i, cols]. INT4 groups run along a row, so
/// quantizing the stack gives the same bits as quantizing each part; pre-quantized parts are appended.
fn concat_rows(
    gpu: &Gpu,
    ck: &dyn TensorSource,
    label: &str,
    parts: &[(String, usize)],
    cols: usize,
    format: WeightFormat,
) -> Result<Arc<DeviceTensor>, WeightError> {
    let rows: usize = parts.iter().map(|(_, r)| r).sum();
    if let WeightFormat::Int4 { .. } = format {
        let mut pre = Vec::new();
        for (name, r) in parts {
            match ck.int4(name, *r, cols)? {
                Some(q) if pre.first().is_none_or(|f: &Int4Matrix| f.group == q.group) => pre.push(q),
                _ => break,
            }
        }
        if pre.len() == parts.len() {
            let group = pre[0].group;
            let (mut q, mut sm) = (Vec::new(), Vec::new());
            for m in pre {
                q.extend(m.q);
                sm.extend(m.sm);
            }
            return Ok(DeviceTensor::int4(gpu, label, &Int4Matrix { rows, cols, group, q, sm })?);
        }
    }
    let mut data = Vec::with_capacity(rows * cols);
    for (name, r) in parts {
        data.extend(ck.f32(name, &[*r, cols])?);
    }
    matrix_from(gpu, label, data, rows, cols, format)
}

/// Splits q_proj [heads * 2 * hd, h] (per head: hd query rows, then hd gate rows).
fn split_q(data: &[f32], heads: usize, hd: usize, h: usize) -> (Vec<f32>, Vec<f32>) {
    let (mut q, mut g) = (Vec::with_capacity(data.len() / 2), Vec::with_capacity(data.len() / 2));
    for head in 0..heads {
        let base = head * 2 * hd * h;
        q.extend_from_slice(&data[base..base + hd * h]);
        g.extend_from_slice(&data[base + hd * h..base + 2 * hd * h]);
    }
    (q, g)
}

impl TextWeights<Mixer> {
    pub fn load(gpu: &Gpu, ck: &dyn TensorSource, c: &Qwen35Config, format: WeightFormat) -> Result<Self, WeightError> {
        let h = c.hidden;
        Self::load_layers(gpu, ck, c, format, &c.prefix, "norm.weight", |l| {
            let p = |s: &str| l.name(s);
            let mixer = match c.layer_kinds[l.index] {
                LayerKind::Linear => {
                    let conv = ck.f32(&p("linear_attn.conv1d.weight"), &[c.conv_dim(), 1, c.conv_kernel])?;
                    let parts = in_proj_parts(c);
                    let names: Vec<(String, usize)> =
                        parts.iter().map(|(n, rows)| (p(&format!("linear_attn.{n}.weight")), *rows)).collect();
                    Mixer::Delta(DeltaWeights {
                        in_proj: concat_rows(gpu, ck, &p("linear_attn.in_proj"), &names, h, format)?,
                        conv: DeviceTensor::f32(gpu, &p("linear_attn.conv1d.weight"), &conv, c.conv_kernel)?,
                        a_log: l.vector("linear_attn.A_log", c.v_heads)?,
                        dt_bias: l.vector("linear_attn.dt_bias", c.v_heads)?,
                        norm: l.vector("linear_attn.norm.weight", c.dv)?,
                        out: l.matrix("linear_attn.out_proj.weight", h, c.value_dim())?,
                    })
                }
                LayerKind::Full => {
                    let (hd, qw) = (c.head_dim, c.heads * c.head_dim);
                    let name = p("self_attn.q_proj.weight");
                    let (q, gate) = split_q(&ck.f32(&name, &[2 * qw, h])?, c.heads, hd, h);
                    Mixer::Attn(AttnWeights {
                        q: matrix_from(gpu, &format!("{name}.query"), q, qw, h, format)?,
                        gate: matrix_from(gpu, &format!("{name}.gate"), gate, qw, h, format)?,
                        k: l.matrix("self_attn.k_proj.weight", c.kv_heads * hd, h)?,
                        v: l.matrix("self_attn.v_proj.weight", c.kv_heads * hd, h)?,
                        o: l.matrix("self_attn.o_proj.weight", h, qw)?,
                        q_norm: l.vector("self_attn.q_norm.weight", hd)?,
                        k_norm: l.vector("self_attn.k_norm.weight", hd)?,
                    })
                }
            };
            Ok(Layer {
                mixer,
                attn_norm: l.vector("input_layernorm.weight", h)?,
                mlp_norm: l.vector("post_attention_layernorm.weight", h)?,
                mlp: l.swiglu(["mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"], c)?,
            })
        })
    }
}
