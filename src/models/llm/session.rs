//! One sequence: its KV cache, a prefill plan and a decode plan over shared
//! buffers. The sampled token stays on the GPU between decode steps (the
//! decode graph's embedding reads the id the previous argmax wrote), so
//! generation pipelines: step t+1 is submitted before token t is read back.

use std::sync::Arc;

use super::TextModel;
use crate::executor::Executor;
use crate::graph::plan::TOKEN_LOG_LEN;
use crate::graph::{DeviceTensor, Plan, PlanOptions, TensorId};
use crate::models::decoder::{GraphIo, Mode};
use crate::models::ModelError;
use crate::passes::{self, PassLimits};

/// Decode steps `Session::generate` records into one pass and one submission (at most
/// TOKEN_LOG_LEN). A submission boundary leaves the GPU idle between the steps on either side:
/// on the H200 (SmolLM2 generate loop) 1 step a submission ran 1094-1097 tok/s, 4 1118-1119, 8
/// 1121-1122, 16 1121-1123. A generation stopped by its caller computes up to this many - 1
/// steps it does not deliver (~6 ms here).
const STEPS_PER_SUBMISSION: usize = 8;

#[derive(Debug, Clone, Copy, Default)]
pub struct SessionOptions {
    /// Keep logits of every prompt row (tests); otherwise only the last row's.
    pub all_logits: bool,
}

pub struct Session {
    /// Runs the plans below (the model's executor).
    exec: Executor,
    prefill: Plan,
    decode: Plan,
    io: GraphIo,
    prefill_logits: TensorId,
    /// The plan for chunks of at most `SHORT_PREFILL_ROWS` tokens, with its logits, where `prefill` is
    /// built for more (`short_prefill_plan`). Whether the last prefill ran in it: `last_short`.
    short: Option<(Plan, TensorId)>,
    last_short: bool,
    decode_logits: TensorId,
    vocab: usize,
    chunk: usize,
    all_logits: bool,
    /// Tokens in the KV cache.
    pub pos: usize,
    /// Rows of logits the last step produced.
    last_rows: usize,
    last_was_prefill: bool,
    /// The last prefill was `prefill_all_logits` (its logits live in `all_prefill`).
    last_all: bool,
    /// The all-logits prefill graph of a last-row session, made into a plan on first use (its logits
    /// buffer holds a chunk of vocab rows, so only sessions that score prompts pay for it).
    all_graph: Option<(crate::graph::Graph, TensorId)>,
    all_prefill: Option<(Plan, TensorId)>,
    staging: Vec<wgpu::Buffer>,
    /// What the fusion passes did to the decode graph.
    pub pass_reports: Vec<passes::PassReport>,
    /// Where the decode plan has grid barriers: the same graph without them, planned and taking
    /// over if a barrier ever waits out its polls (`Session::generate`).
    fallback: Option<DecodeGraph>,
    /// Whether that happened: decoding has run on the fallback plan since.
    pub replanned_without_grid_barriers: bool,
}

/// A one-token decode plan, its logits and what the fusion passes did.
type DecodePlan = (Plan, TensorId, Vec<passes::PassReport>);

/// A submission `Session::generate` reads back: `n` tokens in staging slot `slot`, from the steps
/// at positions `pos ..`, followed by the decode plan's barrier failure word where `barrier_word`.
struct Batch {
    sub: wgpu::SubmissionIndex,
    slot: usize,
    n: usize,
    pos: usize,
    barrier_word: bool,
}

fn tensor_buf(t: &DeviceTensor) -> &wgpu::Buffer {
    t.buffer()
}

/// The one-token decode plan, its logits and what the fusion passes did, and where it has grid
/// barriers the graph without them (the fallback, made into a plan only if a barrier ever gives up
/// a wait). Grid barriers (the decode_layer pass) are planned where the adapter passed
/// gpu/grid_probe.rs; if the plan's own grid-barrier pipelines then fail their residency check
/// (graph/residency.rs), it is planned again without them.
fn decode_plan(model: &TextModel, io: &GraphIo) -> Result<(DecodePlan, Option<DecodeGraph>), ModelError> {
    let exec = &model.exec;
    let gpu = exec.gpu();
    let fusion = &model.opts.fusion;
    let graph = |grid_barrier: bool| -> DecodeGraph {
        let mut dec = model.arch.build_graph(io, Mode::Decode);
        let limits = PassLimits {
            max_storage_buffers_per_stage: gpu.caps.max_storage_buffers_per_stage,
            one_token: true,
            max_workgroup_storage: gpu.caps.max_compute_workgroup_storage_size,
            grid_barrier,
        };
        let reports = passes::run(&mut dec.graph, fusion, limits);
        for r in &reports {
            tracing::debug!(pass = r.pass, fused = r.fused, skipped = ?r.skipped, "fusion pass");
        }
        let options = PlanOptions { max_rows: 1, max_storage_buffers: fusion.max_storage_buffers };
        DecodeGraph { graph: dec.graph, logits: dec.logits, reports, options }
    };
    let barriers = fusion.grid_barrier_on(gpu);
    let first = graph(barriers).plan(exec)?;
    if first.0.barrier_failure_word().is_none() {
        return Ok((first, None));
    }
    if fusion.grid_barrier_anywhere || first.0.grid_barriers_resident() {
        return Ok((first, Some(graph(false))));
    }
    tracing::warn!("grid-barrier kernels do not fit on this adapter at once: planning decode without them");
    Ok((graph(false).plan(exec)?, None))
}

/// Prompt chunks of at most this many tokens prefill in their own plan, in the kernels batched decode
/// uses (rows per workgroup), fused by the passes that treat rows alike: a short prompt's prefill is
/// bound by its dispatches, not its arithmetic, and the fused plan has less than half as many (SmolLM2:
/// 215, the tiled plan 455). Longer chunks run in the tiled-matmul plan.
pub const SHORT_PREFILL_ROWS: usize = crate::graph::dispatch::MAX_BATCH_ROWS;

/// The prefill plan for chunks of at most `SHORT_PREFILL_ROWS` tokens (last-row logits).
fn short_prefill_plan(model: &TextModel, io: &GraphIo) -> Result<(Plan, TensorId), ModelError> {
    let exec = &model.exec;
    let caps = exec.caps();
    let mut pre = model.arch.build_graph(io, Mode::Prefill { all_logits: false });
    let limits = PassLimits {
        max_storage_buffers_per_stage: caps.max_storage_buffers_per_stage,
        one_token: false,
        max_workgroup_storage: caps.max_compute_workgroup_storage_size,
        grid_barrier: false,
    };
    let fusion = model.opts.fusion.rows_alike();
    for r in passes::run(&mut pre.graph, &fusion, limits) {
        tracing::debug!(pass = r.pass, fused = r.fused, skipped = ?r.skipped, "short prefill fusion pass");
    }
    let options = PlanOptions { max_rows: SHORT_PREFILL_ROWS, max_storage_buffers: fusion.max_storage_buffers };
    Ok((exec.plan(pre.graph, options)?, pre.logits))
}

/// A decode graph after the fusion passes, not yet a plan.
struct DecodeGraph {
    graph: crate::graph::Graph,
    logits: TensorId,
    reports: Vec<passes::PassReport>,
    options: PlanOptions,
}

impl DecodeGraph {
    fn plan(self, exec: &Executor) -> Result<DecodePlan, ModelError> {
        Ok((exec.plan(self.graph, self.options)?, self.logits, self.reports))
    }
}

impl Session {
    pub fn new(model: &TextModel, opts: SessionOptions) -> Result<Session, ModelError> {
        let exec = &model.exec;
        let gpu = exec.gpu();
        let arch = &model.arch;
        let max_seq = model.max_context();
        let chunk = model.opts.prefill_chunk.min(max_seq).max(1);
        let io = arch.new_io(gpu, chunk, max_seq, model.opts.kv_dtype)?;
        let pre = arch.build_graph(&io, Mode::Prefill { all_logits: opts.all_logits });
        let prefill_logits = pre.logits;
        let all_graph = (!opts.all_logits).then(|| {
            let b = arch.build_graph(&io, Mode::Prefill { all_logits: true });
            (b.graph, b.logits)
        });
        let prefill = exec.plan(pre.graph, PlanOptions { max_rows: chunk, ..Default::default() })?;
        let short =
            if !opts.all_logits && chunk > SHORT_PREFILL_ROWS { Some(short_prefill_plan(model, &io)?) } else { None };
        let ((decode, dec_logits, pass_reports), fallback) = decode_plan(model, &io)?;
        // A batch's tokens, then the decode plan's barrier failure word.
        let staging =
            (0..3).map(|_| gpu.readback_buffer("token readback", 4 * (STEPS_PER_SUBMISSION as u64 + 1))).collect();
        Ok(Session {
            exec: exec.clone(),
            prefill,
            decode,
            io,
            prefill_logits,
            short,
            last_short: false,
            decode_logits: dec_logits,
            vocab: arch.vocab(),
            chunk,
            all_logits: opts.all_logits,
            pos: 0,
            last_rows: 0,
            last_was_prefill: false,
            last_all: false,
            all_graph,
            all_prefill: None,
            staging,
            pass_reports,
            fallback,
            replanned_without_grid_barriers: false,
        })
    }

    /// Decodes with the plan without grid barriers from now on (a barrier of the other waited out
    /// its polls, so the steps since computed wrong numbers). The new plan's step buffer is written
    /// by its first step. False where there is no such graph (it has taken over already) or it
    /// could not be planned.
    fn replan_without_grid_barriers(&mut self) -> bool {
        let Some(fallback) = self.fallback.take() else { return false };
        tracing::error!(
            "a grid barrier waited out its polls (the grid was not resident at once): decoding without grid barriers from now on"
        );
        let (plan, logits, reports) = match fallback.plan(&self.exec) {
            Ok(p) => p,
            Err(e) => {
                tracing::error!("planning decode without grid barriers failed: {e}");
                return false;
            }
        };
        self.decode = plan;
        self.decode_logits = logits;
        self.pass_reports = reports;
        self.replanned_without_grid_barriers = true;
        true
    }

    /// Reads `bytes` bytes at `offset` of `buf` (blocking), with the decode plan's barrier failure
    /// word in the same readback where the last step was a decode step of a plan with grid barriers.
    /// Where a barrier gave up a wait, the steps since the last check are lost: the session plans
    /// without grid barriers from then on and the caller gets `GridBarrierTimeout`.
    fn read_checked(&mut self, buf: &wgpu::Buffer, offset: u64, bytes: u64) -> Result<Vec<u8>, ModelError> {
        let word = if self.last_was_prefill { None } else { self.decode.barrier_failure_word() };
        let (out, failed) = self.exec.gpu().read_bytes_and_word(buf, offset, bytes, word)?;
        if failed != 0 {
            self.replan_without_grid_barriers();
            return Err(ModelError::GridBarrierTimeout);
        }
        Ok(out)
    }

    /// Forgets the sequence so the session (and its KV cache) can serve a new
    /// one: attention only reads positions below `pos`, so stale keys are harmless.
    /// Recurrent state (conv windows, delta-rule matrices) is zeroed.
    pub fn reset(&mut self) {
        self.pos = 0;
        self.last_rows = 0;
        let mut recurrent = self.io.recurrent_buffers().peekable();
        if recurrent.peek().is_some() {
            let gpu = self.exec.gpu();
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            for t in recurrent {
                enc.clear_buffer(tensor_buf(t), 0, None);
            }
            gpu.queue.submit([enc.finish()]);
        }
    }

    /// Keeps the sequence's first `n` tokens so the next prefill continues after them (a new sequence
    /// sharing that prefix). Recurrent state (conv windows, delta-rule matrices) describes the whole
    /// sequence only, so a session with it can keep all of it and nothing less. false: not possible.
    pub fn truncate(&mut self, n: usize) -> bool {
        let recurrent = self.io.recurrent_buffers().next().is_some();
        if n > self.pos || (recurrent && n < self.pos) {
            return false;
        }
        self.pos = n;
        true
    }

    pub fn max_seq(&self) -> usize {
        self.io.max_seq
    }

    pub fn decode_dispatches(&self) -> usize {
        self.decode.dispatch_count()
    }

    pub fn decode_plan(&self) -> &Plan {
        &self.decode
    }

    /// Dispatches of the plan short prompt chunks prefill in, where the session has one.
    pub fn short_prefill_dispatches(&self) -> Option<usize> {
        self.short.as_ref().map(|(p, _)| p.dispatch_count())
    }

    /// The plan the last prefill chunk ran in (the short-prompt, all-logits or tiled plan).
    pub fn last_prefill_plan(&self) -> &Plan {
        self.last_prefill().0
    }

    /// The plan the last prefill chunk ran in, and its logits tensor.
    fn last_prefill(&self) -> (&Plan, TensorId) {
        match (&self.all_prefill, self.last_all, &self.short, self.last_short) {
            (Some((p, t)), true, _, _) | (_, _, Some((p, t)), true) => (p, *t),
            _ => (&self.prefill, self.prefill_logits),
        }
    }

    /// Whether the last prefill chunk ran in the short-prompt plan.
    pub fn last_prefill_was_short(&self) -> bool {
        self.last_was_prefill && self.last_short && !self.last_all
    }

    /// The prefill plan; its token ids are those of the last `prefill` call.
    pub fn prefill_plan(&self) -> &Plan {
        &self.prefill
    }

    fn ensure_room(&self, more: usize) -> Result<(), ModelError> {
        if self.pos + more > self.io.max_seq {
            return Err(ModelError::ContextFull { need: self.pos + more, max: self.io.max_seq });
        }
        Ok(())
    }

    /// Appends `tokens` to the sequence (in chunks) and samples the next token
    /// greedily on the GPU. Submits work; does not wait.
    pub fn prefill(&mut self, tokens: &[u32]) -> Result<(), ModelError> {
        self.ensure_room(tokens.len())?;
        let gpu = &self.prefill_gpu();
        for chunk in tokens.chunks(self.chunk) {
            gpu.queue.write_buffer(tensor_buf(&self.io.tokens_in), 0, bytemuck::cast_slice(chunk));
            self.last_short = false;
            match &self.short {
                Some((plan, _)) if chunk.len() <= SHORT_PREFILL_ROWS => {
                    plan.run(chunk.len(), self.pos);
                    self.last_short = true;
                }
                _ => {
                    self.prefill.run(chunk.len(), self.pos);
                }
            }
            self.pos += chunk.len();
            self.last_rows = if self.all_logits { chunk.len() } else { 1 };
        }
        self.last_was_prefill = true;
        self.last_all = false;
        Ok(())
    }

    /// Appends `tokens` like `prefill` and returns the logits after every one of them ([n, vocab]): the
    /// logits after token i score token i + 1 (prompt logprobs). One all-logits step per chunk.
    pub fn prefill_all_logits(&mut self, tokens: &[u32]) -> Result<Vec<f32>, ModelError> {
        self.ensure_room(tokens.len())?;
        if self.all_logits {
            let mut out = Vec::with_capacity(tokens.len() * self.vocab);
            for chunk in tokens.chunks(self.chunk) {
                self.prefill(chunk)?;
                out.extend(self.logits()?);
            }
            return Ok(out);
        }
        if self.all_prefill.is_none() {
            let (graph, logits) = self.all_graph.take().expect("a last-row session keeps its all-logits graph");
            // A row of logits per token: as many rows as one binding holds (a vocabulary of 150k
            // words is 600 KB a row), at most a prefill chunk.
            let caps = &self.exec.gpu().caps;
            let binding = caps.max_storage_binding_size.min(caps.max_buffer_size);
            let rows = self.chunk.min((binding / (self.vocab as u64 * 4)) as usize).max(1);
            let plan = self.exec.plan(graph, PlanOptions { max_rows: rows, ..Default::default() })?;
            self.all_prefill = Some((plan, logits));
        }
        let gpu = self.prefill_gpu();
        let (plan, logits) = self.all_prefill.as_ref().expect("built above");
        let mut out = Vec::with_capacity(tokens.len() * self.vocab);
        for chunk in tokens.chunks(plan.max_rows) {
            gpu.queue.write_buffer(tensor_buf(&self.io.tokens_in), 0, bytemuck::cast_slice(chunk));
            plan.run(chunk.len(), self.pos);
            self.pos += chunk.len();
            out.extend(plan.read_f32(*logits, chunk.len() * self.vocab)?);
            self.last_rows = chunk.len();
        }
        self.last_was_prefill = true;
        self.last_all = true;
        Ok(out)
    }

    /// The sequence's buffers (KV caches, token ids).
    pub fn io(&self) -> &GraphIo {
        &self.io
    }

    /// The plan the last step ran in and its logits tensor.
    fn last_logits(&self) -> (&Plan, TensorId) {
        if !self.last_was_prefill {
            return (&self.decode, self.decode_logits);
        }
        self.last_prefill()
    }

    /// Where the last step's final row of logits lives: buffer and byte offset (copied out by the batched
    /// decoder, whose prefills run in a session).
    pub fn last_logits_row(&self) -> (&wgpu::Buffer, u64) {
        let (plan, t) = self.last_logits();
        (plan.buffer(t), (self.last_rows.max(1) - 1) as u64 * self.vocab as u64 * 4)
    }

    fn prefill_gpu(&self) -> Arc<crate::gpu::Gpu> {
        self.exec.gpu().clone()
    }

    /// Overrides the token the next decode step consumes (teacher forcing).
    pub fn set_next_token(&self, id: u32) {
        self.exec.gpu().queue.write_buffer(tensor_buf(&self.io.next_token), 0, bytemuck::bytes_of(&id));
    }

    /// One decode step: consumes the GPU-resident token, samples the next.
    pub fn decode_step(&mut self) -> Result<(), ModelError> {
        self.decode_step_between(|_| {}, |_| {}).map(|_| ())
    }

    /// One decode step like `decode_step`, with `before` and `after` recorded around its pass in
    /// the same submission (the batched decoder's single-sequence steps: its token copied in, the
    /// sampled one copied out).
    pub fn decode_step_between(
        &mut self,
        before: impl FnOnce(&mut wgpu::CommandEncoder),
        after: impl FnOnce(&mut wgpu::CommandEncoder),
    ) -> Result<wgpu::SubmissionIndex, ModelError> {
        self.ensure_room(1)?;
        let sub = self.decode.run_between(1, self.pos, before, after);
        self.pos += 1;
        self.last_rows = 1;
        self.last_was_prefill = false;
        self.last_all = false;
        Ok(sub)
    }

    /// The decode plan's barrier failure word (buffer, byte offset), where it has grid barriers:
    /// for callers that read it in their own readback.
    pub fn barrier_failure_word(&self) -> Option<(&wgpu::Buffer, u64)> {
        self.decode.barrier_failure_word()
    }

    /// A caller read a non-zero barrier failure word: decode without grid barriers from now on
    /// (the steps since the last check computed wrong numbers). False where that is not possible.
    pub fn grid_barrier_failed(&mut self) -> bool {
        self.replan_without_grid_barriers()
    }

    /// The token sampled by the last step (blocking readback). Where the decode plan has grid
    /// barriers and one gave up a wait, the steps since the last read are lost: an error, and the
    /// session decodes without grid barriers from then on (`generate` recomputes instead).
    pub fn next_token(&mut self) -> Result<u32, ModelError> {
        let buf = tensor_buf(&self.io.next_token).clone();
        let bytes = self.read_checked(&buf, 0, 4)?;
        Ok(u32::from_le_bytes(bytes[..4].try_into().unwrap()))
    }

    /// Logits of the last step: [rows, vocab] (rows > 1 only after an all-logits prefill). After a
    /// decode step of a plan with grid barriers, `GridBarrierTimeout` as `next_token`.
    pub fn logits(&mut self) -> Result<Vec<f32>, ModelError> {
        let (plan, t) = self.last_logits();
        let buf = plan.buffer(t).clone();
        let bytes = self.read_checked(&buf, 0, (self.last_rows * self.vocab * 4) as u64)?;
        Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect())
    }

    /// Greedy generation after `prompt`: calls `on_token` for each new token
    /// until it returns false or `max_new` tokens were produced. Decode steps go
    /// to the GPU in batches of up to STEPS_PER_SUBMISSION, each batch one compute
    /// pass and one submission (the decode plan moves its own position on and logs
    /// each step's token, read back once per batch); batch b + 1 is in flight on the
    /// GPU while batch b's tokens are read back and handled.
    pub fn generate(
        &mut self,
        prompt: &[u32],
        max_new: usize,
        mut on_token: impl FnMut(u32) -> bool,
    ) -> Result<Vec<u32>, ModelError> {
        let mut out = Vec::new();
        if max_new == 0 {
            return Ok(out);
        }
        self.ensure_room(prompt.len() + max_new - 1)?;
        let gpu = self.prefill_gpu();
        self.prefill(prompt)?;
        // The prompt's token first; then the decode batches.
        let mut pending = std::collections::VecDeque::from([Batch {
            sub: self.copy_token_after_last_step(0),
            slot: 0,
            n: 1,
            pos: self.pos,
            barrier_word: false,
        }]);
        let (mut submitted, mut batches) = (1, 1);
        while let Some(b) = pending.pop_front() {
            if submitted < max_new {
                let n = (max_new - submitted).min(self.steps_per_submission());
                pending.push_back(self.decode_batch(n, batches % self.staging.len())?);
                submitted += n;
                batches += 1;
            }
            // Waits for this batch only: the next keeps the GPU busy while its tokens are handled.
            let words = b.n + b.barrier_word as usize;
            let bytes = gpu.map_read_after(&self.staging[b.slot], 4 * words as u64, b.sub)?;
            let got: Vec<u32> = bytes.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
            if b.barrier_word && got[b.n] != 0 {
                // A grid barrier gave up a wait in this batch: its steps, and those of the batch
                // behind it, are wrong. Recompute them without grid barriers from the token that
                // started this batch (the cache rows they wrote are written again). Recurrent
                // state (conv windows, delta-rule matrices) cannot be rewound: an error there.
                let rewindable = self.io.recurrent_buffers().next().is_none();
                if !self.replan_without_grid_barriers() || !rewindable {
                    return Err(ModelError::GridBarrierTimeout);
                }
                pending.clear();
                self.pos = b.pos;
                self.set_next_token(*out.last().expect("the prompt's token comes first"));
                submitted = out.len();
                let n = (max_new - submitted).min(self.steps_per_submission());
                pending.push_back(self.decode_batch(n, batches % self.staging.len())?);
                submitted += n;
                batches += 1;
                continue;
            }
            for &tok in &got[..b.n] {
                out.push(tok);
                if !on_token(tok) {
                    return Ok(out);
                }
            }
        }
        Ok(out)
    }

    /// Decode steps a generation submits at once: several where the decode plan moves its own
    /// position on (no CPU write between steps), else one.
    fn steps_per_submission(&self) -> usize {
        if self.decode.advances_step() {
            STEPS_PER_SUBMISSION
        } else {
            1
        }
    }

    /// Submits `n` decode steps in one pass, their tokens copied to readback slot `slot` (and after
    /// them the plan's barrier failure word, where it has one).
    fn decode_batch(&mut self, n: usize, slot: usize) -> Result<Batch, ModelError> {
        let pos = self.pos;
        self.ensure_room(n)?;
        let gpu = self.prefill_gpu();
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("decode steps"),
                timestamp_writes: None,
            });
            for j in 0..n {
                // Writes the Step uniform for the first step at most: the plan moves it on.
                self.decode.set_step(1, self.pos + j);
                self.decode.encode(&mut pass, 1);
            }
        }
        let dst = &self.staging[slot];
        if n == 1 && !self.decode.advances_step() {
            enc.copy_buffer_to_buffer(tensor_buf(&self.io.next_token), 0, dst, 0, 4);
        } else {
            // Entries pos .. pos + n of the ring, in at most two runs.
            let first = self.pos % TOKEN_LOG_LEN;
            let head = n.min(TOKEN_LOG_LEN - first);
            enc.copy_buffer_to_buffer(self.decode.token_log(), 4 * first as u64, dst, 0, 4 * head as u64);
            if head < n {
                enc.copy_buffer_to_buffer(self.decode.token_log(), 0, dst, 4 * head as u64, 4 * (n - head) as u64);
            }
        }
        let failure = self.decode.barrier_failure_word();
        if let Some((buf, offset)) = failure {
            enc.copy_buffer_to_buffer(buf, offset, dst, 4 * n as u64, 4);
        }
        self.pos += n;
        self.last_rows = 1;
        self.last_was_prefill = false;
        self.last_all = false;
        Ok(Batch { sub: gpu.queue.submit([enc.finish()]), slot, n, pos, barrier_word: failure.is_some() })
    }

    /// A copy of the sampled id into readback slot `slot` (after a prefill,
    /// whose chunks may be several submissions).
    fn copy_token_after_last_step(&self, slot: usize) -> wgpu::SubmissionIndex {
        let gpu = self.exec.gpu();
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(tensor_buf(&self.io.next_token), 0, &self.staging[slot], 0, 4);
        gpu.queue.submit([enc.finish()])
    }
}
