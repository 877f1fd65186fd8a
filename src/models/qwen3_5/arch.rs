//! Qwen3.5 as a `TextArch`: per layer either a KV cache (full attention) or a
//! recurrent state (DeltaNet conv window + delta-rule matrices).

use std::path::Path;

use super::{Qwen35Config, Qwen35Weights};
use crate::gpu::Gpu;
use crate::graph::DeviceTensor;
use crate::models::decoder::{Built, GraphIo, KvSpec, LayerState, Mode, TextArch};
use crate::models::qwen3_5::config::LayerKind;
use crate::models::rope::RopeScaling;
use crate::models::text_base;
use crate::models::text_config::TextConfig;
use crate::models::ModelError;
use crate::weights::{TensorSource, WeightFormat};

/// The `architectures` names this family loads.
pub const ARCHITECTURES: &[&str] = &["Qwen3_5ForCausalLM", "Qwen3_5ForConditionalGeneration"];

pub struct Qwen35Arch {
    pub cfg: Qwen35Config,
    pub weights: Qwen35Weights,
}

/// Parses a Qwen3.5 config.json (text config, or a multimodal one's text_config).
pub fn read_config(config_path: &Path) -> Result<Qwen35Config, ModelError> {
    text_base::read_config(config_path, Qwen35Config::from_json)
}

/// `ArchLoader` for the family's config.json.
pub fn load(
    gpu: &Gpu,
    config_path: &Path,
    src: &dyn TensorSource,
    format: WeightFormat,
) -> Result<Box<dyn TextArch>, ModelError> {
    let cfg = read_config(config_path)?;
    let weights = Qwen35Weights::load(gpu, src, &cfg, format)?;
    Ok(Box::new(Qwen35Arch { cfg, weights }))
}

impl TextArch for Qwen35Arch {
    fn family(&self) -> &'static str {
        "qwen3_5"
    }
    fn config(&self) -> &TextConfig {
        &self.cfg
    }
    fn weight_bytes(&self) -> u64 {
        self.weights.bytes()
    }
    fn attention_layers(&self) -> usize {
        self.cfg.layer_kinds.iter().filter(|k| **k == LayerKind::Full).count()
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
        io.cos_sin = Some(c.rope_table(gpu, c.rotary_dim, &RopeScaling::None, max_seq)?);
        for (i, kind) in c.layer_kinds.iter().enumerate() {
            io.layers.push(match kind {
                LayerKind::Full => c.kv_state(gpu, i, slots, max_seq, kv)?,
                LayerKind::Linear => LayerState::Recurrent(vec![
                    DeviceTensor::zeros(
                        gpu,
                        &format!("conv_state.{i}"),
                        slots * c.conv_dim() * c.conv_kernel,
                        c.conv_kernel,
                    )?,
                    DeviceTensor::zeros(gpu, &format!("delta_state.{i}"), slots * c.v_heads * c.dk * c.dv, c.dv)?,
                ]),
            });
        }
        Ok(io)
    }

    fn build_graph(&self, io: &GraphIo, mode: Mode) -> Built {
        super::graph::build_graph(&self.cfg, &self.weights, io, mode)
    }
}
