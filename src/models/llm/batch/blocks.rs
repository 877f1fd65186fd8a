//! The paged KV pool's bookkeeping on the host: which blocks each slot's sequence holds (its block
//! table row), which are free, and which are kept as cached prefixes until a live sequence needs the
//! room (least recently released first). A released slot keeps its last sequence's blocks; when the
//! slot takes a new sequence they can be parked (held under an id of their own, no copy), so a
//! prefix outlives its slot for as long as the pool has room for it. A sequence starting from
//! another's prefix shares that prefix's whole blocks (read only: each sequence writes only past its
//! prefix), so a system prompt many requests share is held once.

use std::collections::{BTreeMap, BTreeSet};

/// Why blocks could not be had: every block is held by a live sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolFull {
    pub need: usize,
    pub free: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holder {
    Live,
    /// Released at this tick of the pool's clock: its blocks are a cached prefix, evictable.
    Kept(u64),
}

/// Who holds blocks: a slot (`0..slots`), or a parked prefix (`slots..`; ids are never given twice,
/// so a stale id names nothing rather than another prefix).
pub type HolderId = usize;

#[derive(Debug)]
pub struct BlockPool {
    block_tokens: usize,
    total: usize,
    /// Lowest first, so a sequence allocated in one go gets consecutive blocks (copied as one range).
    free: BTreeSet<u32>,
    /// Holders of each block: free at 0.
    refs: Vec<u32>,
    held: Vec<Vec<u32>>,
    holder: Vec<Holder>,
    /// Parked prefixes: their blocks and when their slot released them.
    parked: BTreeMap<HolderId, (Vec<u32>, u64)>,
    next_parked: HolderId,
    clock: u64,
}

/// Occupancy of the pool, in blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolUsage {
    pub block_tokens: usize,
    pub total: usize,
    /// Held by live sequences.
    pub live: usize,
    /// Kept by released slots and parked prefixes (a new sequence may reuse them; given up when room
    /// is needed).
    pub cached: usize,
}

impl BlockPool {
    pub fn new(blocks: usize, block_tokens: usize, slots: usize) -> BlockPool {
        BlockPool {
            block_tokens,
            total: blocks,
            free: (0..blocks as u32).collect(),
            refs: vec![0; blocks],
            held: vec![Vec::new(); slots],
            holder: vec![Holder::Kept(0); slots],
            parked: BTreeMap::new(),
            next_parked: slots,
            clock: 0,
        }
    }

    pub fn block_tokens(&self) -> usize {
        self.block_tokens
    }

    /// Blocks `positions` positions fill.
    pub fn blocks_for(&self, positions: usize) -> usize {
        positions.div_ceil(self.block_tokens)
    }

    /// The holder's blocks, in position order (a slot's block table row); empty for an id that holds
    /// nothing.
    pub fn table_row(&self, holder: HolderId) -> &[u32] {
        match self.held.get(holder) {
            Some(row) => row,
            None => self.parked.get(&holder).map_or(&[], |(row, _)| row),
        }
    }

    /// Blocks held (each once, however many holders share it): by a live sequence, or only by
    /// released slots and parked prefixes.
    pub fn usage(&self) -> PoolUsage {
        let mut live_block = vec![false; self.total];
        for (h, b) in self.holder.iter().zip(&self.held) {
            if *h == Holder::Live {
                b.iter().for_each(|&b| live_block[b as usize] = true);
            }
        }
        let live = live_block.iter().filter(|&&l| l).count();
        let cached = self.total - self.free.len() - live;
        PoolUsage { block_tokens: self.block_tokens, total: self.total, live, cached }
    }

    /// One holder fewer for each block; those no one holds any more are free.
    fn give_back(&mut self, blocks: impl IntoIterator<Item = u32>) {
        for b in blocks {
            self.refs[b as usize] -= 1;
            if self.refs[b as usize] == 0 {
                self.free.insert(b);
            }
        }
    }

    /// Whether the slot's `index`-th block is held by another holder too (a sequence must not write it).
    pub fn shared(&self, slot: usize, index: usize) -> bool {
        self.held[slot].get(index).is_some_and(|&b| self.refs[b as usize] > 1)
    }

    /// The empty slot `to` starts with the first `blocks` blocks of holder `from` (a prefix of whole
    /// blocks; `to` then writes only past them).
    pub fn share(&mut self, from: HolderId, to: usize, blocks: usize) {
        debug_assert!(self.held[to].is_empty(), "a sequence shares a prefix only when it starts");
        let row = self.table_row(from);
        let shared: Vec<u32> = row[..blocks.min(row.len())].to_vec();
        for &b in &shared {
            self.refs[b as usize] += 1;
        }
        self.held[to] = shared;
    }

    /// The slot's sequence is live: its blocks are no longer evictable.
    pub fn start(&mut self, slot: usize) {
        self.holder[slot] = Holder::Live;
    }

    /// The slot's sequence ended: its blocks stay as a cached prefix until room is needed.
    pub fn release(&mut self, slot: usize) {
        self.clock += 1;
        self.holder[slot] = Holder::Kept(self.clock);
    }

    /// Moves a released slot's kept blocks to a new parked prefix (no copy: the blocks stay where
    /// they are), keeping their place in the eviction order; the slot is left empty for a new
    /// sequence. None where the slot is live or keeps nothing.
    pub fn park(&mut self, slot: usize) -> Option<HolderId> {
        let Holder::Kept(at) = self.holder[slot] else { return None };
        if self.held[slot].is_empty() {
            return None;
        }
        let id = self.next_parked;
        self.next_parked += 1;
        self.parked.insert(id, (std::mem::take(&mut self.held[slot]), at));
        Some(id)
    }

    /// Gives back the slot's blocks past those `positions` positions fill.
    pub fn truncate(&mut self, slot: usize, positions: usize) {
        let keep = self.blocks_for(positions);
        if self.held[slot].len() > keep {
            let gone: Vec<u32> = self.held[slot].drain(keep..).collect();
            self.give_back(gone);
        }
    }

    /// The released slot or parked prefix given up first when room is needed (the least recently
    /// released), other than `except`.
    fn victim(&self, except: usize) -> Option<HolderId> {
        let slots =
            (0..self.held.len()).filter(|&s| s != except && !self.held[s].is_empty()).filter_map(|s| {
                match self.holder[s] {
                    Holder::Kept(t) => Some((t, s)),
                    Holder::Live => None,
                }
            });
        let parked = self.parked.iter().map(|(&id, &(_, t))| (t, id));
        slots.chain(parked).min().map(|(_, h)| h)
    }

    /// Makes the slot hold blocks for its first `positions` positions, taking free blocks first and then
    /// those of the least recently released slots and parked prefixes (never a live one's, nor the
    /// slot's own). Returns the holders whose kept blocks were taken (their cached prefixes are gone).
    pub fn ensure(&mut self, slot: usize, positions: usize) -> Result<Vec<HolderId>, PoolFull> {
        let need = self.blocks_for(positions).saturating_sub(self.held[slot].len());
        let mut evicted = Vec::new();
        while self.free.len() < need {
            let Some(h) = self.victim(slot) else {
                return Err(PoolFull { need, free: self.free.len() });
            };
            // Blocks it shares with others stay theirs: this may free fewer than it held.
            let gone = match self.held.get_mut(h) {
                Some(row) => std::mem::take(row),
                None => self.parked.remove(&h).map(|(row, _)| row).unwrap_or_default(),
            };
            self.give_back(gone);
            evicted.push(h);
        }
        for _ in 0..need {
            let b = self.free.pop_first().expect("counted above");
            self.refs[b as usize] = 1;
            self.held[slot].push(b);
        }
        Ok(evicted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_allocated_on_demand_lowest_first() {
        let mut p = BlockPool::new(10, 4, 3);
        assert_eq!((p.block_tokens(), p.blocks_for(0), p.blocks_for(8), p.blocks_for(9)), (4, 0, 2, 3));
        p.start(0);
        assert_eq!(p.ensure(0, 1), Ok(vec![]));
        assert_eq!(p.table_row(0), [0]);
        p.ensure(0, 4).unwrap();
        assert_eq!(p.table_row(0), [0], "4 positions fit one block of 4");
        p.ensure(0, 5).unwrap();
        assert_eq!(p.table_row(0), [0, 1]);
        p.start(1);
        p.ensure(1, 9).unwrap();
        assert_eq!(p.table_row(1), [2, 3, 4]);
        assert_eq!(p.usage(), PoolUsage { block_tokens: 4, total: 10, live: 5, cached: 0 });
        p.truncate(1, 4);
        assert_eq!(p.table_row(1), [2]);
        p.ensure(1, 12).unwrap();
        assert_eq!(p.table_row(1), [2, 3, 4], "given-back blocks come back lowest first");
    }

    #[test]
    fn a_full_pool_evicts_the_least_recently_released_slot_and_never_a_live_one() {
        let mut p = BlockPool::new(6, 2, 4);
        for s in 0..3 {
            p.start(s);
            p.ensure(s, 4).unwrap();
        }
        // Released in the order 2, 0: slot 2's prefix is the older.
        p.release(2);
        p.release(0);
        assert_eq!(p.usage(), PoolUsage { block_tokens: 2, total: 6, live: 2, cached: 4 });
        p.start(3);
        assert_eq!(p.ensure(3, 2), Ok(vec![2]));
        assert!(p.table_row(2).is_empty());
        assert_eq!(p.table_row(0).len(), 2, "the newer prefix stays");
        assert_eq!(p.ensure(3, 6), Ok(vec![0]));
        assert_eq!(p.ensure(3, 6), Ok(vec![]));
        // The last free block, then only live blocks are left: more fails, and the live slot 1 keeps its
        // blocks.
        assert_eq!(p.ensure(3, 8), Ok(vec![]));
        assert_eq!(p.ensure(3, 10), Err(PoolFull { need: 1, free: 0 }));
        assert_eq!(p.table_row(1).len(), 2);
        assert_eq!(p.usage().live, 6);
    }

    #[test]
    fn shared_prefix_blocks_are_held_once_and_freed_by_their_last_holder() {
        let mut p = BlockPool::new(8, 4, 3);
        p.start(0);
        p.ensure(0, 10).unwrap();
        assert_eq!(p.table_row(0), [0, 1, 2]);
        // Slot 1 starts from slot 0's first two whole blocks and writes on in its own.
        p.start(1);
        p.share(0, 1, 2);
        p.ensure(1, 9).unwrap();
        assert_eq!(p.table_row(1), [0, 1, 3]);
        assert_eq!(p.usage(), PoolUsage { block_tokens: 4, total: 8, live: 4, cached: 0 });
        assert!(p.shared(0, 1) && p.shared(1, 1) && !p.shared(0, 2) && !p.shared(1, 2) && !p.shared(1, 3));
        // Slot 0 ends: its own block and the shared ones stay (slot 1 is live on the shared ones).
        p.release(0);
        assert_eq!(p.usage(), PoolUsage { block_tokens: 4, total: 8, live: 3, cached: 1 });
        // Room is needed: evicting slot 0 frees only the block no one else holds.
        p.start(2);
        assert_eq!(p.ensure(2, 20), Ok(vec![0]));
        assert_eq!(p.table_row(2), [2, 4, 5, 6, 7]);
        assert_eq!(p.table_row(1), [0, 1, 3], "the live sharer keeps the shared blocks");
        p.release(1);
        p.truncate(1, 0);
        assert_eq!(p.usage(), PoolUsage { block_tokens: 4, total: 8, live: 5, cached: 0 });
        assert_eq!(p.free.iter().copied().collect::<Vec<_>>(), [0, 1, 3]);
    }

    #[test]
    fn a_slot_never_evicts_its_own_kept_blocks() {
        let mut p = BlockPool::new(2, 2, 2);
        p.start(0);
        p.ensure(0, 4).unwrap();
        p.release(0);
        // Slot 0 starts again from its own prefix (reuse) and wants more than the pool has left.
        p.start(0);
        assert_eq!(p.ensure(0, 6), Err(PoolFull { need: 1, free: 0 }));
        assert_eq!(p.table_row(0).len(), 2);
    }

    #[test]
    fn a_parked_prefix_outlives_its_slot_until_room_is_needed() {
        let mut p = BlockPool::new(6, 2, 2);
        p.start(0);
        p.ensure(0, 4).unwrap();
        assert_eq!(p.park(0), None, "a live sequence is not parked");
        p.release(0);
        p.start(1);
        p.ensure(1, 2).unwrap();
        p.release(1);
        let id = p.park(0).unwrap();
        assert!(id >= 2, "parked ids are not slots");
        assert_eq!((p.table_row(0), p.table_row(id)), (&[][..], &[0, 1][..]));
        assert_eq!(p.park(0), None, "an empty slot parks nothing");
        assert_eq!(p.usage(), PoolUsage { block_tokens: 2, total: 6, live: 0, cached: 3 });
        // Slot 0 takes a new sequence in free blocks; the parked prefix stays.
        p.start(0);
        assert_eq!(p.ensure(0, 6), Ok(vec![]));
        assert_eq!(p.table_row(0), [3, 4, 5]);
        // A new sequence in slot 1 shares the parked prefix's first block.
        let again = p.park(1).unwrap();
        assert_ne!(again, id, "ids are never given twice");
        p.start(1);
        p.share(id, 1, 1);
        assert_eq!(p.table_row(1), [0]);
        // The parked prefix released before slot 1's: it goes first; the shared block stays slot 1's.
        assert_eq!(p.ensure(1, 4), Ok(vec![id]));
        assert_eq!(p.table_row(1), [0, 1]);
        assert!(p.table_row(id).is_empty());
        assert_eq!(p.ensure(1, 6), Ok(vec![again]));
        assert_eq!(p.table_row(1), [0, 1, 2]);
        assert_eq!(p.usage(), PoolUsage { block_tokens: 2, total: 6, live: 6, cached: 0 });
        assert_eq!(p.ensure(1, 8), Err(PoolFull { need: 1, free: 0 }));
    }
}
