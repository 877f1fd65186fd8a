//! Continuous batching for one model. Each `step`:
//! 1. drops sequences whose client went away (closed event channel),
//! 2. admits waiting sequences into free slots, each starting from the longest prefix of its prompt
//!    that some slot's KV cache holds (`prefix`),
//! 3. prefills up to `prefill_chunk` prompt tokens (long prompts take several
//!    steps, so decoding sequences are not starved): where two or more sequences have prompt
//!    left and the backend packs prompts, their chunks go in ONE step (shortest rest first) and
//!    every first token comes from one readback; otherwise one sequence at a time, a sequence
//!    whose prompt is complete streaming its first token right away,
//! 4. decodes every sequence that has a token to feed, in ONE backend call,
//! 5. picks each sequence's next token (GPU argmax, or CPU sampling from the
//!    logits when the request needs them) and streams it out.
//!
//! Greedy pipelining: when every active sequence decodes greedily and nothing else waits, a decode
//! step's tokens are not read at once. The next `step` submits the following decode step fed by
//! the GPU argmax (`TextBackend::decode_chained`) and only then reads and streams the earlier
//! tokens, so the CPU's work overlaps the GPU's as in `Session::generate`. Anything else
//! (a request waiting, a sequence that may end, one that needs logits) first reads the tokens.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

mod packed;
mod pool;

use super::backend::{Slot, TextBackend};
use super::metrics::{Metrics, Outcome};
use super::msg::{FinishReason, SeqEvent, TokenLogprob, ValidGenerate, ValidSequence, WorkerError};
use super::prefix::{Placement, PrefixCache, MIN_REUSE};
use super::queue::QueueCounter;
use crate::gpu::DeviceHealth;
use crate::text::sampling::{logprobs, Sampler};

struct Waiting {
    req: ValidSequence,
    received: Instant,
}

/// A sequence holding a slot.
struct Active {
    req: ValidSequence,
    received: Instant,
    sampler: Sampler,
    /// Prompt tokens already in the KV cache.
    prefilled: usize,
    /// Tokens in the KV cache (prompt + fed generated tokens).
    len: usize,
    /// Those tokens themselves (what a later sequence may reuse as its prefix).
    kv: Vec<u32>,
    /// Generated token not yet fed back (the next decode input).
    pending: Option<u32>,
    generated: usize,
    prompt_logprobs: Vec<Option<TokenLogprob>>,
    /// Blocks of the paged KV pool set aside for the sequence's longest possible length.
    reserve: usize,
}

impl Active {
    fn prefill_done(&self) -> bool {
        self.prefilled == self.req.prompt.len()
    }

    /// CPU sampling, logprobs or a grammar need the logits; otherwise the GPU argmax will do.
    fn needs_logits(&self) -> bool {
        self.req.logprobs.is_some() || self.sampler.params().needs_logits() || self.req.constraint.is_some()
    }
}

pub struct Scheduler {
    model: String,
    backend: Box<dyn TextBackend>,
    eos: Vec<u32>,
    waiting: VecDeque<Waiting>,
    slots: Vec<Option<Active>>,
    prefill_chunk: usize,
    queue: Arc<QueueCounter>,
    metrics: Arc<Metrics>,
    /// The slots (rows in order) of a submitted decode step whose tokens are not read yet.
    unread: Option<Vec<Slot>>,
    /// What each free slot's KV cache still holds.
    prefixes: PrefixCache,
    /// The device's state: a failure after it is lost is reported as the loss.
    health: Arc<DeviceHealth>,
    /// Blocks of the paged KV pool the active sequences have set aside (`Active::reserve`).
    reserved: usize,
}

impl Scheduler {
    pub fn new(
        model: String,
        backend: Box<dyn TextBackend>,
        eos: Vec<u32>,
        prefill_chunk: usize,
        queue: Arc<QueueCounter>,
        metrics: Arc<Metrics>,
    ) -> Self {
        let slots = (0..backend.max_slots()).map(|_| None).collect();
        metrics.slots.with_label_values(&[&model]).set(backend.max_slots() as i64);
        let (kv_per_token, kv_total) = backend.kv_bytes();
        metrics.kv_bytes_per_token.with_label_values(&[&model]).set(kv_per_token as i64);
        metrics.kv_cache_bytes.with_label_values(&[&model]).set(kv_total as i64);
        metrics.active_slots.with_label_values(&[&model]).set(0);
        metrics.batch_rows.with_label_values(&[&model]).set(0);
        let _ = metrics.batch_rows_per_step.with_label_values(&[&model]);
        // Create the per-model series now so /metrics lists them before the first request.
        let _ = metrics.time_to_first_token.with_label_values(&[&model]);
        metrics.generated_tokens.with_label_values(&[&model]).inc_by(0);
        metrics.chained_steps.with_label_values(&[&model]).inc_by(0);
        metrics.prompt_tokens.with_label_values(&[&model]).inc_by(0);
        for m in [&metrics.prefix_cache_hits, &metrics.prefix_cache_misses, &metrics.prefix_cache_tokens] {
            m.with_label_values(&[&model]).inc_by(0);
        }
        let prefixes = PrefixCache::new(backend.max_slots(), true);
        Scheduler {
            model,
            backend,
            eos,
            waiting: VecDeque::new(),
            slots,
            prefill_chunk: prefill_chunk.max(1),
            queue,
            metrics,
            unread: None,
            prefixes,
            health: Default::default(),
            reserved: 0,
        }
        .with_pool_metrics()
    }

    /// Reports failures after `health` says the device is lost as the loss (the worker passes its
    /// device's; a scheduler over a fake backend keeps a device that is never lost).
    pub fn with_health(mut self, health: Arc<DeviceHealth>) -> Self {
        self.health = health;
        self
    }

    /// Fails every sequence, waiting or running, with `err` (the device is gone); the scheduler is
    /// idle afterwards.
    pub fn fail_all(&mut self, err: WorkerError) {
        self.unread = None;
        for w in self.waiting.drain(..) {
            self.queue.release(1);
            let _ = w.req.events.send(SeqEvent::Failed(err.clone()));
            self.metrics.finish(&self.model, Outcome::Error);
        }
        for slot in 0..self.slots.len() {
            if self.slots[slot].is_some() {
                self.fail(slot, err.clone());
            }
        }
    }

    /// Turns prefix reuse on or off (on by default; it needs a backend that can reuse KV rows).
    pub fn with_prefix_cache(mut self, enabled: bool) -> Self {
        self.prefixes = PrefixCache::new(self.slots.len(), enabled);
        self
    }

    pub fn enqueue(&mut self, req: ValidGenerate) {
        for seq in req.sequences {
            self.waiting.push_back(Waiting { req: seq, received: req.received });
        }
    }

    pub fn is_idle(&self) -> bool {
        self.waiting.is_empty() && self.slots.iter().all(Option::is_none)
    }

    pub fn step(&mut self) {
        let t0 = Instant::now();
        // Before anything else: a slot may be released and taken by a new request below.
        let mut produced = self.read_or_chain();
        self.drop_cancelled();
        self.admit();
        produced += self.prefill();
        produced += self.decode();
        self.report_pool();
        let active = self.slots.iter().filter(|s| s.is_some()).count();
        self.metrics.active_slots.with_label_values(&[&self.model]).set(active as i64);
        let secs = t0.elapsed().as_secs_f64();
        let rate = if produced > 0 && secs > 0.0 { produced as f64 / secs } else { 0.0 };
        self.metrics.tokens_per_second.with_label_values(&[&self.model]).set(rate);
    }

    /// Marks the model idle in the metrics (the worker blocks while idle).
    pub fn mark_idle(&self) {
        self.metrics.tokens_per_second.with_label_values(&[&self.model]).set(0.0);
        self.metrics.active_slots.with_label_values(&[&self.model]).set(0);
        self.metrics.batch_rows.with_label_values(&[&self.model]).set(0);
    }

    fn drop_cancelled(&mut self) {
        let before = self.waiting.len();
        self.waiting.retain(|w| !w.req.events.is_closed());
        let gone = before - self.waiting.len();
        if gone > 0 {
            self.queue.release(gone);
            for _ in 0..gone {
                self.metrics.finish(&self.model, Outcome::Cancelled);
            }
        }
        for slot in 0..self.slots.len() {
            if self.slots[slot].as_ref().is_some_and(|a| a.req.events.is_closed()) {
                let outcome = self.gone_outcome(slot);
                self.release(slot, outcome);
            }
        }
    }

    fn admit(&mut self) {
        for slot in self.backend.take_evicted() {
            self.prefixes.forget(slot);
        }
        let total = self.backend.kv_pool().map_or(usize::MAX, |u| u.total);
        while self.slots.iter().any(Option::is_none) {
            let Some(reserve) = self.waiting.front().map(|w| self.reserve_for(&w.req)) else { break };
            // First come, first served: the head of the queue waits for room, and those behind it too.
            if self.reserved + reserve > total {
                break;
            }
            let Some(w) = self.waiting.pop_front() else { break };
            self.reserved += reserve;
            self.queue.release(1);
            self.metrics.prompt_tokens.with_label_values(&[&self.model]).inc_by(w.req.prompt.len() as u64);
            let sampler = Sampler::with_prompt(w.req.sampling.clone(), &w.req.prompt);
            let (slot, reused) = self.place(&w.req);
            let _ = w.req.events.send(SeqEvent::PromptCached { tokens: reused });
            self.slots[slot] = Some(Active {
                kv: w.req.prompt[..reused].to_vec(),
                req: w.req,
                received: w.received,
                sampler,
                prefilled: reused,
                len: reused,
                pending: None,
                generated: 0,
                prompt_logprobs: Vec::new(),
                reserve,
            });
        }
    }

    /// Picks a free slot for `req` and starts it from the longest prefix of its prompt that any slot's
    /// KV cache holds (a live sequence's, or the last one a free slot held); returns the slot and the
    /// prompt tokens reused. At least the prompt's last token is prefilled (its logits give the first
    /// token), and a request scoring its prompt (prompt logprobs) prefills all of it.
    fn place(&mut self, req: &ValidSequence) -> (Slot, usize) {
        let usable = if req.prompt_logprobs || !req.cache_prompt { 0 } else { req.prompt.len().saturating_sub(1) };
        let live: Vec<Option<&[u32]>> = self.slots.iter().map(|s| s.as_ref().map(|a| a.kv.as_slice())).collect();
        let Placement { target, source, reuse: n } = self.prefixes.choose(&live, &req.prompt[..usable]);
        // What the target slot kept is overwritten unless the new sequence continues it: a paged
        // backend parks it instead, so it stays a cached prefix while the pool has room.
        let continues = source == target && n > 0;
        let worth_parking = !continues && self.prefixes.held(target) >= MIN_REUSE;
        match worth_parking.then(|| self.backend.park(target)).flatten() {
            Some(id) => self.prefixes.park(target, id),
            None => self.prefixes.forget(target),
        }
        let label = [self.model.as_str()];
        if n > 0 {
            match self.backend.reuse_prefix(source, target, n) {
                Ok(true) => {
                    self.metrics.prefix_cache_hits.with_label_values(&label).inc();
                    self.metrics.prefix_cache_tokens.with_label_values(&label).inc_by(n as u64);
                    return (target, n);
                }
                Ok(false) => {}
                Err(e) => tracing::warn!(model = %self.model, "reusing a cached prefix failed: {e}"),
            }
        }
        if self.prefixes.enabled() {
            self.metrics.prefix_cache_misses.with_label_values(&label).inc();
        }
        (target, 0)
    }

    /// Spends this step's prefill budget; a sequence whose prompt completes gets its first token at
    /// once, before the next sequence's prefill, so its client need not wait for the others' prompts.
    /// Returns the tokens generated.
    fn prefill(&mut self) -> usize {
        let mut budget = self.prefill_chunk;
        let mut produced = self.prefill_packed(&mut budget);
        for slot in 0..self.slots.len() {
            if budget == 0 {
                break;
            }
            let Some(a) = self.slots[slot].as_mut() else { continue };
            if a.prefill_done() {
                continue;
            }
            let result = if a.req.prompt_logprobs {
                prefill_scoring(self.backend.as_mut(), slot, a, &mut budget)
            } else {
                let take = budget.min(a.req.prompt.len() - a.prefilled);
                budget -= take;
                let chunk = &a.req.prompt[a.prefilled..a.prefilled + take];
                let r = self.backend.prefill(slot, chunk);
                a.kv.extend_from_slice(chunk);
                a.prefilled += take;
                a.len += take;
                r.map_err(|e| WorkerError::Engine(e.to_string()))
            };
            if let Err(e) = result {
                self.fail(slot, e);
                continue;
            }
            if a.prefill_done() {
                if a.req.prompt_logprobs {
                    let lp = std::mem::take(&mut a.prompt_logprobs);
                    let _ = a.req.events.send(SeqEvent::PromptLogprobs(lp));
                }
                if a.req.max_tokens == 0 {
                    self.finish(slot, FinishReason::Length);
                } else {
                    produced += self.choose_next(&[slot]);
                }
            }
        }
        produced
    }

    /// One decode step over every sequence with a token to feed.
    fn decode(&mut self) -> usize {
        let batch: Vec<(Slot, u32)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().and_then(|a| a.pending).map(|t| (i, t)))
            .collect();
        if batch.is_empty() {
            return 0;
        }
        self.metrics.batch_rows.with_label_values(&[&self.model]).set(batch.len() as i64);
        self.metrics.batch_rows_per_step.with_label_values(&[&self.model]).observe(batch.len() as f64);
        if let Err(e) = self.backend.decode(&batch) {
            let err = WorkerError::Engine(e.to_string());
            for &(slot, _) in &batch {
                self.fail(slot, err.clone());
            }
            return 0;
        }
        let slots: Vec<Slot> = batch.iter().map(|b| b.0).collect();
        for &(slot, token) in &batch {
            if let Some(a) = self.slots[slot].as_mut() {
                a.len += 1;
                a.kv.push(token);
                a.pending = None;
            }
        }
        if self.chainable(&slots) {
            self.unread = Some(slots);
            return 0;
        }
        self.choose_next(&slots)
    }

    /// Whether the step over `slots` may run one step ahead: nothing waits to be admitted, every active
    /// sequence is one of `slots`, decodes greedily from the GPU argmax, and has room for two more tokens
    /// (so only EOS or a gone client can end it at the token being read).
    fn chainable(&self, slots: &[Slot]) -> bool {
        let max_context = self.backend.max_context();
        let active = self.slots.iter().filter(|s| s.is_some()).count();
        self.waiting.is_empty()
            && active == slots.len()
            && slots.iter().all(|&s| {
                self.slots[s].as_ref().is_some_and(|a| {
                    a.prefill_done()
                        && !a.needs_logits()
                        && a.pending.is_none()
                        && a.generated + 2 <= a.req.max_tokens
                        && a.len + 2 <= max_context
                        && !a.req.events.is_closed()
                })
            })
    }

    /// Deals with the decode step whose tokens are unread: when the sequences can go on, submits the next
    /// step (fed on the GPU) and then streams the earlier tokens; otherwise reads and streams them.
    fn read_or_chain(&mut self) -> usize {
        let Some(slots) = self.unread.take() else { return 0 };
        if !self.chainable(&slots) {
            return self.choose_next(&slots);
        }
        let ids = match self.backend.decode_chained(&slots) {
            Ok(Some(ids)) => ids,
            Ok(None) => return self.choose_next(&slots),
            Err(e) => {
                let err = WorkerError::Engine(e.to_string());
                for &slot in &slots {
                    self.fail(slot, err.clone());
                }
                return 0;
            }
        };
        self.metrics.chained_steps.with_label_values(&[&self.model]).inc();
        // The new step consumed each token being streamed now.
        for (&slot, &id) in slots.iter().zip(&ids) {
            if let Some(a) = self.slots[slot].as_mut() {
                a.len += 1;
                a.kv.push(id);
            }
        }
        for (&slot, id) in slots.iter().zip(&ids) {
            self.emit(slot, *id, None);
            if let Some(a) = self.slots[slot].as_mut() {
                a.pending = None;
            }
        }
        if slots.iter().all(|&s| self.slots[s].is_some()) {
            self.unread = Some(slots);
        } else {
            // A sequence ended (EOS, gone client): the others' tokens of the new step are read now, and
            // the ended one's is dropped.
            let live: Vec<Slot> = slots.iter().copied().filter(|&s| self.slots[s].is_some()).collect();
            return ids.len() + self.choose_next(&live);
        }
        ids.len()
    }

    /// Picks and emits the next token of each slot from its latest logits.
    fn choose_next(&mut self, slots: &[Slot]) -> usize {
        let (cpu, gpu): (Vec<Slot>, Vec<Slot>) = slots
            .iter()
            .copied()
            .filter(|&s| self.slots[s].is_some())
            .partition(|&s| self.slots[s].as_ref().is_some_and(Active::needs_logits));
        let mut picked: Vec<(Slot, u32, Option<TokenLogprob>)> = Vec::with_capacity(slots.len());
        if !gpu.is_empty() {
            let results = self.backend.greedy_tokens(&gpu);
            for (&slot, r) in gpu.iter().zip(results) {
                match r {
                    Ok(id) => picked.push((slot, id, None)),
                    Err(e) => self.fail(slot, WorkerError::Engine(e.to_string())),
                }
            }
        }
        for slot in cpu {
            match self.backend.logits(slot) {
                Ok(mut logits) => {
                    let Some(a) = self.slots[slot].as_mut() else { continue };
                    // Logprobs describe the model's own distribution, before bias, penalties, temperature
                    // and grammar.
                    let raw = a.req.logprobs.map(|_| logits.clone());
                    if let Some(Err(e)) = a.req.constraint.as_mut().map(|c| c.restrict(&mut logits)) {
                        self.fail(slot, WorkerError::Engine(format!("structured output: {e}")));
                        continue;
                    }
                    let id = a.sampler.sample(&mut logits);
                    let lp = raw.map(|raw| token_logprob(&raw, id, a.req.logprobs.unwrap_or(0)));
                    picked.push((slot, id, lp));
                }
                Err(e) => self.fail(slot, WorkerError::Engine(e.to_string())),
            }
        }
        let n = picked.len();
        for (slot, id, lp) in picked {
            self.emit(slot, id, lp);
        }
        n
    }

    fn emit(&mut self, slot: Slot, id: u32, logprob: Option<TokenLogprob>) {
        let max_context = self.backend.max_context();
        let Some(a) = self.slots[slot].as_mut() else { return };
        if self.eos.contains(&id) {
            // A grammar allows end-of-sequence only where it is complete: that ends the output
            // even where EOS is otherwise ignored.
            if a.req.constraint.is_some() {
                self.finish(slot, FinishReason::Complete);
                return;
            }
            if !a.req.ignore_eos {
                self.finish(slot, FinishReason::Eos);
                return;
            }
        }
        if let Some(Err(e)) = a.req.constraint.as_mut().map(|c| c.accept(id)) {
            self.fail(slot, WorkerError::Engine(format!("structured output: {e}")));
            return;
        }
        a.generated += 1;
        if a.generated == 1 {
            self.metrics
                .time_to_first_token
                .with_label_values(&[&self.model])
                .observe(a.received.elapsed().as_secs_f64());
        }
        self.metrics.generated_tokens.with_label_values(&[&self.model]).inc();
        a.sampler.observe(id);
        if a.req.events.send(SeqEvent::Token { id, logprob }).is_err() {
            let outcome = self.gone_outcome(slot);
            self.release(slot, outcome);
            return;
        }
        if a.req.constraint.as_ref().is_some_and(|c| c.is_complete()) {
            self.finish(slot, FinishReason::Complete);
        } else if a.generated >= a.req.max_tokens || a.len + 1 > max_context {
            self.finish(slot, FinishReason::Length);
        } else {
            a.pending = Some(id);
        }
    }

    /// Whether the HTTP side ended the slot's sequence at a stop string (it flags it before it
    /// drops the receiver, possibly while the worker is still a few tokens further on).
    fn stopped(&self, slot: Slot) -> bool {
        self.slots[slot].as_ref().is_some_and(|a| a.req.stopped.load(Ordering::Acquire))
    }

    /// Why the receiver of a slot's events went away: a stop string, or the client.
    fn gone_outcome(&self, slot: Slot) -> Outcome {
        if self.stopped(slot) {
            Outcome::Stop
        } else {
            Outcome::Cancelled
        }
    }

    fn finish(&mut self, slot: Slot, reason: FinishReason) {
        if let Some(a) = &self.slots[slot] {
            let _ = a.req.events.send(SeqEvent::Finished { reason });
        }
        let outcome = match reason {
            _ if self.stopped(slot) => Outcome::Stop,
            FinishReason::Eos => Outcome::Eos,
            FinishReason::Complete => Outcome::Stop,
            FinishReason::Length => Outcome::Length,
        };
        self.release(slot, outcome);
    }

    fn fail(&mut self, slot: Slot, err: WorkerError) {
        let err = err.or_device_lost(&self.health);
        tracing::error!(model = %self.model, slot, "sequence failed: {err}");
        if let Some(a) = self.slots[slot].as_mut() {
            let _ = a.req.events.send(SeqEvent::Failed(err));
            // Whatever the failed work left in the cache is not to be trusted.
            a.kv.clear();
        }
        self.release(slot, Outcome::Error);
    }

    fn release(&mut self, slot: Slot, outcome: Outcome) {
        if let Some(a) = self.slots[slot].take() {
            self.reserved -= a.reserve;
            self.backend.release(slot);
            self.prefixes.keep(slot, a.kv);
            self.metrics.finish(&self.model, outcome);
        }
    }
}

fn token_logprob(logits: &[f32], id: u32, top: usize) -> TokenLogprob {
    let (logprob, top) = logprobs(logits, id, top);
    TokenLogprob { logprob, top }
}

/// Prefills the next budget's worth of prompt with logits for every token (one all-logits prefill), so
/// each prompt token's logprob can be read: the logits after token i score token i + 1.
fn prefill_scoring(
    backend: &mut dyn TextBackend,
    slot: Slot,
    a: &mut Active,
    budget: &mut usize,
) -> Result<(), WorkerError> {
    if a.prefilled == 0 {
        a.prompt_logprobs.push(None);
    }
    let (start, take) = (a.prefilled, (*budget).min(a.req.prompt.len() - a.prefilled));
    if take == 0 {
        return Ok(());
    }
    let logits = backend
        .prefill_all_logits(slot, &a.req.prompt[start..start + take])
        .map_err(|e| WorkerError::Engine(e.to_string()))?;
    a.kv.extend_from_slice(&a.req.prompt[start..start + take]);
    a.prefilled += take;
    a.len += take;
    *budget -= take;
    let vocab = logits.len() / take;
    for (i, row) in logits.chunks_exact(vocab).enumerate() {
        if let Some(&next) = a.req.prompt.get(start + i + 1) {
            a.prompt_logprobs.push(Some(token_logprob(row, next, a.req.logprobs.unwrap_or(0))));
        }
    }
    Ok(())
}
