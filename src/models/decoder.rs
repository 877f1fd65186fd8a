//! What every decoder-only text family gives the engine: a per-sequence state
//! layout and a graph builder for prefill and decode. A family lives in its own
//! folder (llama/, qwen3_5/, lfm2/, ...), builds on `models::text_base` (the config,
//! weights, state and graph pieces the families share) and registers its
//! `architectures` names in `models::registry::TEXT_ARCHITECTURES`.

use std::path::Path;
use std::sync::Arc;

use crate::gpu::{Gpu, KvDtype};
use crate::graph::tensor::KvPages;
use crate::graph::{DeviceTensor, Graph, TensorId};
use crate::models::text_config::TextConfig;
use crate::models::ModelError;
use crate::weights::{TensorSource, WeightFormat};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Many tokens; logits for every row when `all_logits`, else only the last.
    Prefill { all_logits: bool },
    /// One token, read from the previous step's sampled id on the GPU.
    Decode,
    /// One new token for each of up to `GraphIo::slots` sequences (batched decode, see `TextArch::new_batched_io`):
    /// row r embeds `tokens_in[r]`, belongs to KV slot `rows[2r]` at position `rows[2r + 1]`, and its argmax
    /// lands in `next_token[r]`. Logits have one row per sequence.
    BatchedDecode,
    /// Prompt tokens of several sequences in one step, over the batched decode state (a packed
    /// prefill, `TextArch::supports_batched_decode` families): row r embeds `tokens_in[r]` and belongs to
    /// KV slot `rows[2r]` at position `rows[2r + 1]`; rows 0..outputs (`Plan::set_outputs`) are the
    /// sequences' last tokens, whose logits and argmax (`next_token[r]`) the step computes.
    PackedPrefill,
    /// Many tokens as a prefill, for an embedding model: the graph ends at the final norm, whose rows
    /// (`Built::logits`, [rows, hidden]) are the hidden states the pooling reads; no lm_head.
    Embed,
}

/// How a state's KV caches are allocated: their value type, and for a batched decoder's paged pool
/// its shape and block table (None: a region of max_seq positions per slot).
#[derive(Debug, Clone, Default)]
pub struct KvSpec {
    pub dtype: KvDtype,
    pub pages: Option<KvPages>,
}

impl From<KvDtype> for KvSpec {
    fn from(dtype: KvDtype) -> Self {
        KvSpec { dtype, pages: None }
    }
}

/// One layer's per-sequence device state.
pub enum LayerState {
    /// KV cache rows [kv_heads, max_seq, head_dim]; positions >= pos are never read, so no reset is needed.
    Attention { k_cache: Arc<DeviceTensor>, v_cache: Arc<DeviceTensor> },
    /// Recurrent state (conv windows, delta-rule matrices), in the family's own order: zeroed when the
    /// sequence restarts.
    Recurrent(Vec<Arc<DeviceTensor>>),
}

/// Buffers shared between the prefill and decode graphs of one sequence.
pub struct GraphIo {
    /// Prompt token ids of a prefill step (chunk capacity).
    pub tokens_in: Arc<DeviceTensor>,
    /// The sampled id: written by argmax, read by the next decode step's embedding.
    pub next_token: Arc<DeviceTensor>,
    /// Rotary cos/sin table [max_seq, rotary_dim/2, 2], for families with rotary attention.
    pub cos_sin: Option<Arc<DeviceTensor>>,
    pub layers: Vec<LayerState>,
    pub max_seq: usize,
    /// Batched decode state only: (slot, position) per row, and the number of slots the caches hold.
    pub rows: Option<Arc<DeviceTensor>>,
    pub slots: usize,
}

impl GraphIo {
    /// The buffers every family has; `layers` and `cos_sin` are the family's to fill.
    pub fn base(gpu: &Gpu, chunk: usize, max_seq: usize) -> Result<GraphIo, ModelError> {
        Ok(GraphIo {
            tokens_in: DeviceTensor::u32(gpu, "tokens_in", &vec![0; chunk])?,
            next_token: DeviceTensor::u32(gpu, "next_token", &[0])?,
            cos_sin: None,
            layers: Vec::new(),
            max_seq,
            rows: None,
            slots: 1,
        })
    }

    /// Makes this `slots`-region state a batched decode's: a sampled id and a (slot, position) pair per row.
    pub fn with_rows(mut self, gpu: &Gpu, slots: usize) -> Result<GraphIo, ModelError> {
        self.slots = slots;
        self.next_token = DeviceTensor::u32(gpu, "next_tokens", &vec![0; slots])?;
        self.rows = Some(DeviceTensor::u32(gpu, "rows", &vec![0; 2 * slots])?);
        Ok(self)
    }

    /// A packed prefill's buffers over this batched state (`Mode::PackedPrefill`): its own token ids
    /// and (slot, position) rows for `chunk` rows and a sampled id per output row; the caches and the
    /// rope table are this state's.
    pub fn packed(&self, gpu: &Gpu, chunk: usize) -> Result<GraphIo, ModelError> {
        let layers = self
            .layers
            .iter()
            .map(|l| match l {
                LayerState::Attention { k_cache, v_cache } => {
                    LayerState::Attention { k_cache: k_cache.clone(), v_cache: v_cache.clone() }
                }
                LayerState::Recurrent(v) => LayerState::Recurrent(v.clone()),
            })
            .collect();
        let outputs = chunk.min(crate::graph::ir::OUTPUT_ROWS);
        Ok(GraphIo {
            tokens_in: DeviceTensor::u32(gpu, "packed tokens_in", &vec![0; chunk])?,
            next_token: DeviceTensor::u32(gpu, "packed next_tokens", &vec![0; outputs])?,
            cos_sin: self.cos_sin.clone(),
            layers,
            max_seq: self.max_seq,
            rows: Some(DeviceTensor::u32(gpu, "packed rows", &vec![0; 2 * chunk])?),
            slots: self.slots,
        })
    }

    /// Every buffer that must be zeroed when the sequence restarts.
    pub fn recurrent_buffers(&self) -> impl Iterator<Item = &Arc<DeviceTensor>> {
        self.layers.iter().flat_map(|l| match l {
            LayerState::Recurrent(v) => v.as_slice(),
            LayerState::Attention { .. } => &[],
        })
    }
}

pub struct Built {
    pub graph: Graph,
    pub logits: TensorId,
    pub next_token: TensorId,
}

/// A loaded decoder-only text model of some family.
pub trait TextArch: Send + Sync {
    /// The family's name, for logs and errors.
    fn family(&self) -> &'static str;
    /// The hyper-parameters every family has.
    fn config(&self) -> &TextConfig;
    fn vocab(&self) -> usize {
        self.config().vocab
    }
    fn layers(&self) -> usize {
        self.config().layers
    }
    /// The model's own context limit (max_position_embeddings).
    fn max_positions(&self) -> usize {
        self.config().max_pos
    }
    fn eos(&self) -> &[u32] {
        &self.config().eos
    }
    fn bos(&self) -> Option<u32> {
        self.config().bos
    }
    /// Bytes of weights one decode step reads.
    fn weight_bytes(&self) -> u64;
    /// Layers with a KV cache (the hybrid families' others keep recurrent state).
    fn attention_layers(&self) -> usize {
        self.layers()
    }
    /// KV cache bytes of one position of one sequence, with values of `kv`.
    fn kv_bytes_per_position(&self, kv: KvDtype) -> usize {
        let c = self.config();
        2 * self.attention_layers() * c.kv_heads * c.head_dim * kv.bytes()
    }
    /// The rope table and, per layer, `slots` regions of sequence state for `max_seq` tokens each (KV
    /// caches as `kv` says: [slots, kv_heads, max_seq, head_dim] or a paged pool; recurrent state
    /// [slots, ..] of one sequence's), token ids for `chunk` rows.
    fn new_state(
        &self,
        gpu: &Gpu,
        chunk: usize,
        max_seq: usize,
        slots: usize,
        kv: &KvSpec,
    ) -> Result<GraphIo, ModelError>;
    fn build_graph(&self, io: &GraphIo, mode: Mode) -> Built;
    /// Allocates one sequence's state for `max_seq` tokens, prefill chunks of `chunk` tokens.
    fn new_io(&self, gpu: &Gpu, chunk: usize, max_seq: usize, kv: KvDtype) -> Result<GraphIo, ModelError> {
        self.new_state(gpu, chunk, max_seq, 1, &kv.into())
    }
    /// Whether `Mode::BatchedDecode` graphs exist for this family.
    fn supports_batched_decode(&self) -> bool {
        true
    }
    /// State for batched decode of `slots` sequences of up to `max_seq` tokens each, with token ids and
    /// (slot, pos) pairs for `slots` rows.
    fn new_batched_io(&self, gpu: &Gpu, slots: usize, max_seq: usize, kv: &KvSpec) -> Result<GraphIo, ModelError> {
        self.new_state(gpu, slots, max_seq, slots, kv)?.with_rows(gpu, slots)
    }
}

/// Loads one family from a transformers config.json and a tensor source.
pub type ArchLoader = fn(
    gpu: &Gpu,
    config_path: &Path,
    src: &dyn TensorSource,
    format: WeightFormat,
) -> Result<Box<dyn TextArch>, ModelError>;
