//! Packed prefill in the scheduler: the prompt chunks of several waiting sequences in one backend step.

use super::{FinishReason, Scheduler, Slot, WorkerError};

impl Scheduler {
    /// Where the backend packs prompts and two or more sequences (none scoring its prompt) have prompt
    /// left: their chunks within the budget, shortest rest first (more first tokens sooner), in one
    /// step, and the first token of each whose prompt completes from one readback. Returns the
    /// tokens generated.
    pub(super) fn prefill_packed(&mut self, budget: &mut usize) -> usize {
        let Some((max_rows, max_seqs)) = self.backend.packed_prefill_capacity() else { return 0 };
        let mut pending: Vec<(usize, Slot)> = (0..self.slots.len())
            .filter_map(|s| {
                let a = self.slots[s].as_ref()?;
                (!a.prefill_done() && !a.req.prompt_logprobs).then(|| (a.req.prompt.len() - a.prefilled, s))
            })
            .collect();
        pending.sort_unstable();
        let mut left = (*budget).min(max_rows);
        let mut plan: Vec<(Slot, usize)> = Vec::new();
        for (rest, slot) in pending {
            if left == 0 || plan.len() == max_seqs {
                break;
            }
            let take = left.min(rest);
            left -= take;
            plan.push((slot, take));
        }
        if plan.len() < 2 {
            return 0;
        }
        let chunks: Vec<(Slot, &[u32])> = plan
            .iter()
            .filter_map(|&(slot, n)| {
                let a = self.slots[slot].as_ref()?;
                Some((slot, &a.req.prompt[a.prefilled..a.prefilled + n]))
            })
            .collect();
        if let Err(e) = self.backend.prefill_packed(&chunks) {
            let err = WorkerError::Engine(e.to_string());
            for &(slot, _) in &plan {
                self.fail(slot, err.clone());
            }
            return 0;
        }
        let mut complete = Vec::new();
        for &(slot, n) in &plan {
            *budget -= n;
            let Some(a) = self.slots[slot].as_mut() else { continue };
            a.kv.extend_from_slice(&a.req.prompt[a.prefilled..a.prefilled + n]);
            a.prefilled += n;
            a.len += n;
            if !a.prefill_done() {
                continue;
            }
            if a.req.max_tokens == 0 {
                self.finish(slot, FinishReason::Length);
            } else {
                complete.push(slot);
            }
        }
        self.choose_next(&complete)
    }
}
