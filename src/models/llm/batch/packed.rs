//! Packed prefill: the prompt chunks of several sequences in ONE step over the batched caches, as
//! llama-server and vLLM batch prompts. Each row carries its own (slot, position), so every weight is
//! read once for all the prompts and one submission serves them all; 32 short prompts arriving
//! together no longer wait for 31 separate prefills and readbacks before the last one's first token.
//!
//! Row order: each sequence's last token first (rows 0..outputs, whose logits and argmax the step
//! computes), then the rest of the chunks. Every row's K/V is appended before any row attends, so a
//! sequence's rows see each other (and whatever the slot held before).

use super::{buf, BatchedDecoder, Last, Slot};
use crate::graph::ir::OUTPUT_ROWS;
use crate::graph::{Plan, PlanOptions, TensorId};
use crate::models::decoder::{GraphIo, Mode};
use crate::models::llm::TextModel;
use crate::models::ModelError;

/// The packed prefill plan and its own inputs (token ids, rows) and outputs.
pub(super) struct Packed {
    plan: Plan,
    io: GraphIo,
    logits: TensorId,
}

impl Packed {
    /// A plan of `chunk` rows over the batched state `io` (no fusion passes: a prefill plan).
    pub(super) fn new(model: &TextModel, io: &GraphIo, chunk: usize) -> Result<Packed, ModelError> {
        let io = io.packed(model.exec.gpu(), chunk)?;
        let built = model.arch.build_graph(&io, Mode::PackedPrefill);
        let cap = model.opts.fusion.max_storage_buffers;
        let plan = model.exec.plan(built.graph, PlanOptions { max_rows: chunk, max_storage_buffers: cap })?;
        Ok(Packed { plan, io, logits: built.logits })
    }

    /// Most prompt tokens one packed step takes.
    pub(super) fn max_rows(&self) -> usize {
        self.plan.max_rows
    }

    /// Most sequences one packed step takes.
    pub(super) fn max_seqs(&self) -> usize {
        self.plan.max_rows.min(OUTPUT_ROWS)
    }
}

impl BatchedDecoder {
    /// Most prompt tokens and sequences one `prefill_packed` takes (None: no packed plan).
    pub fn packed_capacity(&self) -> Option<(usize, usize)> {
        self.packed.as_ref().map(|p| (p.max_rows(), p.max_seqs().min(self.slots())))
    }

    /// Appends `seqs[i].1` to slot `seqs[i].0`'s sequence for every i in ONE step; each slot's logits and
    /// greedy token after its chunk are parked as `prefill` parks them. Slots must be distinct, and the
    /// chunks within `packed_capacity`. false: this decoder has no packed plan (prefill one at a time).
    /// Submits work.
    pub fn prefill_packed(&mut self, seqs: &[(Slot, &[u32])]) -> Result<bool, ModelError> {
        let Some((max_rows, max_seqs)) = self.packed_capacity() else { return Ok(false) };
        let seqs: Vec<(Slot, &[u32])> = seqs.iter().copied().filter(|s| !s.1.is_empty()).collect();
        if seqs.is_empty() {
            return Ok(true);
        }
        let total: usize = seqs.iter().map(|s| s.1.len()).sum();
        if total > max_rows || seqs.len() > max_seqs {
            return Err(ModelError::Unsupported(format!(
                "a packed prefill of {total} tokens in {} sequences (at most {max_rows} in {max_seqs})",
                seqs.len()
            )));
        }
        for (i, &(slot, tokens)) in seqs.iter().enumerate() {
            self.check_slot(slot)?;
            self.room(slot, tokens.len())?;
            if seqs[..i].iter().any(|s| s.0 == slot) {
                return Err(ModelError::Unsupported(format!("slot {slot} twice in one packed prefill")));
            }
        }
        for &(slot, tokens) in &seqs {
            self.begin_append(slot, tokens.len())?;
        }
        // Rows of single-sequence steps still only in the scratch cache go into their slot first.
        self.flush();
        self.sync_table();
        let (tokens, rows) = self.packed_rows(&seqs);
        let longest = self.packed_context(&seqs);
        let p = self.packed.as_ref().expect("checked above");
        let gpu = &self.gpu;
        gpu.queue.write_buffer(buf(&p.io.tokens_in), 0, bytemuck::cast_slice(&tokens));
        gpu.queue.write_buffer(buf(p.io.rows.as_ref().expect("packed io has rows")), 0, bytemuck::cast_slice(&rows));
        p.plan.set_outputs(seqs.len());
        p.plan.set_rows_context(longest);
        let vocab_bytes = (self.vocab * 4) as u64;
        let (logits, sampled) = (p.plan.buffer(p.logits), buf(&p.io.next_token));
        let (parked_logits, parked_tokens) = (&self.prefill_logits, &self.prefill_tokens);
        p.plan.run_between(
            tokens.len(),
            0,
            |_| {},
            |enc| {
                for (r, &(slot, _)) in seqs.iter().enumerate() {
                    let (r, slot) = (r as u64, slot as u64);
                    enc.copy_buffer_to_buffer(logits, r * vocab_bytes, parked_logits, slot * vocab_bytes, vocab_bytes);
                    enc.copy_buffer_to_buffer(sampled, r * 4, parked_tokens, slot * 4, 4);
                }
            },
        );
        for &(slot, t) in &seqs {
            self.pos[slot] += t.len();
            self.kept[slot] = 0;
            self.last[slot] = Last::Prefill;
        }
        Ok(true)
    }

    /// The longest context a row of the step reaches, which sizes the split attention's grid (each row
    /// still takes only the splits its own context needs: a wrong value costs speed, not output).
    fn packed_context(&self, seqs: &[(Slot, &[u32])]) -> usize {
        seqs.iter().map(|&(s, t)| self.pos[s] + t.len()).max().unwrap_or(1)
    }

    /// The step's token ids and (slot, position) rows: each sequence's last token first, in `seqs`
    /// order, then the other tokens.
    fn packed_rows(&self, seqs: &[(Slot, &[u32])]) -> (Vec<u32>, Vec<u32>) {
        let total: usize = seqs.iter().map(|s| s.1.len()).sum();
        let (mut tokens, mut rows) = (Vec::with_capacity(total), Vec::with_capacity(2 * total));
        for &(slot, t) in seqs {
            tokens.push(t[t.len() - 1]);
            rows.extend([slot as u32, (self.pos[slot] + t.len() - 1) as u32]);
        }
        for &(slot, t) in seqs {
            for (i, &tok) in t[..t.len() - 1].iter().enumerate() {
                tokens.push(tok);
                rows.extend([slot as u32, (self.pos[slot] + i) as u32]);
            }
        }
        (tokens, rows)
    }
}
