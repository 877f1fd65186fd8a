//! The Llama family as a `TextArch`: attention state in every layer, one rope table.

use std::path::Path;

use super::{build_graph, LlamaConfig, LlamaWeights};
use crate::gpu::Gpu;
use crate::models::decoder::{Built, GraphIo, KvSpec, Mode, TextArch};
use crate::models::llama::config::{RawConfig, ARCHITECTURES};
use crate::models::text_base::config_error;
use crate::models::text_config::TextConfig;
use crate::models::{read_json, ModelError};
use crate::weights::{TensorSource, WeightFormat};

pub struct LlamaArch {
    pub cfg: LlamaConfig,
    pub weights: LlamaWeights,
}

impl LlamaArch {
    pub fn new(gpu: &Gpu, cfg: LlamaConfig, src: &dyn TensorSource, format: WeightFormat) -> Result<Self, ModelError> {
        let weights = LlamaWeights::load(gpu, src, &cfg, format)?;
        Ok(LlamaArch { cfg, weights })
    }
}

/// `ArchLoader` for the family's config.json.
pub fn load(
    gpu: &Gpu,
    config_path: &Path,
    src: &dyn TensorSource,
    format: WeightFormat,
) -> Result<Box<dyn TextArch>, ModelError> {
    Ok(Box::new(LlamaArch::new(gpu, read_config(config_path)?, src, format)?))
}

/// Parses a Llama-family config.json.
pub fn read_config(config_path: &Path) -> Result<LlamaConfig, ModelError> {
    let raw: RawConfig = read_json(config_path)?;
    let arch = raw.architectures.first().cloned().unwrap_or_default();
    let family = ARCHITECTURES.iter().find(|(a, _)| *a == arch).map(|(_, f)| *f).ok_or_else(|| {
        ModelError::UnknownArchitecture {
            arch: arch.clone(),
            path: config_path.to_path_buf(),
            supported: ARCHITECTURES.iter().map(|(a, _)| *a).collect::<Vec<_>>().join(", "),
        }
    })?;
    LlamaConfig::from_raw(&raw, family).map_err(config_error(config_path))
}

impl TextArch for LlamaArch {
    fn family(&self) -> &'static str {
        "llama"
    }
    fn config(&self) -> &TextConfig {
        &self.cfg
    }
    fn weight_bytes(&self) -> u64 {
        self.weights.bytes()
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
        io.cos_sin = Some(c.rope_table(gpu, c.rotary_dim, &c.rope_scaling, max_seq)?);
        for i in 0..c.layers {
            io.layers.push(c.kv_state(gpu, i, slots, max_seq, kv)?);
        }
        Ok(io)
    }

    fn build_graph(&self, io: &GraphIo, mode: Mode) -> Built {
        build_graph(&self.cfg, &self.weights, io, mode)
    }
}
