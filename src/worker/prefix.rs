//! Prefix reuse, as llama-server's `cache_prompt`: a slot's KV cache keeps its last sequence after the
//! sequence ends, and a new sequence whose prompt starts the same way (a chat's next turn, a shared
//! system prompt) starts from those rows and prefills only the rest. A live sequence's rows are a
//! source too: the backend copies them into the new sequence's slot. Free slots are given out least
//! recently used first, so the prefixes used last survive longest.

use super::backend::Slot;

/// Shorter common prefixes are not worth a slot's cache (vLLM's block size): below it, placement
/// falls back to the least recently used slot and the whole prompt is prefilled.
pub const MIN_REUSE: usize = 16;

pub struct PrefixCache {
    enabled: bool,
    /// The tokens a free slot's cache still holds (empty for a live slot or an empty cache).
    kept: Vec<Vec<u32>>,
    /// When each slot's tokens were kept (a counter): the least recent is evicted first.
    kept_at: Vec<u64>,
    clock: u64,
}

/// Where a new sequence goes: the free slot `target`, starting with the first `reuse` positions of
/// slot `source`'s cache (`reuse` 0: from nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub target: Slot,
    pub source: Slot,
    pub reuse: usize,
}

fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl PrefixCache {
    pub fn new(slots: usize, enabled: bool) -> Self {
        PrefixCache { enabled, kept: vec![Vec::new(); slots], kept_at: vec![0; slots], clock: 0 }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The slot's sequence ended with `tokens` in its cache.
    pub fn keep(&mut self, slot: Slot, tokens: Vec<u32>) {
        if self.enabled {
            self.clock += 1;
            self.kept[slot] = tokens;
            self.kept_at[slot] = self.clock;
        }
    }

    /// The slot is taken by a new sequence: what it held is overwritten.
    pub fn forget(&mut self, slot: Slot) {
        self.kept[slot] = Vec::new();
    }

    /// Places a sequence whose reusable prompt part is `prompt`. `live[s]` is the tokens slot s's live
    /// sequence holds, None for a free slot; there must be a free slot.
    pub fn choose(&self, live: &[Option<&[u32]>], prompt: &[u32]) -> Placement {
        let free: Vec<Slot> = (0..live.len()).filter(|&s| live[s].is_none()).collect();
        // Empty caches first, then the least recently kept.
        let lru = *free.iter().min_by_key(|&&s| (!self.kept[s].is_empty(), self.kept_at[s])).expect("a free slot");
        let none = Placement { target: lru, source: lru, reuse: 0 };
        if !self.enabled {
            return Placement { target: free[0], source: free[0], reuse: 0 };
        }
        let held = |s: Slot| live[s].unwrap_or(&self.kept[s]);
        // The longest prefix; among equals a free slot's (no copy), then the least recently kept.
        let best = (0..live.len())
            .map(|s| (common_prefix(held(s), prompt), live[s].is_none(), std::cmp::Reverse(self.kept_at[s]), s))
            .max();
        match best {
            Some((n, _, _, s)) if n >= MIN_REUSE => {
                let target = if live[s].is_none() { s } else { lru };
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
}
