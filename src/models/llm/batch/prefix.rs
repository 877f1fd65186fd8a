//! A slot's K/V after its sequence ends, and a new sequence starting from a prefix of them (the
//! server's prefix cache: a chat's next turn, a shared system prompt).

use super::{BatchedDecoder, HolderId, Last, Slot};
use crate::models::ModelError;

impl BatchedDecoder {
    /// Ends the slot's sequence. Its K/V stay in the slot's region (single-sequence steps' rows are
    /// copied there first) until a new sequence overwrites them, so the next one may start from a
    /// prefix of it (`reuse_prefix`).
    pub fn release(&mut self, slot: Slot) {
        if slot < self.pos.len() {
            if self.unflushed.is_some_and(|(s, _)| s == slot) {
                self.flush();
            }
            self.kept[slot] = self.pos[slot];
            self.pos[slot] = 0;
            self.last[slot] = Last::None;
            if let Some(pool) = self.pool.as_mut() {
                pool.release(slot);
            }
        }
    }

    /// Positions of the slot's cache that hold its sequence: the live one's, or what it kept of its
    /// last one; for a parked prefix's id, what it holds (0 once a paged pool gave those blocks to
    /// another sequence).
    pub fn held(&self, holder: HolderId) -> usize {
        match self.pos.get(holder) {
            Some(&p) => p.max(self.kept[holder]),
            None => self.parked.get(&holder).copied().unwrap_or(0),
        }
    }

    /// Starts a new sequence in the free slot `to` with the first `n` positions of the K/V that `from`
    /// holds: a slot's live sequence or the one it held when released (`from` may be `to`), or a
    /// parked prefix (`park`). The caller knows the tokens behind them. The next `prefill` appends
    /// after position `n`.
    pub fn reuse_prefix(&mut self, from: HolderId, to: Slot, n: usize) -> Result<(), ModelError> {
        if !self.parked.contains_key(&from) {
            self.check_slot(from)?;
        }
        self.check_slot(to)?;
        if !self.can_reuse_prefix(from, to, n) {
            return Err(ModelError::Unsupported(format!(
                "recurrent state continues only its own whole sequence (slot {from}, {n} positions, into slot {to})"
            )));
        }
        let held = self.held(from);
        if n > held || self.pos[to] != 0 || n > self.io.max_seq {
            return Err(ModelError::Unsupported(format!(
                "reusing {n} positions of slot {from} (it holds {held}) in slot {to} (holding {})",
                self.pos[to]
            )));
        }
        if from != to {
            // The caches are one buffer and a copy may not read and write the same buffer: the rows
            // go through the scratch cache, which then holds the new sequence's prefix (its prefill
            // attends over them there). With a paged pool `to` shares the prefix's whole blocks and
            // gets its own copy of the part block after them. The copy out of `from` is recorded
            // first: the room `to` gets may be `from`'s own kept blocks.
            self.flush();
            let mut enc = self.gpu.device.create_command_encoder(&Default::default());
            self.copy_kv(&mut enc, from, 0, n, false);
            self.scratch_holds = None;
            self.restart(to, 0);
            let shared = match self.pool.as_mut() {
                Some(pool) => {
                    let whole = n / pool.block_tokens();
                    pool.share(from, to, whole);
                    self.table_dirty = true;
                    whole * pool.block_tokens()
                }
                None => 0,
            };
            if let Err(e) = self.hold(to, n) {
                self.gpu.queue.submit([enc.finish()]);
                return Err(e);
            }
            self.copy_kv(&mut enc, to, shared, n, true);
            self.gpu.queue.submit([enc.finish()]);
            self.scratch_holds = Some((to, n));
        } else if self.part_block_shared(to, n) {
            // The sequence goes on inside a block another sequence shares (it took this slot's prefix
            // while it was live): the part before n moves to a block of its own, through the scratch.
            self.flush();
            let whole = n - n % self.pool.as_ref().map_or(1, |p| p.block_tokens());
            let mut enc = self.gpu.device.create_command_encoder(&Default::default());
            self.copy_kv(&mut enc, to, whole, n, false);
            self.scratch_holds = None;
            self.restart(to, whole);
            if let Err(e) = self.hold(to, n) {
                self.gpu.queue.submit([enc.finish()]);
                return Err(e);
            }
            self.copy_kv(&mut enc, to, whole, n, true);
            self.gpu.queue.submit([enc.finish()]);
        } else {
            self.restart(to, n);
            if let Some((s, m)) = self.scratch_holds.filter(|&(s, _)| s == to) {
                self.scratch_holds = Some((s, m.min(n)));
            }
        }
        self.kept[to] = 0;
        self.pos[to] = n;
        self.last[to] = Last::None;
        Ok(())
    }

    /// Whether a sequence keeping the slot's first `n` positions would write into a block of the paged
    /// pool that another sequence shares (the one holding position n, when n is not a block's start).
    fn part_block_shared(&self, slot: Slot, n: usize) -> bool {
        self.pool.as_ref().is_some_and(|p| !n.is_multiple_of(p.block_tokens()) && p.shared(slot, n / p.block_tokens()))
    }

    /// Whether `reuse_prefix(from, to, n)` can be done by this family: with recurrent layer state
    /// (which describes a whole sequence), only a released slot's whole sequence, into that slot
    /// (a chat's next turn); and only while the slot still holds them (a paged pool may have given
    /// them to another sequence).
    pub fn can_reuse_prefix(&self, from: HolderId, to: Slot, n: usize) -> bool {
        let whole = from == to && self.pos.get(to) == Some(&0) && self.kept.get(to) == Some(&n);
        self.held(from) >= n && (!self.recurrent || whole)
    }
}
