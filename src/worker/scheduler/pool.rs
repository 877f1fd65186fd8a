//! The scheduler and the paged KV pool: how much of it a sequence may fill (admission waits for
//! that room, so a running sequence never lacks a block), and its occupancy in /metrics.

use super::{Scheduler, ValidSequence};

impl Scheduler {
    /// Sets the KV pool's gauges (block size once, occupancy after every step).
    pub(super) fn with_pool_metrics(self) -> Self {
        if let Some(u) = self.backend.kv_pool() {
            self.metrics.kv_block_tokens.with_label_values(&[&self.model]).set(u.block_tokens as i64);
        }
        self.report_pool();
        self
    }

    pub(super) fn report_pool(&self) {
        let Some(u) = self.backend.kv_pool() else { return };
        let free = u.total - u.live - u.cached;
        for (state, n) in [("live", u.live), ("cached", u.cached), ("free", free)] {
            self.metrics.kv_pool_blocks.with_label_values(&[&self.model, state]).set(n as i64);
        }
    }

    /// Blocks of the paged KV pool a sequence may fill: its prompt and every token it may generate (a
    /// running sequence then never waits for room; one that cannot have it yet waits in the queue).
    pub(super) fn reserve_for(&self, req: &ValidSequence) -> usize {
        match self.backend.kv_pool() {
            None => 0,
            Some(u) => (req.prompt.len() + req.max_tokens).min(self.backend.max_context()).div_ceil(u.block_tokens),
        }
    }
}
