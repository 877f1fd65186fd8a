//! Moving a slot's sequence between its regions of the batched state and the scratch session that
//! runs its prefill and single-sequence steps: KV rows by position, recurrent state whole.

use super::{buf, BatchedDecoder, Last, Slot};
use crate::models::decoder::LayerState;

impl BatchedDecoder {
    /// Where positions [from, to) of the slot's sequence lie in the batched caches, for kv head 0, as
    /// runs (first position, end, row of the first position); kv head h's rows are `head_rows * h`
    /// further. One run for a region per slot; with a paged pool, one per range of consecutive blocks.
    fn kv_runs(&self, slot: Slot, from: usize, to: usize) -> (Vec<(usize, usize, usize)>, usize) {
        let ms = self.io.max_seq;
        let Some(pool) = &self.pool else {
            return (vec![(from, to, slot * self.kv_heads * ms + from)], ms);
        };
        let (bt, table) = (pool.block_tokens(), pool.table_row(slot));
        let mut runs: Vec<(usize, usize, usize)> = Vec::new();
        let mut at = from;
        while at < to {
            let end = to.min((at / bt + 1) * bt);
            let row = table[at / bt] as usize * bt + at % bt;
            match runs.last_mut() {
                Some(last) if last.2 + (last.1 - last.0) == row => last.1 = end,
                _ => runs.push((at, end, row)),
            }
            at = end;
        }
        (runs, pool.usage().total * bt)
    }

    /// Copies positions [from, to) of every layer's K and V between the slot's place in the batched
    /// caches and the scratch session's caches.
    pub(super) fn copy_kv(&self, enc: &mut wgpu::CommandEncoder, slot: Slot, from: usize, to: usize, into_slot: bool) {
        if from >= to {
            return;
        }
        let (hd, ms) = (self.head_dim as u64, self.io.max_seq as u64);
        let row_bytes = hd * self.kv_value_bytes as u64;
        let (runs, head_rows) = self.kv_runs(slot, from, to);
        for (big, small) in self.io.layers.iter().zip(&self.scratch.io().layers) {
            let (
                LayerState::Attention { k_cache: bk, v_cache: bv },
                LayerState::Attention { k_cache: sk, v_cache: sv },
            ) = (big, small)
            else {
                continue;
            };
            for (b, s) in [(bk, sk), (bv, sv)] {
                for h in 0..self.kv_heads as u64 {
                    for &(a, e, row) in &runs {
                        let small_off = (h * ms + a as u64) * row_bytes;
                        let big_off = (h * head_rows as u64 + row as u64) * row_bytes;
                        let size = (e - a) as u64 * row_bytes;
                        if into_slot {
                            enc.copy_buffer_to_buffer(buf(s), small_off, buf(b), big_off, size);
                        } else {
                            enc.copy_buffer_to_buffer(buf(b), big_off, buf(s), small_off, size);
                        }
                    }
                }
            }
        }
    }

    /// Copies every recurrent layer state between the slot's region and the scratch session's.
    pub(super) fn copy_recurrent(&self, enc: &mut wgpu::CommandEncoder, slot: Slot, into_slot: bool) {
        for (big, small) in self.io.layers.iter().zip(&self.scratch.io().layers) {
            let (LayerState::Recurrent(big), LayerState::Recurrent(small)) = (big, small) else { continue };
            for (b, s) in big.iter().zip(small) {
                let size = buf(s).size();
                if into_slot {
                    enc.copy_buffer_to_buffer(buf(s), 0, buf(b), slot as u64 * size, size);
                } else {
                    enc.copy_buffer_to_buffer(buf(b), slot as u64 * size, buf(s), 0, size);
                }
            }
        }
    }

    /// Makes the scratch session hold the slot's sequence so far.
    pub(super) fn load_scratch(&mut self, slot: Slot) {
        if self.unflushed.is_some_and(|(s, _)| s != slot) {
            self.flush();
        }
        let pos = self.pos[slot];
        let from = match self.scratch_holds {
            Some((s, n)) if s == slot && n <= pos => n,
            _ => 0,
        };
        // Recurrent state describes one position: the scratch's is the slot's only where it holds
        // all of the sequence; a new sequence starts from zeros (reset), any other from the slot's.
        let state_held = self.recurrent && pos > 0 && self.scratch_holds == Some((slot, pos));
        if !state_held {
            self.scratch.reset();
        }
        self.scratch.pos = pos;
        let copy_state = self.recurrent && !state_held && pos > 0;
        if from < pos || copy_state {
            let mut enc = self.gpu.device.create_command_encoder(&Default::default());
            self.copy_kv(&mut enc, slot, from, pos, false);
            if copy_state {
                self.copy_recurrent(&mut enc, slot, false);
            }
            self.gpu.queue.submit([enc.finish()]);
        }
    }

    /// After a scratch prefill of positions [start, pos): the last logits row and greedy token into the
    /// slot's prefill outputs. The KV rows (and recurrent state) stay in the scratch until a batched step
    /// or another slot needs them (`flush`): the first token does not wait for their copy, and a lone
    /// sequence goes on decoding in the scratch without it.
    pub(super) fn store_scratch(&mut self, slot: Slot, start: usize) {
        let end = self.scratch.pos;
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        self.park_scratch_outputs(&mut enc, slot);
        self.gpu.queue.submit([enc.finish()]);
        let from = match self.unflushed {
            Some((s, f)) if s == slot => f.min(start),
            _ => start,
        };
        debug_assert!(self.unflushed.is_none_or(|(s, _)| s == slot), "load_scratch flushed other slots");
        self.unflushed = Some((slot, from));
        self.pos[slot] = end;
        self.last[slot] = Last::Prefill;
        self.scratch_holds = Some((slot, end));
    }

    /// Copies the scratch's last logits row and sampled token into the slot's parked outputs.
    pub(super) fn park_scratch_outputs(&self, enc: &mut wgpu::CommandEncoder, slot: Slot) {
        let (lbuf, loff) = self.scratch.last_logits_row();
        let row = (self.vocab * 4) as u64;
        enc.copy_buffer_to_buffer(lbuf, loff, &self.prefill_logits, slot as u64 * row, row);
        enc.copy_buffer_to_buffer(buf(&self.scratch.io().next_token), 0, &self.prefill_tokens, slot as u64 * 4, 4);
    }

    /// Hands the scratch back: the KV rows of single-sequence steps go into their slot's region, and
    /// where such a step is the slot's latest, its outputs into the slot's parked outputs.
    pub(super) fn flush(&mut self) {
        let Some((slot, from)) = self.unflushed.take() else { return };
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        self.copy_kv(&mut enc, slot, from, self.pos[slot], true);
        if self.recurrent {
            self.copy_recurrent(&mut enc, slot, true);
        }
        if self.last[slot] == Last::Solo {
            self.park_scratch_outputs(&mut enc, slot);
            self.last[slot] = Last::Prefill;
        }
        self.gpu.queue.submit([enc.finish()]);
    }
}
