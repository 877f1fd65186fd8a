//! LFM2 as a `TextArch`: KV caches for attention layers, a rolling conv state
//! [L-1, hidden] for short-conv layers (zeroed by `Session::reset`).

use std::path::Path;

use super::config::{LayerKind, Lfm2Config, RawConfig};
use super::graph::build_graph;
use super::Lfm2Weights;
use crate::gpu::Gpu;
use crate::graph::DeviceTensor;
use crate::models::decoder::{Built, GraphIo, LayerState, Mode, TextArch};
use crate::models::rope::{cos_sin_table, inv_freq, RopeScaling};
use crate::models::{read_json, ModelError};
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
    let raw: RawConfig = read_json(config_path)?;
    Lfm2Config::from_raw(&raw).map_err(|msg| ModelError::Config { path: config_path.to_path_buf(), msg })
}

impl TextArch for Lfm2Arch {
    fn family(&self) -> &'static str {
        "lfm2"
    }
    fn vocab(&self) -> usize {
        self.cfg.vocab
    }
    fn layers(&self) -> usize {
        self.cfg.layers()
    }
    fn max_positions(&self) -> usize {
        self.cfg.max_pos
    }
    fn eos(&self) -> &[u32] {
        &self.cfg.eos
    }
    fn bos(&self) -> Option<u32> {
        self.cfg.bos
    }
    fn weight_bytes(&self) -> u64 {
        self.weights.bytes()
    }

    fn new_io(&self, gpu: &Gpu, chunk: usize, max_seq: usize) -> Result<GraphIo, ModelError> {
        let c = &self.cfg;
        let mut io = GraphIo::base(gpu, chunk, max_seq)?;
        if c.layer_kinds.contains(&LayerKind::Attention) {
            let table = cos_sin_table(&inv_freq(c.rope_theta, c.head_dim, &RopeScaling::None), max_seq);
            io.cos_sin = Some(DeviceTensor::f32(gpu, "rope.cos_sin", &table, 2)?);
        }
        let kv_len = c.kv_heads * max_seq * c.head_dim;
        for (i, kind) in c.layer_kinds.iter().enumerate() {
            io.layers.push(match kind {
                LayerKind::Attention => LayerState::Attention {
                    k_cache: DeviceTensor::zeros(gpu, &format!("k_cache.{i}"), kv_len, c.head_dim)?,
                    v_cache: DeviceTensor::zeros(gpu, &format!("v_cache.{i}"), kv_len, c.head_dim)?,
                },
                LayerKind::Conv => LayerState::Recurrent(vec![DeviceTensor::zeros(
                    gpu,
                    &format!("conv_state.{i}"),
                    (c.conv_kernel - 1) * c.hidden,
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
