//! The engine as the scheduler sees it: a fixed number of slots, each holding
//! one sequence's KV cache. The scheduler calls `decode` once per step with
//! every active slot, so a batched implementation (all rows in one dispatch
//! list) can replace `SessionPool` without touching the scheduler. `BatchedBackend` is that
//! implementation for families with batched decode graphs; `SessionPool` stays for the others.

use crate::models::llm::{BatchedDecoder, PoolUsage, Session, SessionOptions, TextModel};
use crate::models::ModelError;

pub type Slot = usize;
/// Where a cached prefix lies: a slot (`0..max_slots`), or a parked prefix's id (`park`).
pub type Source = usize;

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("slot {0} does not exist")]
    NoSlot(Slot),
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The batched step that every listed slot shared failed.
    #[error("{0}")]
    Batch(String),
}

pub trait TextBackend {
    fn max_slots(&self) -> usize;
    /// KV cache bytes per token of one sequence, and of all the backend's KV caches (0 where not known).
    fn kv_bytes(&self) -> (u64, u64) {
        (0, 0)
    }
    /// Tokens one slot's sequence may hold (prompt + generated).
    fn max_context(&self) -> usize;
    /// The paged KV pool's occupancy (None: every slot has room for a whole context of its own).
    fn kv_pool(&self) -> Option<PoolUsage> {
        None
    }
    /// Released slots and parked prefixes whose kept K/V went to other sequences since the last call
    /// (their cached prefixes are gone).
    fn take_evicted(&mut self) -> Vec<Source> {
        Vec::new()
    }
    /// The free slot is about to take a new sequence that does not continue what it kept: keeps that
    /// prefix under a new id (at least `max_slots`, never given twice) that `reuse_prefix` accepts as
    /// `from` until `take_evicted` names it. None: nothing kept, or this backend cannot (the slot's
    /// new sequence overwrites it).
    fn park(&mut self, _slot: Slot) -> Option<Source> {
        None
    }
    /// Appends `tokens` to the slot's sequence (a free slot starts empty) and
    /// computes the logits after the last one. Submits work; may not wait.
    fn prefill(&mut self, slot: Slot, tokens: &[u32]) -> Result<(), BackendError>;
    /// Like `prefill`, returning the logits after every token ([tokens.len(), vocab]) from one all-logits
    /// prefill (prompt logprobs: row i scores token i + 1).
    fn prefill_all_logits(&mut self, slot: Slot, tokens: &[u32]) -> Result<Vec<f32>, BackendError>;
    /// Most prompt tokens and sequences one `prefill_packed` takes; None: this backend prefills one
    /// sequence at a time.
    fn packed_prefill_capacity(&self) -> Option<(usize, usize)> {
        None
    }
    /// `prefill` of every listed slot (distinct slots, within `packed_prefill_capacity`) in one step;
    /// each slot's logits and greedy token then read as after its own `prefill`. Submits work.
    fn prefill_packed(&mut self, seqs: &[(Slot, &[u32])]) -> Result<(), BackendError> {
        let _ = seqs;
        Err(BackendError::Batch("this backend prefills one sequence at a time".into()))
    }
    /// One decode step for every listed slot: appends the token and computes
    /// the logits after it.
    fn decode(&mut self, batch: &[(Slot, u32)]) -> Result<(), BackendError>;
    /// The logits ([vocab]) after the slot's last step.
    fn logits(&mut self, slot: Slot) -> Result<Vec<f32>, BackendError>;
    /// The argmax of each listed slot's last logits, computed on the GPU (no
    /// logits readback), each slot's own result: one slot's failure (a session whose grid
    /// barrier gave up a wait) must not fail the others.
    fn greedy_tokens(&mut self, slots: &[Slot]) -> Vec<Result<u32, BackendError>>;
    /// Ends the slot's sequence; the slot can take a new one.
    fn release(&mut self, slot: Slot);
    /// Starts a new sequence in the free slot `to` from the first `n` positions of `from`'s KV cache:
    /// a slot's live sequence or the last one it held (`from` may be `to`), or a parked prefix
    /// (`park`). The next `prefill` of `to` appends after them. false: this backend cannot (the
    /// sequence starts empty).
    fn reuse_prefix(&mut self, _from: Source, _to: Slot, _n: usize) -> Result<bool, BackendError> {
        Ok(false)
    }
    /// Greedy pipelining: one decode step for exactly the slots of the previous decode step (same order),
    /// each fed that step's GPU argmax, submitted before those tokens are read; returns them (the
    /// previous step's tokens) while the new step runs. None: the backend cannot (the caller reads the
    /// tokens with `greedy_tokens` and feeds them with `decode`).
    fn decode_chained(&mut self, _slots: &[Slot]) -> Result<Option<Vec<u32>>, BackendError> {
        Ok(None)
    }
}

/// One `Session` (own KV cache and plans) per slot, created at load time.
pub struct SessionPool {
    sessions: Vec<Session>,
    max_context: usize,
    /// Released slots whose session still holds its last sequence (reset when a new one starts from
    /// nothing; kept when it continues that sequence, `reuse_prefix`).
    ended: Vec<bool>,
}

impl SessionPool {
    pub fn new(model: &TextModel, slots: usize) -> Result<Self, ModelError> {
        let sessions =
            (0..slots).map(|_| Session::new(model, SessionOptions::default())).collect::<Result<Vec<_>, _>>()?;
        Ok(SessionPool { ended: vec![false; sessions.len()], sessions, max_context: model.max_context() })
    }

    fn session(&mut self, slot: Slot) -> Result<&mut Session, BackendError> {
        self.sessions.get_mut(slot).ok_or(BackendError::NoSlot(slot))
    }

    /// The slot's session for a new or continuing sequence: one a released sequence left is reset.
    fn live_session(&mut self, slot: Slot) -> Result<&mut Session, BackendError> {
        let s = self.sessions.get_mut(slot).ok_or(BackendError::NoSlot(slot))?;
        if std::mem::take(&mut self.ended[slot]) {
            s.reset();
        }
        Ok(s)
    }
}

impl TextBackend for SessionPool {
    fn max_slots(&self) -> usize {
        self.sessions.len()
    }

    fn max_context(&self) -> usize {
        self.max_context
    }

    fn prefill(&mut self, slot: Slot, tokens: &[u32]) -> Result<(), BackendError> {
        Ok(self.live_session(slot)?.prefill(tokens)?)
    }

    fn prefill_all_logits(&mut self, slot: Slot, tokens: &[u32]) -> Result<Vec<f32>, BackendError> {
        Ok(self.live_session(slot)?.prefill_all_logits(tokens)?)
    }

    fn decode(&mut self, batch: &[(Slot, u32)]) -> Result<(), BackendError> {
        // Everything is submitted before anything is read back, so the GPU
        // runs the slots back to back while the CPU moves on.
        for &(slot, token) in batch {
            let s = self.session(slot)?;
            s.set_next_token(token);
            s.decode_step()?;
        }
        Ok(())
    }

    fn logits(&mut self, slot: Slot) -> Result<Vec<f32>, BackendError> {
        Ok(self.session(slot)?.logits()?)
    }

    fn greedy_tokens(&mut self, slots: &[Slot]) -> Vec<Result<u32, BackendError>> {
        slots.iter().map(|&s| Ok(self.session(s)?.next_token()?)).collect()
    }

    fn release(&mut self, slot: Slot) {
        if let Some(ended) = self.ended.get_mut(slot) {
            *ended = true;
        }
    }

    /// Within one slot only (sessions do not share caches): a chat's next turn. With recurrent state,
    /// only the whole previous sequence can be continued.
    fn reuse_prefix(&mut self, from: Slot, to: Slot, n: usize) -> Result<bool, BackendError> {
        if from != to || !self.ended.get(to).copied().ok_or(BackendError::NoSlot(to))? {
            return Ok(false);
        }
        if self.session(to)?.truncate(n) {
            self.ended[to] = false;
            return Ok(true);
        }
        Ok(false)
    }
}

/// All active slots in one batched decode step (see `models::llm::batch`).
pub struct BatchedBackend {
    decoder: BatchedDecoder,
}

impl BatchedBackend {
    pub fn new(model: &TextModel, slots: usize) -> Result<Self, ModelError> {
        Ok(BatchedBackend { decoder: BatchedDecoder::new(model, slots)? })
    }

    fn slot(&self, slot: Slot) -> Result<Slot, BackendError> {
        if slot < self.decoder.slots() {
            Ok(slot)
        } else {
            Err(BackendError::NoSlot(slot))
        }
    }
}

impl TextBackend for BatchedBackend {
    fn max_slots(&self) -> usize {
        self.decoder.slots()
    }

    fn kv_bytes(&self) -> (u64, u64) {
        (self.decoder.state_bytes().0, self.decoder.kv_cache_bytes())
    }

    fn max_context(&self) -> usize {
        self.decoder.max_seq()
    }

    fn kv_pool(&self) -> Option<PoolUsage> {
        self.decoder.pool_usage()
    }

    fn take_evicted(&mut self) -> Vec<Source> {
        self.decoder.take_evicted()
    }

    fn park(&mut self, slot: Slot) -> Option<Source> {
        self.decoder.park(self.slot(slot).ok()?)
    }

    fn prefill(&mut self, slot: Slot, tokens: &[u32]) -> Result<(), BackendError> {
        let slot = self.slot(slot)?;
        Ok(self.decoder.prefill(slot, tokens)?)
    }

    fn prefill_all_logits(&mut self, slot: Slot, tokens: &[u32]) -> Result<Vec<f32>, BackendError> {
        let slot = self.slot(slot)?;
        Ok(self.decoder.prefill_all_logits(slot, tokens)?)
    }

    fn packed_prefill_capacity(&self) -> Option<(usize, usize)> {
        self.decoder.packed_capacity()
    }

    fn prefill_packed(&mut self, seqs: &[(Slot, &[u32])]) -> Result<(), BackendError> {
        for &(s, _) in seqs {
            self.slot(s)?;
        }
        if !self.decoder.prefill_packed(seqs)? {
            return Err(BackendError::Batch("this model has no packed prefill".into()));
        }
        Ok(())
    }

    fn decode(&mut self, batch: &[(Slot, u32)]) -> Result<(), BackendError> {
        for &(s, _) in batch {
            self.slot(s)?;
        }
        Ok(self.decoder.decode(batch)?)
    }

    fn logits(&mut self, slot: Slot) -> Result<Vec<f32>, BackendError> {
        let slot = self.slot(slot)?;
        Ok(self.decoder.logits(slot)?)
    }

    fn greedy_tokens(&mut self, slots: &[Slot]) -> Vec<Result<u32, BackendError>> {
        let all = slots
            .iter()
            .try_for_each(|&s| self.slot(s).map(|_| ()))
            .and_then(|()| Ok(self.decoder.greedy_tokens(slots)?));
        match all {
            Ok(ids) => ids.into_iter().map(Ok).collect(),
            // One plan decodes every slot: its failure is each slot's.
            Err(e) => {
                let msg = e.to_string();
                slots.iter().map(|_| Err(BackendError::Batch(msg.clone()))).collect()
            }
        }
    }

    fn release(&mut self, slot: Slot) {
        self.decoder.release(slot);
    }

    fn reuse_prefix(&mut self, from: Source, to: Slot, n: usize) -> Result<bool, BackendError> {
        // A parked prefix's id is not a slot; the decoder checks it.
        let to = self.slot(to)?;
        if !self.decoder.can_reuse_prefix(from, to, n) {
            return Ok(false);
        }
        self.decoder.reuse_prefix(from, to, n)?;
        Ok(true)
    }

    fn decode_chained(&mut self, slots: &[Slot]) -> Result<Option<Vec<u32>>, BackendError> {
        Ok(Some(self.decoder.decode_chained(slots)?))
    }
}

/// The backend a model gets: batched decode where its family has it, else one session per slot.
pub fn backend_for(model: &TextModel, slots: usize) -> Result<Box<dyn TextBackend>, ModelError> {
    if model.arch.supports_batched_decode() {
        match BatchedBackend::new(model, slots) {
            Ok(b) => return Ok(Box::new(b)),
            // E.g. slot-dimension KV caches larger than one storage binding: decode one sequence at a time.
            Err(e) => tracing::warn!("batched decode unavailable ({e}); decoding slots one by one"),
        }
    }
    Ok(Box::new(SessionPool::new(model, slots)?))
}
