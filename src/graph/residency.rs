//! Whether a plan's grid-barrier dispatches (decode_layer.wgsl) can have their whole grid resident
//! at once. gpu/grid_probe.rs shows that the adapter's barrier orders memory at all, with a small
//! kernel; how many workgroups of a real kernel fit at once depends on that kernel's registers and
//! workgroup memory, which wgpu does not report. So each such pipeline runs grid_sync.wgsl's
//! residency check itself (`Step::probe`, the kernel does no work then) at the largest grid the
//! plan can give it. A grid that is not resident would make every barrier wait out its polls and
//! give wrong numbers; the session then plans without grid barriers (models/llm/session.rs).

use std::sync::Arc;

use super::plan::{Dispatch, Plan};
use crate::gpu::params::{attn_decode, Step};

/// The barrier word in the split scratch (decode_layer.wgsl's BARRIER_WORD).
const BARRIER_WORD: u64 = attn_decode::MAX_TICKETS as u64 - 1;
/// The failure word next to it (FAILED_WORD): non-zero once a barrier waited out its polls.
const FAILED_WORD: u64 = attn_decode::MAX_TICKETS as u64 - 2;

impl Plan {
    /// Where the plan's grid barriers mark a wait they gave up on (grid_sync.wgsl): a u32 at this
    /// byte offset of this buffer, zero until then and non-zero for good after; None without grid
    /// barriers. Steps run after it was set computed wrong numbers.
    pub fn barrier_failure_word(&self) -> Option<(&wgpu::Buffer, u64)> {
        let any = self.dispatches.iter().any(|d| d.spec.kernel.source().grid_sync);
        any.then_some((&self.scratch, 4 * FAILED_WORD))
    }

    /// Runs the residency check on every distinct grid-barrier pipeline of the plan at its largest
    /// grid (blocking). True where the plan has none. Leaves the step and the barrier word as they were.
    pub fn grid_barriers_resident(&self) -> bool {
        self.check_grids(|d| d.spec.grid.x.most(1))
    }

    /// The same check at a grid of `groups` workgroups (tests: a grid past what any GPU holds at
    /// once must fail).
    pub fn grid_barriers_resident_at(&self, groups: u32) -> bool {
        self.check_grids(|_| groups)
    }

    fn check_grids(&self, grid: impl Fn(&Dispatch) -> u32) -> bool {
        let mut checked: Vec<(*const wgpu::ComputePipeline, u32)> = Vec::new();
        for d in self.dispatches.iter().filter(|d| d.spec.kernel.source().grid_sync) {
            let groups = grid(d);
            let key = (Arc::as_ptr(&d.pipeline), groups);
            if checked.contains(&key) {
                continue;
            }
            checked.push(key);
            let word = self.run_check(d, groups);
            let ok = word.as_ref().is_ok_and(|w| *w == groups | groups << 16);
            tracing::info!(kernel = d.spec.kernel.source().entry, groups, ?word, ok, "grid residency check");
            if !ok {
                return false;
            }
        }
        true
    }

    /// One check of `d`'s pipeline over `groups` workgroups: the barrier word it leaves.
    fn run_check(&self, d: &Dispatch, groups: u32) -> Result<u32, crate::gpu::GpuError> {
        let gpu = &self.gpu();
        let zero = [0u8; 4];
        let probe = Step { n_tokens: 1, pos0: 0, kv_len: 1, probe: 1 };
        gpu.queue.write_buffer(&self.scratch, 4 * BARRIER_WORD, &zero);
        gpu.queue.write_buffer(&self.step, 0, bytemuck::bytes_of(&probe));
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&d.pipeline);
            pass.set_bind_group(0, &d.bind_group, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        gpu.queue.submit([enc.finish()]);
        let word = gpu.read_u32(&self.scratch, BARRIER_WORD as usize + 1).map(|w| w[BARRIER_WORD as usize]);
        // Back to what the next step expects: a zero barrier word (arrivals count from zero) and
        // the step the plan last wrote.
        gpu.queue.write_buffer(&self.scratch, 4 * BARRIER_WORD, &zero);
        let ahead = *self.step_ahead.lock().unwrap();
        gpu.queue.write_buffer(&self.step, 0, bytemuck::bytes_of(&ahead));
        word
    }
}
