//! LFM2 as a `TextArch`: KV caches for attention layers, a rolling conv state
//! [L-1, hidden] for short-conv layers (zeroed by `Session::reset`); a batched decode's hold one
//! of each per slot.

use std::path::Path;

use super::config::{LayerKind, Lfm2Config};
use super::graph::build_graph;
use super::Lfm2Weights;
use crate::gpu::Gpu;
use crate::graph::DeviceTensor;
use crate::models::decoder::{Built, GraphIo, KvSpec, LayerState, Mode, TextArch};
use crate::models::rope::RopeScaling;
use crate::models::text_base;
use crate::models::text_config::TextConfig;
use crate::models::ModelError;
use crate::weights::{TensorSource, WeightFormat};

pub struct Lfm2Arch {
    pub cfg: Lfm2Config,
    pub weights: Lfm2Weights,
}

/// `ArchLoader` for `Lfm2ForCausalLM`.
pub fn load(
    gpu: &Gpu,
    config_path: &Path,
    src: &dyn TensorSource,
    format: WeightFormat,
) -> Result<Box<dyn TextArch>, ModelError> {
    let cfg = read_config(config_path)?;
    let weights = Lfm2Weights::load(gpu, src, &cfg, format)?;
    Ok(Box::new(Lfm2Arch { cfg, weights }))
}

pub fn read_config(config_path: &Path) -> Result<Lfm2Config, ModelError> {
    text_base::read_config(config_path, Lfm2Config::from_raw)
}

impl TextArch for Lfm2Arch {
    fn family(&self) -> &'static str {
        "lfm2"
    }
    fn config(&self) -> &TextConfig {
        &self.cfg
    }
    fn weight_bytes(&self) -> u64 {
        self.weights.bytes()
    }
    fn attention_layers(&self) -> usize {
        self.cfg.layer_kinds.iter().filter(|k| **k == LayerKind::Attention).count()
    }

    fn new_state(
        &self,
        gpu: &Gpu,
        chunk: usize,
        max_seq: usize,
        slots: usize,
        kv: &KvSpec,
    ) -> Result<GraphIo, ModelError> {
        let c = &self.cfg;
        let mut io = GraphIo::base(gpu, chunk, max_seq)?;
        io.slots = slots;
        if c.layer_kinds.contains(&LayerKind::Attention) {
            io.cos_sin = Some(c.rope_table(gpu, c.head_dim, &RopeScaling::None, max_seq)?);
        }
        for (i, kind) in c.layer_kinds.iter().enumerate() {
            io.layers.push(match kind {
                LayerKind::Attention => c.kv_state(gpu, i, slots, max_seq, kv)?,
                LayerKind::Conv => LayerState::Recurrent(vec![DeviceTensor::zeros(
                    gpu,
                    &format!("conv_state.{i}"),
                    slots * (c.conv_kernel - 1) * c.hidden,
                    c.hidden,
                )?]),
            });
        }
        Ok(io)
    }

    fn build_graph(&self, io: &GraphIo, mode: Mode) -> Built {
        build_graph(&self.cfg, &self.weights, io, mode)
    }
}
