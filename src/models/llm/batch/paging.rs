//! The batched decoder's paged KV pool (`LoadOptions::kv_pool`): the blocks a slot's sequence holds
//! as it grows, given back when a new sequence starts, kept as a cached prefix when it ends (and
//! parked under an id of their own when the slot takes another sequence); and the block table the
//! rows kernels read.

use super::{BatchedDecoder, HolderId, PoolUsage, Slot};
use crate::models::ModelError;

impl BatchedDecoder {
    /// Positions the batched caches hold: max_seq per slot, or the paged pool's blocks.
    pub(super) fn cache_positions(&self) -> usize {
        self.pool.as_ref().map_or(self.slots() * self.io.max_seq, |p| p.usage().total * p.block_tokens())
    }

    /// The paged pool's occupancy (None: a region per slot).
    pub fn pool_usage(&self) -> Option<PoolUsage> {
        self.pool.as_ref().map(|p| p.usage())
    }

    /// Released slots and parked prefixes whose kept K/V were given to other sequences since the last
    /// call: a prefix cache must forget them.
    pub fn take_evicted(&mut self) -> Vec<HolderId> {
        std::mem::take(&mut self.evicted)
    }

    /// The free slot is about to take a new sequence that does not continue what it kept: moves the
    /// kept K/V to a parked prefix (no copy; a paged pool only, and only for families without
    /// recurrent state, whose reuse needs the slot's own state). `reuse_prefix` may start later
    /// sequences from it until the pool needs its blocks (`take_evicted` then names it). None: nothing
    /// was kept, or it cannot be parked (the slot's new sequence overwrites it).
    pub fn park(&mut self, slot: Slot) -> Option<HolderId> {
        if self.recurrent || self.pos.get(slot) != Some(&0) || self.kept[slot] == 0 {
            return None;
        }
        let id = self.pool.as_mut()?.park(slot)?;
        self.parked.insert(id, std::mem::take(&mut self.kept[slot]));
        // The scratch's copy of those rows now belongs to the parked prefix, not to the slot.
        if self.scratch_holds.is_some_and(|(s, _)| s == slot) {
            self.scratch_holds = None;
        }
        self.table_dirty = true;
        Some(id)
    }

    /// Makes the slot's sequence live in the pool with blocks for its first `positions` positions
    /// (a paged pool; nothing otherwise). A released slot's kept blocks may be taken for it.
    pub(super) fn hold(&mut self, slot: Slot, positions: usize) -> Result<(), ModelError> {
        let Some(pool) = self.pool.as_mut() else { return Ok(()) };
        pool.start(slot);
        let before = pool.table_row(slot).len();
        let evicted =
            pool.ensure(slot, positions).map_err(|e| ModelError::KvPoolFull { need: e.need, free: e.free })?;
        for &h in &evicted {
            match self.kept.get_mut(h) {
                Some(kept) => *kept = 0,
                None => _ = self.parked.remove(&h),
            }
        }
        self.table_dirty |= !evicted.is_empty() || pool.table_row(slot).len() != before;
        self.evicted.extend(evicted);
        Ok(())
    }

    /// A slot starting a new sequence from its first `keep` positions: the blocks past them go back.
    pub(super) fn restart(&mut self, slot: Slot, keep: usize) {
        if let Some(pool) = self.pool.as_mut() {
            pool.start(slot);
            let before = pool.table_row(slot).len();
            pool.truncate(slot, keep);
            self.table_dirty |= pool.table_row(slot).len() != before;
        }
    }

    /// Writes the block table where a holder changed (before work that reads it is submitted: the
    /// queue orders the write after the steps already submitted).
    pub(super) fn sync_table(&mut self) {
        let (Some(pool), Some((table, stride))) = (&self.pool, &self.kv_table) else { return };
        if !std::mem::take(&mut self.table_dirty) {
            return;
        }
        let mut words = vec![0u32; self.pos.len() * stride];
        for (slot, row) in words.chunks_mut(*stride).enumerate() {
            let held = pool.table_row(slot);
            row[..held.len()].copy_from_slice(held);
        }
        self.gpu.queue.write_buffer(table, 0, bytemuck::cast_slice(&words));
    }

    /// Before `more` positions are appended to the slot's sequence: a new sequence (empty slot) gives
    /// back what the slot kept of its last one, and the pool gives the room (or fails, changing nothing
    /// the sequence holds).
    pub(super) fn begin_append(&mut self, slot: Slot, more: usize) -> Result<(), ModelError> {
        if self.pos[slot] == 0 {
            self.restart(slot, 0);
        }
        self.hold(slot, self.pos[slot] + more)?;
        self.kept[slot] = 0;
        Ok(())
    }
}
