//! A Plan is a graph made runnable: activation buffers allocated, a kernel and
//! bind group per op, all uniform params in one arena. Encoding a step is then
//! just pipeline/bind-group/dispatch calls into ONE compute pass: on an H200 a
//! dependent dispatch costs ~4-5 us inside one pass but 17-20 us with a pass each.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use super::alloc::{self, Assignment};
use super::dispatch::{self, Bind, Dim, DispatchSpec, SelectError};
use super::dispatch_spec::cache_layout;
use super::ir::{DeviceTensor, Graph, Storage, TensorId, OUTPUT_ROWS};
use crate::gpu::kernels::kv_table_binding;
use crate::gpu::params::{fused, FusedMatvecParams, Step};
use crate::gpu::{Gpu, GpuError, PipelineKey};

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Select(#[from] SelectError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("tensor '{0}' is read before any op writes it")]
    Unwritten(String),
    #[error("KV cache '{0}' is bound with a block table but is not paged")]
    NotPaged(String),
    #[error("{0} moves the step on but is not the plan's last dispatch")]
    StepWriter(&'static str),
}

/// Entries of a one-token decode plan's token log (`TOKEN_LOG` in argmax.wgsl): the tokens of
/// this many consecutive steps can be read back together.
pub const TOKEN_LOG_LEN: usize = 256;

#[derive(Debug, Clone, Copy, Default)]
pub struct PlanOptions {
    /// Most activation rows one step may carry: the size `Rows::Tokens` activations are allocated
    /// for and the largest `n_tokens` a step may set. A prefill chunk's tokens, a batched decode
    /// step's sequences (one row each), or 1 for a single-sequence decode plan (which also picks the
    /// one-row kernels). Not a budget of generated tokens.
    pub max_rows: usize,
    /// A lower cap than the device's on storage buffers per dispatch
    /// (`FusionConfig::max_storage_buffers`): kernel choices respect it too.
    pub max_storage_buffers: Option<u32>,
}

pub(super) struct Dispatch {
    pub(super) pipeline: Arc<wgpu::ComputePipeline>,
    pub(super) bind_group: wgpu::BindGroup,
    pub(super) spec: DispatchSpec,
}

pub struct Plan {
    gpu: Arc<Gpu>,
    pub graph: Graph,
    pub assignment: Assignment,
    pool: Vec<wgpu::Buffer>,
    pub(super) step: wgpu::Buffer,
    /// What `step` holds once the work submitted so far has run: `set_step` writes only a
    /// different value, and a step whose last kernel moves the position on (`advances`) moves
    /// this copy on when it is encoded.
    pub(super) step_ahead: Mutex<Step>,
    /// The plan ends with `ArgmaxReduceAdvance` (one-token decode).
    advances: bool,
    /// Where `ArgmaxReduceAdvance` logs each step's token: entry pos0 % TOKEN_LOG_LEN.
    token_log: wgpu::Buffer,
    /// The split scratch every dispatch that asks for one shares (`Bind::Scratch`).
    pub(super) scratch: wgpu::Buffer,
    pub(super) dispatches: Vec<Dispatch>,
    /// `PlanOptions::max_rows`: most activation rows a step may carry.
    pub max_rows: usize,
    /// The cache length after the step set last (`set_step`): grids that follow the context
    /// (`Dim::KvSplits`) are sized from it when the step is encoded.
    kv_len: AtomicU32,
    /// Batched decode: the longest row's cache length after the step (`set_rows_context`), for the
    /// per-row split grids.
    rows_kv_len: AtomicU32,
    /// A packed prefill: the step's output rows (`set_outputs`), which size `Dim::Outputs` grids.
    outputs: AtomicU32,
}

/// The pipeline a dispatch runs. INT4 matvecs are specialized on their shape and,
/// in a one-token plan, on n_tokens == 1: then no address of their first loads waits
/// on a uniform read (a round trip on the critical path of a latency-bound kernel).
/// Every K is specialized (K = 4096 x 151936 on the H200: 1831-2080 GB/s specialized,
/// 1604-1708 generic; commit `9ef35f5`).
fn pipeline_key(gpu: &Gpu, graph: &Graph, spec: &DispatchSpec, max_rows: usize) -> PipelineKey {
    let mut key = PipelineKey::new(spec.kernel, spec.flags);
    key.kv = cache_layout(graph, spec);
    if gpu.shape_constants && spec.kernel.source().shape_constants {
        // The INT4 matvec's fields lead every such kernel's params (AttentionQkvParams adds the attention's).
        let p: FusedMatvecParams =
            bytemuck::pod_read_unaligned(&spec.params[..std::mem::size_of::<FusedMatvecParams>()]);
        key.dims = [p.k, p.n0, p.n1, p.n2, p.n3, p.group];
        if max_rows == 1 {
            key.flags |= fused::ONE_TOKEN;
            // x and the norm weights requested with the first weights, not after the norm's
            // barriers: SmolLM2's qkv consumer 8.99 -> 7.56 us, generate loops +2-5% (H200, commit `eaf445f`).
            if key.flags & fused::NORM != 0 && p.k <= 2048 {
                key.flags |= fused::STAGE;
            }
        }
    }
    key
}

impl Plan {
    pub fn new(gpu: &Arc<Gpu>, graph: Graph, opts: PlanOptions) -> Result<Plan, PlanError> {
        let limit = gpu.caps.max_storage_buffers_per_stage.min(opts.max_storage_buffers.unwrap_or(u32::MAX));
        let specs = dispatch::select(&graph, opts.max_rows, limit)?;
        let assignment = alloc::assign(&graph, opts.max_rows);
        let mut pool = Vec::with_capacity(assignment.slot_bytes.len());
        for (i, bytes) in assignment.slot_bytes.iter().enumerate() {
            gpu.check_binding(&format!("activation slot {i}"), *bytes)?;
            pool.push(gpu.storage(&format!("act{i}"), *bytes));
        }
        let step = gpu.step_buffer("step", &Step::default());
        // Binding 1 of the dispatch that writes `step` (Bind::Step): a one-token step's values.
        let step_copy = gpu.uniform_from("step_copy", &Step { n_tokens: 1, kv_len: 1, ..Default::default() });
        let token_log = gpu.storage("token_log", 4 * TOKEN_LOG_LEN as u64);
        let dummy = gpu.storage("dummy", 16);
        let dummy_out = gpu.storage("dummy_out", 16);
        // One scratch serves every dispatch that asks for one: they run one after another.
        let scratch_bytes = specs
            .iter()
            .flat_map(|s| &s.bindings)
            .filter_map(|b| if let Bind::Scratch(n) = b { Some(*n as u64) } else { None })
            .max()
            .unwrap_or(16);
        gpu.check_binding("split scratch", scratch_bytes)?;
        let scratch = gpu.storage("split_scratch", scratch_bytes);

        // All params in one uniform arena, each at the device's offset alignment.
        let align = gpu.device.limits().min_uniform_buffer_offset_alignment as usize;
        let mut arena = Vec::new();
        let mut offsets = Vec::with_capacity(specs.len());
        for s in &specs {
            offsets.push(arena.len());
            arena.extend_from_slice(&s.params);
            arena.resize(arena.len().next_multiple_of(align), 0);
        }
        let arena = gpu.uniform_bytes("params", &arena);

        let advances = specs.last().is_some_and(|s| s.bindings.contains(&Bind::Step));
        let n_specs = specs.len();
        let mut dispatches = Vec::with_capacity(specs.len());
        for (spec, off) in specs.into_iter().zip(offsets) {
            // Only a plan's last dispatch may move its step on (the others read the step in flight).
            let writes_step = spec.bindings.contains(&Bind::Step);
            if writes_step && dispatches.len() + 1 != n_specs {
                return Err(PlanError::StepWriter(spec.kernel.source().entry));
            }
            gpu.check_workgroup_memory(spec.kernel)?;
            let pipeline = gpu.pipeline(pipeline_key(gpu, &graph, &spec, opts.max_rows));
            let layout = pipeline.get_bind_group_layout(0);
            let mut entries = vec![
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &arena,
                        offset: off as u64,
                        size: wgpu::BufferSize::new(spec.params.len() as u64),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: if writes_step { step_copy.as_entire_binding() } else { step.as_entire_binding() },
                },
            ];
            for (i, b) in spec.bindings.iter().enumerate() {
                let buf = resolve(&graph, &assignment, &pool, [&dummy, &dummy_out, &scratch, &step, &token_log], *b)?;
                // A block table sits at its kernel file's own binding (`kernels::kv_table_binding`).
                let binding = match b {
                    Bind::KvTable(_) => kv_table_binding(spec.kernel.source().file),
                    _ => 2 + i as u32,
                };
                entries.push(wgpu::BindGroupEntry { binding, resource: buf.as_entire_binding() });
            }
            let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(spec.kernel.source().entry),
                layout: &layout,
                entries: &entries,
            });
            dispatches.push(Dispatch { pipeline, bind_group, spec });
        }
        Ok(Plan {
            gpu: gpu.clone(),
            graph,
            assignment,
            pool,
            step,
            step_ahead: Mutex::new(Step::default()),
            advances,
            token_log,
            scratch,
            dispatches,
            max_rows: opts.max_rows,
            kv_len: AtomicU32::new(1),
            rows_kv_len: AtomicU32::new(1),
            outputs: AtomicU32::new(1),
        })
    }

    /// Sets the step's token count and first position (before the submit that runs it). Writes
    /// the Step buffer only where it will not already hold these values: after a one-token step
    /// whose last kernel moved the position on, the next position costs no write.
    pub fn set_step(&self, n_tokens: usize, pos0: usize) {
        assert!(n_tokens >= 1 && n_tokens <= self.max_rows, "step of {n_tokens} tokens in a plan of {}", self.max_rows);
        let s = Step { n_tokens: n_tokens as u32, pos0: pos0 as u32, kv_len: (pos0 + n_tokens) as u32, probe: 0 };
        self.kv_len.store(s.kv_len, Ordering::Relaxed);
        let mut ahead = self.step_ahead.lock().unwrap();
        if *ahead != s {
            self.gpu.queue.write_buffer(&self.step, 0, bytemuck::bytes_of(&s));
            *ahead = s;
        }
    }

    /// The Step buffer's values once the work submitted so far has run (blocking; tests).
    pub fn read_step(&self) -> Result<Step, GpuError> {
        let v = self.gpu.read_u32(&self.step, 4)?;
        Ok(Step { n_tokens: v[0], pos0: v[1], kv_len: v[2], probe: v[3] })
    }

    /// The log of sampled tokens (u32 entry pos % TOKEN_LOG_LEN holds the token the step at
    /// position pos sampled) of a plan that `advances_step`.
    pub fn token_log(&self) -> &wgpu::Buffer {
        &self.token_log
    }

    /// Whether the plan's last kernel moves its step position on by one.
    pub fn advances_step(&self) -> bool {
        self.advances
    }

    /// After recording a step whose last dispatch moves the position on: the Step buffer will
    /// hold the next position, and the next grid follows it if nobody sets a step. (So what is
    /// recorded must be submitted: a dropped recording leaves this copy one position ahead.)
    fn recorded(&self, advanced: bool) {
        if advanced {
            let mut ahead = self.step_ahead.lock().unwrap();
            ahead.pos0 += 1;
            ahead.kv_len += 1;
            self.kv_len.store(ahead.kv_len, Ordering::Relaxed);
        }
    }

    /// Batched decode: the longest cache any row of the next step reaches (its position + 1), which
    /// sizes the split attention's grid. Each row still takes only the splits its own context needs,
    /// so a stale or missing value costs speed, never correctness.
    pub fn set_rows_context(&self, longest: usize) {
        self.rows_kv_len.store(longest as u32, Ordering::Relaxed);
    }

    /// A packed prefill: the sequences whose logits the next step computes (its first `n` rows; at
    /// most `ir::OUTPUT_ROWS`, the rows `Rows::Outputs` activations hold).
    pub fn set_outputs(&self, n: usize) {
        assert!(
            (1..=OUTPUT_ROWS.min(self.max_rows)).contains(&n),
            "{n} output rows in a plan of {} (at most {OUTPUT_ROWS})",
            self.max_rows
        );
        self.outputs.store(n as u32, Ordering::Relaxed);
    }

    /// The workgroup grid `spec` runs for a step of `n_tokens` at the step set last.
    pub fn grid(&self, spec: &DispatchSpec, n_tokens: usize) -> (u32, u32) {
        let dim = |d: Dim| {
            if let Dim::Outputs { .. } = d {
                let outputs = self.outputs.load(Ordering::Relaxed).min(n_tokens as u32);
                return d.resolve(outputs, 1);
            }
            let kv = match d {
                Dim::KvSplits { per_row: true, .. } => &self.rows_kv_len,
                _ => &self.kv_len,
            };
            d.resolve(n_tokens as u32, kv.load(Ordering::Relaxed))
        };
        (dim(spec.grid.x), dim(spec.grid.y))
    }

    /// Records every dispatch of one step into `pass`.
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>, n_tokens: usize) {
        for d in &self.dispatches {
            pass.set_pipeline(&d.pipeline);
            pass.set_bind_group(0, &d.bind_group, &[]);
            let (x, y) = self.grid(&d.spec, n_tokens);
            pass.dispatch_workgroups(x, y, 1);
        }
        self.recorded(self.advances);
    }

    /// Records only the dispatches `keep` accepts (timing ablations: the step's
    /// outputs are meaningless, its cost without those kernels is not).
    pub fn encode_where(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        n_tokens: usize,
        keep: impl Fn(&DispatchSpec) -> bool,
    ) {
        let mut advanced = false;
        for d in self.dispatches.iter().filter(|d| keep(&d.spec)) {
            pass.set_pipeline(&d.pipeline);
            pass.set_bind_group(0, &d.bind_group, &[]);
            let (x, y) = self.grid(&d.spec, n_tokens);
            pass.dispatch_workgroups(x, y, 1);
            advanced |= d.spec.bindings.contains(&Bind::Step);
        }
        self.recorded(advanced);
    }

    /// Like `encode`, with a GPU timestamp before the first dispatch and after
    /// each one (needs TIMESTAMP_QUERY_INSIDE_PASSES; `qs` holds count + 1).
    pub fn encode_timed(&self, pass: &mut wgpu::ComputePass<'_>, n_tokens: usize, qs: &wgpu::QuerySet) {
        pass.write_timestamp(qs, 0);
        for (i, d) in self.dispatches.iter().enumerate() {
            pass.set_pipeline(&d.pipeline);
            pass.set_bind_group(0, &d.bind_group, &[]);
            let (x, y) = self.grid(&d.spec, n_tokens);
            pass.dispatch_workgroups(x, y, 1);
            pass.write_timestamp(qs, i as u32 + 1);
        }
        self.recorded(self.advances);
    }

    /// Bytes of bound (weight-like) tensors each dispatch reads: the traffic
    /// that dominates a decode step.
    pub fn dispatch_bytes(&self) -> Vec<u64> {
        self.dispatches
            .iter()
            .map(|d| {
                let reads = self.graph.ops[d.spec.op_index].reads();
                reads
                    .iter()
                    .map(|t| match &self.graph.desc(*t).storage {
                        Storage::Bound(b) => b.bytes(),
                        Storage::Activation { width, .. } => *width as u64 * 4,
                    })
                    .sum()
            })
            .collect()
    }

    /// Encodes and submits one step as a single compute pass.
    pub fn run(&self, n_tokens: usize, pos0: usize) -> wgpu::SubmissionIndex {
        self.run_then(n_tokens, pos0, |_| {})
    }

    /// Like `run`, with `after` appending commands (e.g. a token readback copy)
    /// to the same command buffer: still one submission per step.
    pub fn run_then(
        &self,
        n_tokens: usize,
        pos0: usize,
        after: impl FnOnce(&mut wgpu::CommandEncoder),
    ) -> wgpu::SubmissionIndex {
        self.run_between(n_tokens, pos0, |_| {}, after)
    }

    /// Like `run_then`, with `before` recording commands (e.g. copying the previous step's
    /// sampled tokens into this step's input) ahead of the step's pass, in the same submission.
    pub fn run_between(
        &self,
        n_tokens: usize,
        pos0: usize,
        before: impl FnOnce(&mut wgpu::CommandEncoder),
        after: impl FnOnce(&mut wgpu::CommandEncoder),
    ) -> wgpu::SubmissionIndex {
        self.set_step(n_tokens, pos0);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        before(&mut enc);
        {
            let mut pass =
                enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("step"), timestamp_writes: None });
            self.encode(&mut pass, n_tokens);
        }
        after(&mut enc);
        self.gpu.queue.submit([enc.finish()])
    }

    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    pub fn dispatch_specs(&self) -> impl Iterator<Item = &DispatchSpec> {
        self.dispatches.iter().map(|d| &d.spec)
    }

    pub fn dispatch_count(&self) -> usize {
        self.dispatches.len()
    }

    /// The buffer behind an activation or bound tensor (to read outputs).
    pub fn buffer(&self, t: TensorId) -> &wgpu::Buffer {
        match &self.graph.desc(t).storage {
            Storage::Bound(d) => d.buffer(),
            Storage::Activation { .. } => {
                &self.pool[self.assignment.slot_of[t.0 as usize].expect("unwritten activation")]
            }
        }
    }

    /// Fills every activation buffer with NaN, so a kernel that leaves an
    /// output element unwritten is caught by the tests.
    pub fn poison_activations(&self) {
        for b in &self.pool {
            let nan = vec![f32::NAN; (b.size() / 4) as usize];
            self.gpu.queue.write_buffer(b, 0, bytemuck::cast_slice(&nan));
        }
    }

    /// Reads `len` f32 values of a tensor back (blocking; tests and logits).
    pub fn read_f32(&self, t: TensorId, len: usize) -> Result<Vec<f32>, GpuError> {
        self.gpu.read_f32(self.buffer(t), len)
    }
}

fn resolve<'a>(
    graph: &'a Graph,
    a: &Assignment,
    pool: &'a [wgpu::Buffer],
    // The plan's own buffers: the dummy, the unused-output dummy, the split scratch, the step, the
    // token log.
    own: [&'a wgpu::Buffer; 5],
    b: Bind,
) -> Result<&'a wgpu::Buffer, PlanError> {
    let t = match b {
        Bind::Dummy => return Ok(own[0]),
        Bind::DummyOut => return Ok(own[1]),
        Bind::Scratch(_) => return Ok(own[2]),
        Bind::Step => return Ok(own[3]),
        Bind::TokenLog => return Ok(own[4]),
        Bind::Tensor(t) | Bind::Q(t) | Bind::Sm(t) | Bind::KvTable(t) => t,
    };
    let desc = graph.desc(t);
    match (&desc.storage, b) {
        (Storage::Activation { .. }, _) => {
            a.slot_of[t.0 as usize].map(|s| &pool[s]).ok_or_else(|| PlanError::Unwritten(desc.label.clone()))
        }
        (Storage::Bound(d), _) => Ok(match (d.as_ref(), b) {
            (DeviceTensor::Int4 { sm, .. }, Bind::Sm(_)) => sm,
            (d, Bind::KvTable(_)) => &d.kv_pages().ok_or_else(|| PlanError::NotPaged(desc.label.clone()))?.table,
            (d, _) => d.buffer(),
        }),
    }
}
