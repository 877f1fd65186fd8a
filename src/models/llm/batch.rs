//! Batched decode: up to `slots` sequences, each with its own region of shared KV caches, advance together
//! in ONE decode step (one compute pass; activations with a row per active sequence, every weight read
//! once for all rows; rope, KV append and attention at each row's own slot and position).
//!
//! Prefill runs in a single-sequence `Session` (the scratch) whose cache has the same per-slot layout;
//! the new KV rows are then copied into the slot's region or blocks (GPU-side buffer copies, in
//! submission order) before a batched step or another slot needs them, so prompts of any length use the
//! chunked prefill kernels while decode steps stay batched.
//!
//! Families with recurrent layer state (LFM2's conv windows, Qwen3.5's conv rings and delta-rule
//! matrices) keep one state region per slot beside the KV regions: the scratch takes the slot's state
//! when it takes the slot (unless it already holds it) and gives it back with the KV rows.
//!
//! A step that decodes ONE sequence (the server with a single request) runs in the scratch session too:
//! its one-token plan has every one-token fusion (decode_layer's one dispatch per layer among them),
//! where the batched plan, built for rows, has several times the dispatches. The sequence's new KV rows
//! then live in the scratch cache only; they are copied into the slot's region (`flush`) before any
//! batched step or other slot's prefill uses the region or the scratch.

use std::sync::Arc;

mod blocks;
mod packed;
mod paging;
mod prefix;
mod scratch;

pub use blocks::{HolderId, PoolUsage};

use super::{KvPoolSize, Session, SessionOptions, TextModel};
use crate::gpu::Gpu;
use crate::gpu::KvPaging;
use crate::graph::tensor::KvPages;
use crate::graph::{DeviceTensor, Plan, PlanOptions, TensorId};
use crate::models::decoder::{GraphIo, KvSpec, LayerState, Mode};
use crate::models::ModelError;
use crate::passes::{self, PassLimits};

pub type Slot = usize;

/// Where a slot's latest logits (and greedy token) are.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Last {
    None,
    /// In `prefill_logits[slot]` / `prefill_tokens[slot]`: copied there after the slot's prefill, or
    /// from the scratch when another slot took it after the slot's single-sequence steps.
    Prefill,
    /// Row `r` of the last batched step.
    Row(usize),
    /// The scratch session's last decode step (a single-sequence step).
    Solo,
}

/// A decode step whose sampled tokens are being copied into a staging buffer: which buffer, the
/// step's submission, its rows, and whether the scratch plan's barrier failure word follows them.
#[derive(Debug, Clone)]
struct Staged {
    buf: usize,
    sub: wgpu::SubmissionIndex,
    rows: usize,
    barrier_word: bool,
}

pub struct BatchedDecoder {
    gpu: Arc<Gpu>,
    io: GraphIo,
    plan: Plan,
    logits: TensorId,
    scratch: Session,
    /// The slot whose first `n` positions the scratch cache holds (saves copying a long prefix back in
    /// when a prompt is prefilled over several steps).
    scratch_holds: Option<(Slot, usize)>,
    pos: Vec<usize>,
    /// Positions of a released slot's region that still hold its last sequence's K/V (a prefix a new
    /// sequence may reuse, `reuse_prefix`); 0 while the slot is live (`pos` says then).
    kept: Vec<usize>,
    last: Vec<Last>,
    prefill_logits: wgpu::Buffer,
    prefill_tokens: wgpu::Buffer,
    vocab: usize,
    /// KV heads and head dim (the cache region of one slot is kv_heads * max_seq * head_dim floats).
    kv_heads: usize,
    head_dim: usize,
    /// Bytes of one cached value (`LoadOptions::kv_dtype`).
    kv_value_bytes: usize,
    /// Two readback buffers the decode steps' sampled tokens are copied into, alternately, in the
    /// step's own submission: a chained step can run before the previous step's tokens are read.
    token_staging: [wgpu::Buffer; 2],
    /// The last decode step's staged tokens.
    staged: Option<Staged>,
    /// The staging buffer the next step copies into (never the one `staged` names).
    staging_next: usize,
    /// The slot whose positions [from, pos) only the scratch cache holds (single-sequence steps).
    unflushed: Option<(Slot, usize)>,
    /// The token the latest single-sequence step consumed: where a grid barrier of the scratch's plan
    /// gives up a wait, that step is computed again from it.
    solo_fed: u32,
    /// Several prompts' chunks in one step (`prefill_packed`); None where its plan could not be made.
    packed: Option<packed::Packed>,
    /// The family has recurrent layer state (one region per slot, describing its whole sequence).
    recurrent: bool,
    /// A paged KV pool (`LoadOptions::kv_pool`): its blocks' holders, and the block table the rows
    /// kernels read ([slots, table_stride], rewritten whole when a holder changes).
    pool: Option<blocks::BlockPool>,
    kv_table: Option<(wgpu::Buffer, usize)>,
    table_dirty: bool,
    /// Parked prefixes (`park`): positions each holds, by its pool holder id.
    parked: std::collections::BTreeMap<HolderId, usize>,
    /// Released slots and parked prefixes whose kept K/V the pool gave to other sequences
    /// (`take_evicted`).
    evicted: Vec<HolderId>,
}

fn buf(t: &DeviceTensor) -> &wgpu::Buffer {
    t.buffer()
}

impl BatchedDecoder {
    /// Needs a family with `supports_batched_decode`.
    pub fn new(model: &TextModel, slots: usize) -> Result<Self, ModelError> {
        let arch = &model.arch;
        if !arch.supports_batched_decode() {
            return Err(ModelError::Unsupported(format!("batched decode of the {} family", arch.family())));
        }
        let gpu = model.exec.gpu().clone();
        let max_seq = model.max_context();
        let slots = slots.clamp(1, crate::graph::dispatch::MAX_BATCH_ROWS);
        let mut kv = KvSpec::from(model.opts.kv_dtype);
        let mut pool = None;
        let mut kv_table = None;
        if let Some(opts) = model.opts.kv_pool {
            let block_tokens = opts.block_tokens.max(1).next_power_of_two();
            let stride = max_seq.div_ceil(block_tokens);
            let tokens = match opts.size {
                KvPoolSize::Tokens(n) => n,
                KvPoolSize::Bytes(b) => (b / arch.kv_bytes_per_position(model.opts.kv_dtype).max(1) as u64) as usize,
            };
            // At least one sequence of the whole context, so any one request fits an idle pool; at
            // most every slot's.
            let blocks = tokens.div_ceil(block_tokens).clamp(stride, slots * stride);
            let table = gpu.storage("kv block table", (slots * stride * 4) as u64);
            let paging = KvPaging {
                block_shift: block_tokens.trailing_zeros(),
                blocks: blocks as u32,
                table_stride: stride as u32,
            };
            kv.pages = Some(KvPages { paging, table: table.clone() });
            pool = Some(blocks::BlockPool::new(blocks, block_tokens, slots));
            kv_table = Some((table, stride));
        }
        let io = arch.new_batched_io(&gpu, slots, max_seq, &kv)?;
        let mut built = arch.build_graph(&io, Mode::BatchedDecode);
        // The fused kernels take rows like the plain ones (ROWS per workgroup), so the same passes apply:
        // unfused, a SmolLM2 step was 394 dispatches.
        let limits = PassLimits {
            max_storage_buffers_per_stage: gpu.caps.max_storage_buffers_per_stage,
            one_token: false,
            max_workgroup_storage: gpu.caps.max_compute_workgroup_storage_size,
            // The one-token passes (decode_layer among them) leave batched graphs alone.
            grid_barrier: false,
        };
        passes::run(&mut built.graph, &model.opts.fusion, limits);
        let logits = built.logits;
        let cap = model.opts.fusion.max_storage_buffers;
        let plan = model.exec.plan(built.graph, PlanOptions { max_rows: slots, max_storage_buffers: cap })?;
        let scratch = Session::new(model, SessionOptions::default())?;
        let kv = io.layers.iter().find_map(|l| match l {
            LayerState::Attention { k_cache, .. } => Some(k_cache),
            LayerState::Recurrent(_) => None,
        });
        // Positions the cache holds for each kv head: max_seq per slot, or the pool's.
        let rows = pool.as_ref().map_or(slots * max_seq, |p: &blocks::BlockPool| p.usage().total * p.block_tokens());
        let (kv_heads, head_dim) = match kv.map(|k| k.as_ref()) {
            Some(DeviceTensor::F32 { len, cols, .. } | DeviceTensor::Kv { len, cols, .. }) => {
                (len / (rows * cols), *cols)
            }
            Some(_) => unreachable!("KV caches are f32 or packed"),
            None => return Err(ModelError::Unsupported("batched decode without attention layers".into())),
        };
        let recurrent = io.recurrent_buffers().next().is_some();
        let vocab = arch.vocab();
        gpu.check_binding("prefill logits", (slots * vocab * 4) as u64)?;
        let chunk = model.opts.prefill_chunk.min(max_seq);
        // Packed rows of one sequence would each need the state after the row before: recurrent
        // families prefill their prompts one at a time.
        let packs = chunk > 1 && slots > 1 && !recurrent;
        let packed = match packs.then(|| packed::Packed::new(model, &io, chunk)) {
            None => None,
            Some(Ok(p)) => Some(p),
            Some(Err(e)) => {
                tracing::warn!("packed prefill unavailable ({e}); prompts are prefilled one at a time");
                None
            }
        };
        Ok(BatchedDecoder {
            prefill_logits: gpu.storage("prefill logits", (slots * vocab * 4) as u64),
            prefill_tokens: gpu.storage("prefill tokens", (slots * 4) as u64),
            gpu,
            io,
            plan,
            logits,
            scratch,
            scratch_holds: None,
            pos: vec![0; slots],
            kept: vec![0; slots],
            last: vec![Last::None; slots],
            vocab,
            kv_heads,
            head_dim,
            kv_value_bytes: model.opts.kv_dtype.bytes(),
            // A token per row; a single-sequence step's barrier failure word after its token.
            token_staging: [0, 1]
                .map(|_| model.exec.gpu().readback_buffer("token readback", (slots.max(2) * 4) as u64)),
            staged: None,
            staging_next: 0,
            unflushed: None,
            solo_fed: 0,
            packed,
            recurrent,
            pool,
            kv_table,
            table_dirty: true,
            parked: Default::default(),
            evicted: Vec::new(),
        })
    }

    pub fn slots(&self) -> usize {
        self.pos.len()
    }

    pub fn max_seq(&self) -> usize {
        self.io.max_seq
    }

    /// Tokens in the slot's sequence.
    pub fn len(&self, slot: Slot) -> usize {
        self.pos[slot]
    }

    /// Device bytes of sequence state: the KV caches' per token of one sequence, and the recurrent
    /// state's per slot (conv windows, delta-rule matrices; 0 for dense families).
    pub fn state_bytes(&self) -> (u64, u64) {
        let slots = self.slots() as u64;
        let positions = self.cache_positions() as u64;
        let mut per_token = 0;
        let mut per_slot = 0;
        for l in &self.io.layers {
            match l {
                LayerState::Attention { k_cache, v_cache } => {
                    per_token += (buf(k_cache).size() + buf(v_cache).size()) / positions
                }
                LayerState::Recurrent(v) => per_slot += v.iter().map(|t| buf(t).size()).sum::<u64>() / slots,
            }
        }
        (per_token, per_slot)
    }

    /// GPU memory of every KV cache the decoder holds: the slots' regions and the scratch session's.
    pub fn kv_cache_bytes(&self) -> u64 {
        [&self.io, self.scratch.io()]
            .iter()
            .flat_map(|io| &io.layers)
            .map(|l| match l {
                LayerState::Attention { k_cache, v_cache } => buf(k_cache).size() + buf(v_cache).size(),
                LayerState::Recurrent(_) => 0,
            })
            .sum()
    }

    pub fn decode_dispatches(&self) -> usize {
        self.plan.dispatch_count()
    }

    /// The one-token plan that single-sequence steps run (the scratch session's decode plan).
    pub fn single_sequence_plan(&self) -> &Plan {
        self.scratch.decode_plan()
    }

    fn check_slot(&self, slot: Slot) -> Result<(), ModelError> {
        if slot >= self.pos.len() {
            return Err(ModelError::Unsupported(format!("slot {slot} (the decoder has {})", self.pos.len())));
        }
        Ok(())
    }

    fn room(&self, slot: Slot, more: usize) -> Result<(), ModelError> {
        let need = self.pos[slot] + more;
        if need > self.io.max_seq {
            return Err(ModelError::ContextFull { need, max: self.io.max_seq });
        }
        Ok(())
    }

    /// Appends `tokens` to the slot's sequence (an empty slot starts a new one). Submits work.
    pub fn prefill(&mut self, slot: Slot, tokens: &[u32]) -> Result<(), ModelError> {
        self.check_slot(slot)?;
        self.room(slot, tokens.len())?;
        if tokens.is_empty() {
            return Ok(());
        }
        let start = self.pos[slot];
        self.begin_append(slot, tokens.len())?;
        self.load_scratch(slot);
        self.scratch.prefill(tokens)?;
        self.store_scratch(slot, start);
        Ok(())
    }

    /// Like `prefill`, returning the logits after every token ([n, vocab]) from one all-logits prefill.
    pub fn prefill_all_logits(&mut self, slot: Slot, tokens: &[u32]) -> Result<Vec<f32>, ModelError> {
        self.check_slot(slot)?;
        self.room(slot, tokens.len())?;
        if tokens.is_empty() {
            return Ok(Vec::new());
        }
        let start = self.pos[slot];
        self.begin_append(slot, tokens.len())?;
        self.load_scratch(slot);
        let logits = self.scratch.prefill_all_logits(tokens)?;
        self.store_scratch(slot, start);
        Ok(logits)
    }

    /// One batched decode step: row r feeds `batch[r].1` to the sequence in slot `batch[r].0`. Slots must
    /// be distinct. Submits work.
    pub fn decode(&mut self, batch: &[(Slot, u32)]) -> Result<(), ModelError> {
        if let [(slot, token)] = *batch {
            self.check_slot(slot)?;
            return self.solo_step(slot, Some(token));
        }
        if batch.is_empty() {
            return Ok(());
        }
        self.flush();
        self.write_rows(batch)?;
        let slots: Vec<Slot> = batch.iter().map(|b| b.0).collect();
        for &s in &slots {
            self.begin_append(s, 1)?;
        }
        self.sync_table();
        self.submit_step(&slots, false);
        Ok(())
    }

    /// Greedy pipelining: one decode step for exactly the slots of the previous decode step, in the same
    /// order, each fed the token that step's GPU argmax left in its row, submitted BEFORE those tokens are
    /// read back; then reads them (waiting for the previous step only) and returns them. The caller
    /// streams them while this step runs.
    pub fn decode_chained(&mut self, slots: &[Slot]) -> Result<Vec<u32>, ModelError> {
        if let [slot] = *slots {
            if self.last.get(slot) == Some(&Last::Solo) && self.staged.is_some() {
                return self.solo_chained(slot).map(|id| vec![id]);
            }
        }
        let chained = |r: usize, s: Slot| self.last.get(s) == Some(&Last::Row(r));
        let Some(prev) = self.staged.take() else {
            return Err(ModelError::Unsupported("a chained decode step needs a decode step before it".into()));
        };
        if prev.barrier_word || prev.rows != slots.len() || !slots.iter().enumerate().all(|(r, &s)| chained(r, s)) {
            self.staged = Some(prev);
            return Err(ModelError::Unsupported("a chained decode step must repeat the previous step's rows".into()));
        }
        if let Err(e) =
            self.write_positions(slots).and_then(|()| slots.iter().try_for_each(|&s| self.begin_append(s, 1)))
        {
            self.staged = Some(prev);
            return Err(e);
        }
        self.flush();
        self.sync_table();
        self.submit_step(slots, true);
        Ok(self.read_staged(&prev)?.0)
    }

    /// The tokens a staged step sampled (waiting for that step only), and whether its barrier failure
    /// word says a grid barrier gave up a wait.
    fn read_staged(&self, s: &Staged) -> Result<(Vec<u32>, bool), ModelError> {
        let words = s.rows + s.barrier_word as usize;
        let bytes = self.gpu.map_read_after(&self.token_staging[s.buf], (words * 4) as u64, s.sub.clone())?;
        let mut ids: Vec<u32> = bytemuck::cast_slice(&bytes).to_vec();
        let failed = s.barrier_word && ids.pop().is_some_and(|w| w != 0);
        Ok((ids, failed))
    }

    /// One single-sequence step of `slot` in the scratch session, fed `token` (None: the token the
    /// slot's previous single-sequence step sampled, still on the GPU); the sampled token, and the
    /// scratch plan's barrier failure word where it has one, copied into the next staging buffer.
    fn solo_step(&mut self, slot: Slot, token: Option<u32>) -> Result<(), ModelError> {
        self.room(slot, 1)?;
        // Its row is copied into the slot's blocks later (`flush`), which then cannot fail.
        self.begin_append(slot, 1)?;
        let pos = self.pos[slot];
        debug_assert!(token.is_some() || (self.last[slot] == Last::Solo && self.scratch_holds == Some((slot, pos))));
        self.load_scratch(slot);
        if self.unflushed.is_none_or(|(s, _)| s != slot) {
            self.unflushed = Some((slot, pos));
        }
        if let Some(t) = token {
            self.scratch.set_next_token(t);
            self.solo_fed = t;
        }
        let next = self.staging_next;
        let staging = self.token_staging[next].clone();
        let sampled = buf(&self.scratch.io().next_token).clone();
        let word = self.scratch.barrier_failure_word().map(|(b, o)| (b.clone(), o));
        let sub = self.scratch.decode_step_between(
            |_| {},
            |enc| {
                enc.copy_buffer_to_buffer(&sampled, 0, &staging, 0, 4);
                if let Some((b, o)) = &word {
                    enc.copy_buffer_to_buffer(b, *o, &staging, 4, 4);
                }
            },
        )?;
        self.staging_next ^= 1;
        self.staged = Some(Staged { buf: next, sub, rows: 1, barrier_word: word.is_some() });
        self.pos[slot] = pos + 1;
        self.last[slot] = Last::Solo;
        self.scratch_holds = Some((slot, pos + 1));
        Ok(())
    }

    /// `decode_chained` for one slot whose last step was a single-sequence step.
    fn solo_chained(&mut self, slot: Slot) -> Result<u32, ModelError> {
        let prev = self.staged.take().expect("checked by the caller");
        if let Err(e) = self.solo_step(slot, None) {
            self.staged = Some(prev);
            return Err(e);
        }
        let (ids, failed) = self.read_staged(&prev)?;
        if failed {
            // Both the step read and the one just submitted (fed its token) are wrong.
            return self.solo_recompute(slot, 2);
        }
        self.solo_fed = ids[0];
        Ok(ids[0])
    }

    /// The token of the slot's latest single-sequence step (blocking), computed again where a grid
    /// barrier gave up a wait.
    fn solo_token(&mut self, slot: Slot) -> Result<u32, ModelError> {
        let s = self.staged.clone().expect("a single-sequence step is staged while it is a slot's latest");
        let (ids, failed) = self.read_staged(&s)?;
        if failed {
            return self.solo_recompute(slot, 1);
        }
        Ok(ids[0])
    }

    /// A grid barrier of the scratch's decode plan gave up a wait, so the single-sequence steps from
    /// the one fed `solo_fed` on computed wrong numbers. Plans without grid barriers (as
    /// `Session::generate` does), goes `back` steps back (dense caches: the rows are simply written
    /// again), computes that step again from `solo_fed` and reads its token; where `back` is 2 the step
    /// after it is submitted again, chained, as before.
    fn solo_recompute(&mut self, slot: Slot, back: usize) -> Result<u32, ModelError> {
        // Recurrent state cannot go back a step.
        let stuck = self.recurrent || !self.scratch.grid_barrier_failed();
        if stuck && self.scratch.barrier_failure_word().is_some() {
            return Err(ModelError::GridBarrierTimeout);
        }
        let pos = self.pos[slot] - back;
        self.pos[slot] = pos;
        self.scratch.pos = pos;
        self.scratch_holds = Some((slot, pos));
        self.solo_step(slot, Some(self.solo_fed))?;
        let s = self.staged.clone().expect("just staged");
        let id = self.read_staged(&s)?.0[0];
        if back == 2 {
            self.solo_step(slot, None)?;
            self.solo_fed = id;
        }
        Ok(id)
    }

    /// Submits one decode step over `slots` (rows in order) whose token and row inputs are written
    /// (`chained`: the tokens are copied from the previous step's argmax first), copying its sampled
    /// tokens into the next staging buffer in the same submission.
    fn submit_step(&mut self, slots: &[Slot], chained: bool) {
        let n = slots.len();
        let next = self.staging_next;
        self.staging_next ^= 1;
        let (tokens_out, tokens_in) = (buf(&self.io.next_token), buf(&self.io.tokens_in));
        let staging = &self.token_staging[next];
        let bytes = (n * 4) as u64;
        let submission = self.plan.run_between(
            n,
            0,
            |enc| {
                if chained {
                    enc.copy_buffer_to_buffer(tokens_out, 0, tokens_in, 0, bytes);
                }
            },
            |enc| enc.copy_buffer_to_buffer(tokens_out, 0, staging, 0, bytes),
        );
        self.staged = Some(Staged { buf: next, sub: submission, rows: n, barrier_word: false });
        for (r, &slot) in slots.iter().enumerate() {
            self.pos[slot] += 1;
            self.last[slot] = Last::Row(r);
        }
    }

    /// Times one decode step of `batch` per dispatch (GPU timestamps), `steps` times; the sequences do not
    /// advance (every run rewrites the same cache row). None without timestamp queries inside passes.
    pub fn profile_step(
        &mut self,
        batch: &[(Slot, u32)],
        steps: usize,
    ) -> Result<Option<crate::graph::profile::Profile>, ModelError> {
        self.write_rows(batch)?;
        for &(s, _) in batch {
            self.begin_append(s, 1)?;
        }
        self.sync_table();
        Ok(crate::graph::profile::plan_step(&self.plan, batch.len(), 0, steps))
    }

    /// Checks a batch and writes its tokens and (slot, position) rows into the plan's inputs.
    fn write_rows(&self, batch: &[(Slot, u32)]) -> Result<(), ModelError> {
        let slots: Vec<Slot> = batch.iter().map(|b| b.0).collect();
        self.write_positions(&slots)?;
        let tokens: Vec<u32> = batch.iter().map(|b| b.1).collect();
        self.gpu.queue.write_buffer(buf(&self.io.tokens_in), 0, bytemuck::cast_slice(&tokens));
        Ok(())
    }

    /// Checks a step's slots (each once, with room for one more token) and writes their (slot, position)
    /// rows into the plan's input.
    fn write_positions(&self, slots: &[Slot]) -> Result<(), ModelError> {
        if slots.len() > self.slots() {
            return Err(ModelError::Unsupported(format!("{} rows in a batch of {} slots", slots.len(), self.slots())));
        }
        let mut rows = Vec::with_capacity(slots.len() * 2);
        for (r, &slot) in slots.iter().enumerate() {
            self.check_slot(slot)?;
            self.room(slot, 1)?;
            if slots[..r].contains(&slot) {
                return Err(ModelError::Unsupported(format!("slot {slot} twice in one decode step")));
            }
            rows.extend([slot as u32, self.pos[slot] as u32]);
        }
        self.plan.set_rows_context(slots.iter().map(|&s| self.pos[s] + 1).max().unwrap_or(1));
        let rows_buf = buf(self.io.rows.as_ref().expect("batched io has rows"));
        self.gpu.queue.write_buffer(rows_buf, 0, bytemuck::cast_slice(&rows));
        Ok(())
    }

    fn no_step(slot: Slot) -> ModelError {
        ModelError::Unsupported(format!("reading slot {slot} before any step"))
    }

    /// The logits ([vocab]) after the slot's last step (blocking readback of one row).
    pub fn logits(&mut self, slot: Slot) -> Result<Vec<f32>, ModelError> {
        self.check_slot(slot)?;
        let row = (self.vocab * 4) as u64;
        let bytes = match self.last[slot] {
            Last::None => return Err(Self::no_step(slot)),
            Last::Solo => {
                // The step's barrier word came with its token (the step is computed again where a
                // barrier gave up); the word read now could only speak of later steps.
                self.solo_token(slot)?;
                let (lbuf, loff) = self.scratch.last_logits_row();
                self.gpu.read_bytes_at(lbuf, loff, row)?
            }
            Last::Prefill => self.gpu.read_bytes_at(&self.prefill_logits, slot as u64 * row, row)?,
            Last::Row(r) => self.gpu.read_bytes_at(self.plan.buffer(self.logits), r as u64 * row, row)?,
        };
        Ok(bytemuck::cast_slice(&bytes).to_vec())
    }

    /// The GPU argmax of each slot's latest logits (one small readback per source buffer).
    pub fn greedy_tokens(&mut self, slots: &[Slot]) -> Result<Vec<u32>, ModelError> {
        for &s in slots {
            self.check_slot(s)?;
            if self.last[s] == Last::None {
                return Err(Self::no_step(s));
            }
        }
        let solo = slots.iter().find(|&&s| self.last[s] == Last::Solo).map(|&s| self.solo_token(s)).transpose()?;
        let rows = slots.iter().filter_map(|&s| if let Last::Row(r) = self.last[s] { Some(r + 1) } else { None });
        let decoded = match rows.max() {
            Some(n) => self.gpu.read_u32(buf(&self.io.next_token), n)?,
            None => Vec::new(),
        };
        let prefilled = if slots.iter().any(|&s| self.last[s] == Last::Prefill) {
            self.gpu.read_u32(&self.prefill_tokens, self.slots())?
        } else {
            Vec::new()
        };
        Ok(slots
            .iter()
            .map(|&s| match self.last[s] {
                Last::Row(r) => decoded[r],
                Last::Solo => solo.expect("read above"),
                _ => prefilled[s],
            })
            .collect())
    }
}
