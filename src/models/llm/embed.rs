//! Text embeddings from a decoder model (Qwen3-Embedding and other sentence-transformers
//! checkpoints of the text families): the prompt runs as a prefill whose graph ends at the final
//! norm (`Mode::Embed`), and the hidden rows are pooled as the checkpoint's `1_Pooling` says (last
//! token, mean or first token), then L2-normalised where its `modules.json` has a Normalize module.

use crate::executor::Executor;
use crate::graph::{Plan, PlanOptions, TensorId};
use crate::models::decoder::{GraphIo, Mode};
use crate::models::embedding::{normalize, EmbedConfig, EmbeddingModel, Pooling};
use crate::models::llm::TextModel;
use crate::models::ModelError;

/// A text model's embedding plan: prompt chunks run one after another over one sequence's caches,
/// each input starting at position 0.
pub struct Embedder {
    exec: Executor,
    plan: Plan,
    io: GraphIo,
    hidden: TensorId,
    width: usize,
    vocab: usize,
    chunk: usize,
    pub config: EmbedConfig,
}

impl Embedder {
    pub fn new(model: &TextModel, config: EmbedConfig) -> Result<Embedder, ModelError> {
        let exec = model.exec.clone();
        let max_seq = model.max_context();
        let chunk = model.opts.prefill_chunk.min(max_seq).max(1);
        let io = model.arch.new_io(exec.gpu(), chunk, max_seq, model.opts.kv_dtype)?;
        let built = model.arch.build_graph(&io, Mode::Embed);
        let plan = exec.plan(built.graph, PlanOptions { max_rows: chunk, ..Default::default() })?;
        let (width, vocab) = (model.arch.config().hidden, model.arch.vocab());
        Ok(Embedder { exec, plan, io, hidden: built.logits, width, vocab, chunk, config })
    }

    /// Hybrid families carry conv and delta-rule state along the sequence: a new input starts from zero.
    fn clear_recurrent(&self) {
        let mut recurrent = self.io.recurrent_buffers().peekable();
        if recurrent.peek().is_none() {
            return;
        }
        let gpu = self.exec.gpu();
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        for t in recurrent {
            enc.clear_buffer(t.buffer(), 0, None);
        }
        gpu.queue.submit([enc.finish()]);
    }
}

impl EmbeddingModel for Embedder {
    fn dims(&self) -> usize {
        self.width
    }

    fn max_tokens(&self) -> usize {
        self.io.max_seq
    }

    fn vocab(&self) -> usize {
        self.vocab
    }

    fn config(&self) -> &EmbedConfig {
        &self.config
    }

    fn embed(&mut self, tokens: &[u32]) -> Result<Vec<f32>, ModelError> {
        if tokens.is_empty() {
            return Err(ModelError::Unsupported("an input of no tokens has no embedding".into()));
        }
        if tokens.len() > self.io.max_seq {
            return Err(ModelError::ContextFull { need: tokens.len(), max: self.io.max_seq });
        }
        self.clear_recurrent();
        let gpu = self.exec.gpu().clone();
        let w = self.width;
        let mut sum = vec![0f64; w];
        let mut pooled = None;
        for (i, chunk) in tokens.chunks(self.chunk).enumerate() {
            gpu.queue.write_buffer(self.io.tokens_in.buffer(), 0, bytemuck::cast_slice(chunk));
            self.plan.run(chunk.len(), i * self.chunk);
            let buf = self.plan.buffer(self.hidden);
            let last = i * self.chunk + chunk.len() == tokens.len();
            match self.config.pooling {
                Pooling::Mean => {
                    let rows = read_rows(&gpu, buf, 0, chunk.len() * w)?;
                    for row in rows.chunks_exact(w) {
                        sum.iter_mut().zip(row).for_each(|(s, v)| *s += *v as f64);
                    }
                }
                Pooling::Cls if i == 0 => pooled = Some(read_rows(&gpu, buf, 0, w)?),
                Pooling::LastToken if last => pooled = Some(read_rows(&gpu, buf, (chunk.len() - 1) * w, w)?),
                _ => {}
            }
        }
        let mut v = match pooled {
            Some(v) => v,
            None => sum.iter().map(|s| (*s / tokens.len() as f64) as f32).collect(),
        };
        if self.config.normalize {
            normalize(&mut v);
        }
        Ok(v)
    }
}

/// `len` f32 values from element `first` of `buf`.
fn read_rows(gpu: &crate::gpu::Gpu, buf: &wgpu::Buffer, first: usize, len: usize) -> Result<Vec<f32>, ModelError> {
    let bytes = gpu.read_bytes_at(buf, first as u64 * 4, len as u64 * 4)?;
    Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect())
}
