//! The `Gpu`: the device, its queue, what it granted, and the caches and probe results that go with
//! it. This file is the top of `gpu/`'s own imports: the helpers (buffers.rs, pipelines.rs,
//! workgroup_memory.rs, subgroup_order.rs) take the device, queue or kernel source they need, and
//! the methods here pass `Gpu`'s own in, so none of those files imports the `Gpu` that holds them.
//! (grid_probe.rs, which needs a whole `Gpu` and is run on first use, sits above this file.)

use std::sync::Arc;

use super::adapter;
use super::buffers::{AllocStats, Buffers};
use super::caps::{GpuCaps, GpuOptions};
use super::health::DeviceHealth;
use super::pipelines::{self, PipelineCache, PipelineKey};
use super::subgroup_order;
use super::workgroup_memory::WorkgroupMemoryCache;
use super::{GpuError, KernelId};

/// The device, shared by the `Executor` that runs work on it and by the buffers and weights made on it.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub caps: GpuCaps,
    pub(crate) pipelines: PipelineCache,
    pub(crate) workgroup_memory: WorkgroupMemoryCache,
    /// `grid_barriers_work`'s answer, once measured.
    pub(crate) grid_probe: std::sync::OnceLock<bool>,
    /// The runtime checks every kernel module is compiled with.
    pub(crate) shader_checks: wgpu::ShaderRuntimeChecks,
    /// INT4 matvec pipelines are specialized on their shape (`PipelineKey::dims`).
    pub shape_constants: bool,
    /// Bytes of buffers made through the helpers in `buffers.rs` (for `gerbil bench`'s memory figures).
    pub alloc: AllocStats,
    /// Whether the device is still there (health.rs).
    pub health: Arc<DeviceHealth>,
}

impl Gpu {
    pub fn new(opts: &GpuOptions) -> Result<Arc<Gpu>, GpuError> {
        let (device, queue, caps) = pollster::block_on(adapter::open(opts))?;
        let health = Arc::new(DeviceHealth::default());
        super::health::watch(&device, &health);
        let mut gpu = Gpu {
            device,
            queue,
            caps,
            pipelines: PipelineCache::default(),
            workgroup_memory: WorkgroupMemoryCache::default(),
            grid_probe: Default::default(),
            shader_checks: pipelines::shader_checks(opts.loop_bounding),
            shape_constants: !opts.dynamic_shapes,
            alloc: Default::default(),
            health,
        };
        if gpu.caps.subgroups32() {
            gpu.caps.subgroup_add_order = subgroup_order::probe(gpu.buffers()).unwrap_or_else(|e| {
                tracing::warn!("subgroupAdd order probe failed: {e}");
                None
            });
        }
        tracing::info!(caps = ?gpu.caps, "GPU device ready");
        Ok(Arc::new(gpu))
    }

    /// The buffer helpers over this device; what they create counts in `alloc`.
    fn buffers(&self) -> Buffers<'_> {
        Buffers { device: &self.device, queue: &self.queue, alloc: &self.alloc }
    }
}

// Pipelines and bind groups (pipelines.rs), and the workgroup-memory check (workgroup_memory.rs).
impl Gpu {
    /// The pipeline for `key`, compiled on first use.
    pub fn pipeline(&self, key: PipelineKey) -> Arc<wgpu::ComputePipeline> {
        self.pipelines.get(&self.device, key, self.caps.preludes(), self.shader_checks)
    }

    /// A pipeline from WGSL outside the kernel registry (start-up probes, benchmark floors):
    /// auto layout, no pipeline constants, not cached.
    pub fn standalone_pipeline(&self, label: &str, wgsl: &str, entry: &str) -> wgpu::ComputePipeline {
        pipelines::standalone_pipeline(&self.device, label, wgsl, entry)
    }

    /// A bind group for group 0 of `pipeline` binding `buffers` whole at bindings 0, 1, ...
    pub fn bind_buffers(
        &self,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        pipelines::bind_buffers(&self.device, label, pipeline, buffers)
    }

    /// A bind group for group 0 of `pipeline` with `resources` at bindings 0, 1, ...
    pub fn bind_in_order(
        &self,
        label: Option<&str>,
        pipeline: &wgpu::ComputePipeline,
        resources: &[wgpu::BindingResource],
    ) -> wgpu::BindGroup {
        pipelines::bind_in_order(&self.device, label, pipeline, resources)
    }

    /// Fails where `kernel` needs more workgroup memory than the device grants (workgroup_memory.rs).
    pub fn check_workgroup_memory(&self, kernel: KernelId) -> Result<(), GpuError> {
        self.workgroup_memory.check(kernel, self.caps.preludes(), self.caps.max_compute_workgroup_storage_size)
    }
}

// Buffer creation and readback (buffers.rs).
impl Gpu {
    /// A storage buffer holding `data` (at least 4 bytes: empty bindings are illegal).
    pub fn storage_from<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> wgpu::Buffer {
        self.buffers().storage_from(label, data)
    }

    /// An uninitialised storage buffer of `bytes` (rounded up to 4).
    pub fn storage(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.buffers().storage(label, bytes)
    }

    /// A uniform buffer holding one params struct.
    pub fn uniform_from<T: bytemuck::Pod>(&self, label: &str, value: &T) -> wgpu::Buffer {
        self.buffers().uniform_from(label, value)
    }

    /// A plan's Step buffer: a uniform that the last kernel of a one-token decode plan also
    /// writes as storage (moving the position on), readable back for tests.
    pub fn step_buffer<T: bytemuck::Pod>(&self, label: &str, value: &T) -> wgpu::Buffer {
        self.buffers().step_buffer(label, value)
    }

    /// A uniform buffer holding `bytes` (e.g. an arena of params structs).
    pub fn uniform_bytes(&self, label: &str, bytes: &[u8]) -> wgpu::Buffer {
        self.buffers().uniform_bytes(label, bytes)
    }

    /// Checks that a binding of `bytes` fits the device's storage-binding limit.
    pub fn check_binding(&self, what: &str, bytes: u64) -> Result<(), GpuError> {
        let limit = self.caps.max_storage_binding_size.min(self.caps.max_buffer_size);
        if bytes > limit {
            return Err(GpuError::BindingTooLarge { what: what.to_string(), needed: bytes, limit });
        }
        Ok(())
    }

    /// Copies `bytes` bytes from the start of `buf` back to the host (blocking).
    pub fn read_bytes(&self, buf: &wgpu::Buffer, bytes: u64) -> Result<Vec<u8>, GpuError> {
        self.buffers().read_bytes(buf, bytes)
    }

    /// A host-mappable buffer that GPU copies fill, for `map_read` / `map_read_after`.
    pub fn readback_buffer(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.buffers().readback_buffer(label, bytes)
    }

    /// Copies `bytes` bytes starting at byte `offset` (a multiple of 4) of `buf` back to the host (blocking).
    pub fn read_bytes_at(&self, buf: &wgpu::Buffer, offset: u64, bytes: u64) -> Result<Vec<u8>, GpuError> {
        self.buffers().read_bytes_at(buf, offset, bytes)
    }

    /// `read_bytes_at`, with the u32 at byte `word.1` of `word.0` copied behind the bytes in the same
    /// readback (0 without a word): one round trip for a result and a flag about it.
    pub fn read_bytes_and_word(
        &self,
        buf: &wgpu::Buffer,
        offset: u64,
        bytes: u64,
        word: Option<(&wgpu::Buffer, u64)>,
    ) -> Result<(Vec<u8>, u32), GpuError> {
        self.buffers().read_bytes_and_word(buf, offset, bytes, word)
    }

    /// Maps an already-filled MAP_READ buffer and returns its first `bytes` bytes (waits for all submitted work).
    pub fn map_read(&self, staging: &wgpu::Buffer, bytes: u64) -> Result<Vec<u8>, GpuError> {
        self.buffers().map_read(staging, bytes)
    }

    /// Like `map_read` for a buffer last written by submission `after`, waiting for that submission only:
    /// work submitted later keeps the GPU busy meanwhile.
    pub fn map_read_after(
        &self,
        staging: &wgpu::Buffer,
        bytes: u64,
        after: wgpu::SubmissionIndex,
    ) -> Result<Vec<u8>, GpuError> {
        self.buffers().map_read_after(staging, bytes, after)
    }

    pub fn read_f32(&self, buf: &wgpu::Buffer, len: usize) -> Result<Vec<f32>, GpuError> {
        self.buffers().read_f32(buf, len)
    }

    pub fn read_u32(&self, buf: &wgpu::Buffer, len: usize) -> Result<Vec<u32>, GpuError> {
        self.buffers().read_u32(buf, len)
    }
}
