//! Prefix reuse, as llama-server's `cache_prompt` and vLLM's automatic prefix caching: a slot's KV
//! cache keeps its last sequence after the sequence ends, and a new sequence whose prompt starts the
//! same way (a chat's next turn, a shared system prompt) starts from those rows and prefills only the
//! rest. A live sequence's rows are a source too: the backend copies them into the new sequence's
//! slot. When a free slot takes a sequence that does not continue what it kept, a paged backend parks
//! that prefix (its blocks stay, under an id of their own), so prefixes outlive their slots until the
//! pool needs the room. Free slots are given out least recently used first, so the prefixes used last
//! survive longest.
//!
//! Cached prefixes are found by hash: each is indexed by the chained hashes of its whole chunks of
//! `MIN_REUSE` tokens, so a prompt finds the prefixes sharing its longest run of chunks in one lookup
//! per chunk, however many are cached; the tokens are then compared to confirm the match and extend
//! it past the last whole chunk. Live sequences (at most one per slot, and growing each step) are
//! compared directly.

use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};

use super::backend::{Slot, Source};

/// Shorter common prefixes are not worth a slot's cache (vLLM's block size): below it, placement
/// falls back to the least recently used slot and the whole prompt is prefilled. Also the chunk the
/// index hashes.
pub const MIN_REUSE: usize = 16;

struct Kept {
    tokens: Vec<u32>,
    /// When it was kept (a counter): the least recent is evicted first.
    at: u64,
    /// The chained hash of each whole chunk of its tokens (the index's keys).
    chunks: Vec<u64>,
}

pub struct PrefixCache {
    enabled: bool,
    slots: usize,
    /// What free slots (by slot) and parked prefixes (by their id) hold.
    kept: BTreeMap<Source, Kept>,
    /// The chained hash of a prefix's first k chunks -> the cached prefixes starting with them.
    index: HashMap<u64, Vec<Source>>,
    clock: u64,
}

/// Where a new sequence goes: the free slot `target`, starting with the first `reuse` positions of
/// `source`'s cache (a slot, or a parked prefix; `reuse` 0: from nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub target: Slot,
    pub source: Source,
    pub reuse: usize,
}

fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The chained hash after each whole chunk of `tokens`: entry k covers tokens [0, (k + 1) * MIN_REUSE).
fn chunk_hashes(tokens: &[u32]) -> impl Iterator<Item = u64> + '_ {
    tokens.chunks_exact(MIN_REUSE).scan(0u64, |chain, chunk| {
        let mut h = DefaultHasher::new();
        (*chain, chunk).hash(&mut h);
        *chain = h.finish();
        Some(*chain)
    })
}

impl PrefixCache {
    pub fn new(slots: usize, enabled: bool) -> Self {
        PrefixCache { enabled, slots, kept: BTreeMap::new(), index: HashMap::new(), clock: 0 }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Tokens the free slot or parked prefix holds (0: nothing known).
    pub fn held(&self, source: Source) -> usize {
        self.kept.get(&source).map_or(0, |k| k.tokens.len())
    }

    /// Cached prefixes (free slots' and parked ones).
    pub fn entries(&self) -> usize {
        self.kept.len()
    }

    /// The slot's sequence ended with `tokens` in its cache.
    pub fn keep(&mut self, slot: Slot, tokens: Vec<u32>) {
        if self.enabled {
            self.forget(slot);
            self.clock += 1;
            let chunks: Vec<u64> = chunk_hashes(&tokens).collect();
            for &h in &chunks {
                self.index.entry(h).or_default().push(slot);
            }
            self.kept.insert(slot, Kept { tokens, at: self.clock, chunks });
        }
    }

    /// The slot's kept prefix now lives under the backend's parked id `id` (`TextBackend::park`).
    pub fn park(&mut self, slot: Slot, id: Source) {
        if let Some(k) = self.kept.remove(&slot) {
            for h in &k.chunks {
                if let Some(v) = self.index.get_mut(h) {
                    v.iter_mut().filter(|s| **s == slot).for_each(|s| *s = id);
                }
            }
            self.kept.insert(id, k);
        }
    }

    /// The slot is taken by a new sequence, or the backend gave the prefix's rows away: what it held
    /// is gone.
    pub fn forget(&mut self, source: Source) {
        let Some(k) = self.kept.remove(&source) else { return };
        for h in &k.chunks {
            if let Some(v) = self.index.get_mut(h) {
                v.retain(|&s| s != source);
                if v.is_empty() {
                    self.index.remove(h);
                }
            }
        }
    }

    /// The cached prefixes sharing the most whole chunks with `prompt` (by hash: the tokens are
    /// compared by the caller).
    fn indexed(&self, prompt: &[u32]) -> &[Source] {
        let mut found: &[Source] = &[];
        for h in chunk_hashes(prompt) {
            match self.index.get(&h) {
                Some(v) => found = v,
                None => break,
            }
        }
        found
    }

    /// Places a sequence whose reusable prompt part is `prompt`. `live[s]` is the tokens slot s's live
    /// sequence holds, None for a free slot; there must be a free slot.
    pub fn choose(&self, live: &[Option<&[u32]>], prompt: &[u32]) -> Placement {
        debug_assert_eq!(live.len(), self.slots);
        let free: Vec<Slot> = (0..live.len()).filter(|&s| live[s].is_none()).collect();
        // Empty caches first, then the least recently kept.
        let at = |s: Source| self.kept.get(&s).map(|k| k.at);
        let lru = *free.iter().min_by_key(|&&s| at(s)).expect("a free slot");
        let none = Placement { target: lru, source: lru, reuse: 0 };
        if !self.enabled {
            return Placement { target: free[0], source: free[0], reuse: 0 };
        }
        let free_slot = |s: Source| s < live.len() && live[s].is_none();
        let cached = self.indexed(prompt).iter().map(|&s| (&self.kept[&s].tokens[..], s));
        let live_seqs = live.iter().enumerate().filter_map(|(s, t)| t.map(|t| (t, s)));
        // The longest prefix; among equals a free slot's (no copy), then the least recently kept.
        let best = cached
            .chain(live_seqs)
            .map(|(t, s)| (common_prefix(t, prompt), free_slot(s), std::cmp::Reverse(at(s)), s))
            .max();
        match best {
            Some((n, _, _, s)) if n >= MIN_REUSE => {
                let target = if free_slot(s) { s } else { lru };
                Placement { target, source: s, reuse: n }
            }
            _ => none,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(range: std::ops::Range<u32>) -> Vec<u32> {
        range.collect()
    }

    #[test]
    fn a_free_slot_holding_the_prompts_start_takes_it() {
        let mut c = PrefixCache::new(3, true);
        c.keep(0, tokens(100..140));
        c.keep(1, tokens(0..40));
        c.keep(2, tokens(0..20));
        let prompt = [tokens(0..30), tokens(500..510)].concat();
        assert_eq!(c.choose(&[None, None, None], &prompt), Placement { target: 1, source: 1, reuse: 30 });
    }

    #[test]
    fn a_live_sequences_prefix_is_copied_into_the_least_recently_used_free_slot() {
        let mut c = PrefixCache::new(4, true);
        // Kept out of slot order, so the least recently used is not simply the first free slot.
        c.keep(2, tokens(300..340));
        c.keep(1, tokens(200..240));
        let live_kv = tokens(0..50);
        let live = [Some(live_kv.as_slice()), None, None, None];
        // Slot 3 never held anything: it goes first, keeping both kept prefixes.
        assert_eq!(c.choose(&live, &tokens(0..45)), Placement { target: 3, source: 0, reuse: 45 });
        c.keep(3, tokens(400..440));
        // Now every free slot holds something: the one kept first (slot 2) is evicted.
        assert_eq!(c.choose(&live, &tokens(0..45)), Placement { target: 2, source: 0, reuse: 45 });
        c.keep(2, tokens(500..540));
        assert_eq!(c.choose(&live, &tokens(0..45)).target, 1);
    }

    #[test]
    fn a_free_slot_wins_a_tie_with_a_live_one() {
        let mut c = PrefixCache::new(2, true);
        c.keep(1, tokens(0..40));
        let live_kv = tokens(0..40);
        assert_eq!(c.choose(&[Some(&live_kv), None], &tokens(0..40)), Placement { target: 1, source: 1, reuse: 40 });
    }

    #[test]
    fn prefixes_shorter_than_the_minimum_are_not_reused() {
        let mut c = PrefixCache::new(2, true);
        c.keep(0, tokens(0..40));
        c.keep(1, tokens(50..90));
        let short = [tokens(0..MIN_REUSE as u32 - 1), vec![999]].concat();
        // Slot 0 was kept first: the least recently used, so it is evicted.
        assert_eq!(c.choose(&[None, None], &short), Placement { target: 0, source: 0, reuse: 0 });
        let exact = [tokens(0..MIN_REUSE as u32), vec![999]].concat();
        assert_eq!(c.choose(&[None, None], &exact).reuse, MIN_REUSE);
        // Nor a live sequence's (compared directly, not through the index).
        let live = tokens(0..40);
        let c = PrefixCache::new(2, true);
        assert_eq!(c.choose(&[Some(&live), None], &short), Placement { target: 1, source: 1, reuse: 0 });
        assert_eq!(c.choose(&[Some(&live), None], &exact), Placement { target: 1, source: 0, reuse: MIN_REUSE });
    }

    #[test]
    fn forgotten_and_disabled_caches_reuse_nothing() {
        let mut c = PrefixCache::new(2, true);
        c.keep(1, tokens(0..40));
        c.forget(1);
        assert_eq!(c.choose(&[None, None], &tokens(0..40)).reuse, 0);
        let mut off = PrefixCache::new(2, false);
        off.keep(1, tokens(0..40));
        assert_eq!(off.choose(&[None, None], &tokens(0..40)), Placement { target: 0, source: 0, reuse: 0 });
    }

    #[test]
    fn a_parked_prefix_is_found_after_its_slot_took_another_sequence() {
        let mut c = PrefixCache::new(2, true);
        c.keep(0, tokens(0..40));
        c.keep(1, tokens(100..140));
        // The pool's first parked id is the number of slots.
        c.park(0, 2);
        assert_eq!((c.held(0), c.held(2), c.entries()), (0, 40, 2));
        let prompt = [tokens(0..30), tokens(500..510)].concat();
        // The parked prefix is copied into the least recently used free slot: slot 0, now empty.
        assert_eq!(c.choose(&[None, None], &prompt), Placement { target: 0, source: 2, reuse: 30 });
        let live = tokens(200..230);
        assert_eq!(c.choose(&[Some(&live), None], &prompt), Placement { target: 1, source: 2, reuse: 30 });
        c.forget(2);
        assert_eq!(c.choose(&[None, None], &prompt).reuse, 0);
        assert_eq!(c.entries(), 1);
    }

    #[test]
    fn the_longest_match_is_found_among_many_and_extended_past_whole_chunks() {
        let mut c = PrefixCache::new(1, true);
        // Ten prefixes sharing their first 32 tokens, then each its own.
        let shared = tokens(0..32);
        for i in 0..10u32 {
            c.keep(0, [shared.clone(), tokens(1000 * (i + 1)..1000 * (i + 1) + 20)].concat());
            c.park(0, 10 + i as usize);
        }
        assert_eq!(c.entries(), 10);
        // Prefix 13 matches 32 + 19 tokens (its 20th differs): found past its third whole chunk.
        let prompt = [shared.clone(), tokens(4000..4019), vec![7]].concat();
        assert_eq!(c.choose(&[None], &prompt), Placement { target: 0, source: 13, reuse: 51 });
        // Only the shared part: the least recently kept of the ten, 32 tokens.
        let prompt = [shared.clone(), vec![7; 20]].concat();
        assert_eq!(c.choose(&[None], &prompt), Placement { target: 0, source: 10, reuse: 32 });
        // A prompt sharing a chunk's hash position but not its tokens (the first token differs).
        let other = [vec![1], tokens(1..40)].concat();
        assert_eq!(c.choose(&[None], &other).reuse, 0);
        // Forgetting removes a prefix from the index: the next best match (its shared 32) is found.
        c.forget(13);
        let prompt = [shared, tokens(4000..4019), vec![7]].concat();
        assert_eq!(c.choose(&[None], &prompt), Placement { target: 0, source: 10, reuse: 32 });
    }

    #[test]
    fn the_index_offers_only_the_prefixes_sharing_the_most_whole_chunks() {
        let mut c = PrefixCache::new(1, true);
        let prompt = tokens(0..70);
        // Two, one and no whole chunks in common; one shorter than a chunk.
        for (id, kept) in [(5, [tokens(0..32), vec![999; 20]].concat()), (6, [tokens(0..16), vec![999; 40]].concat())] {
            c.keep(0, kept);
            c.park(0, id);
        }
        c.keep(0, tokens(500..560));
        c.park(0, 7);
        c.keep(0, tokens(0..15));
        assert_eq!(c.indexed(&prompt), [5]);
        assert_eq!(c.indexed(&tokens(0..31)), [5, 6], "one whole chunk of the prompt");
        assert!(c.indexed(&tokens(0..15)).is_empty(), "less than a chunk");
        assert!(c.indexed(&tokens(600..700)).is_empty());
    }
}
