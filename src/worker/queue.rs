//! `QueueCounter`: sequences submitted but not yet given a slot, shared by the handle (which
//! reserves room, refusing at once when full) and the worker's queues (which release it).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::metrics::Metrics;

/// Sequences submitted but not yet given a slot, over all models.
pub struct QueueCounter {
    waiting: AtomicUsize,
    max: usize,
    metrics: Arc<Metrics>,
}

impl QueueCounter {
    pub fn new(max: usize, metrics: Arc<Metrics>) -> Self {
        QueueCounter { waiting: AtomicUsize::new(0), max, metrics }
    }

    /// Reserves room for `n` sequences, all or nothing.
    pub(super) fn try_reserve(&self, n: usize) -> bool {
        let ok = self
            .waiting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| (w + n <= self.max).then_some(w + n))
            .is_ok();
        self.publish();
        ok
    }

    /// `n` sequences left the queue (admitted to a slot, or cancelled while waiting).
    pub fn release(&self, n: usize) {
        let _ = self.waiting.fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| Some(w.saturating_sub(n)));
        self.publish();
    }

    /// The most sequences that may wait.
    pub(super) fn max(&self) -> usize {
        self.max
    }

    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }

    fn publish(&self) {
        self.metrics.queue_depth.set(self.waiting() as i64);
    }
}
