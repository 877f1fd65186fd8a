//! Adapter selection and device creation. We ask for the adapter's real limits
//! (not WebGPU defaults) and every optional feature the kernels can use, and
//! record what was granted so kernel selection and fusion passes can respect it.

use std::sync::Arc;

use super::kernels::Preludes;
use super::pipelines::PipelineCache;
use super::subgroup_order::{self, SubgroupAddOrder};
use super::workgroup_memory::WorkgroupMemoryCache;

#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error(
        "no GPU adapter found (tried {tried}). Install a Vulkan driver (on Debian/Ubuntu: \
         `apt-get install mesa-vulkan-drivers libvulkan1` gives software Vulkan), or Metal/DX12 where present"
    )]
    NoAdapter { tried: String },
    #[error(
        "the Vulkan loader ({lib}) is not installed, so no GPU can be used. Install it with your GPU's \
         driver (on Debian/Ubuntu: `apt-get install libvulkan1`, plus `mesa-vulkan-drivers` for AMD/Intel \
         GPUs or software Vulkan where there is no GPU; NVIDIA's driver ships its own Vulkan driver)"
    )]
    NoVulkanLoader { lib: &'static str },
    #[error("the adapter '{adapter}' refused a device: {source}")]
    RequestDevice {
        adapter: String,
        #[source]
        source: wgpu::RequestDeviceError,
    },
    #[error("GPU readback failed: {0}")]
    Readback(String),
    #[error("{what} needs {needed} bytes in one storage binding but the device allows {limit}")]
    BindingTooLarge { what: String, needed: u64, limit: u64 },
    #[error("GPU validation error: {0}")]
    Validation(String),
    #[error("kernel {kernel} needs {needed} bytes of workgroup memory but the device allows {limit}")]
    WorkgroupMemory { kernel: String, needed: u32, limit: u32 },
}

/// What the caller may ask of adapter selection.
#[derive(Debug, Clone, Default)]
pub struct GpuOptions {
    /// Pick the adapter whose name contains this (case-insensitive).
    pub adapter_name: Option<String>,
    /// Do not enable subgroup operations even where the adapter has them (tests of the fallback kernels).
    pub no_subgroups: bool,
    /// Do not declare storage buffers `@coherent` even where the adapter can (tests of the atomic
    /// fallback: `Preludes::coherent`).
    pub no_coherent: bool,
    /// Keep naga's loop bounding in the kernels (off by default: see `pipelines::shader_checks`);
    /// `gerbil bench` / `gerbil profile --loop-bounding` measure what it costs.
    pub loop_bounding: bool,
    /// Read the INT4 matvec shapes from uniforms instead of compiling them into each pipeline
    /// (`gerbil bench|profile --dynamic-shapes` measures the difference).
    pub dynamic_shapes: bool,
}

/// What the device granted, recorded once at start-up.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GpuCaps {
    pub adapter_name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub max_storage_buffers_per_stage: u32,
    pub max_storage_binding_size: u64,
    pub max_buffer_size: u64,
    pub max_compute_workgroup_storage_size: u32,
    pub max_compute_invocations_per_workgroup: u32,
    pub max_compute_workgroups_per_dimension: u32,
    pub subgroups: bool,
    pub subgroup_min_size: u32,
    pub subgroup_max_size: u32,
    pub shader_f16: bool,
    pub timestamp_query: bool,
    pub timestamp_query_inside_passes: bool,
    /// The order `subgroupAdd` adds in, where subgroups are 32 wide and the probe recognised it.
    pub subgroup_add_order: Option<SubgroupAddOrder>,
    /// Storage buffers may be declared `@coherent` (wgpu's MEMORY_DECORATION_COHERENT; SPIR-V's
    /// Coherent on Vulkan). Without it a plain load may read a value another workgroup of the same
    /// dispatch published from a stale cache line, so such values go through atomics.
    pub coherent_buffers: bool,
}

impl GpuCaps {
    /// Subgroup operations are enabled and every subgroup is exactly 32 invocations, so a
    /// 32-lane group of a 1-D workgroup is one subgroup (kernels reduce with `subgroupAdd`).
    /// `GpuOptions::no_subgroups` turns this off to test the workgroup-memory fallback.
    pub fn subgroups32(&self) -> bool {
        self.subgroups && self.subgroup_min_size == 32 && self.subgroup_max_size == 32
    }

    /// The preludes the kernels are compiled with.
    pub fn preludes(&self) -> Preludes {
        Preludes {
            subgroups32: self.subgroups32(),
            neighbours_first: self.subgroup_add_order == Some(SubgroupAddOrder::NeighboursFirst),
            coherent: self.coherent_buffers,
        }
    }
}

/// The one device every executor of a process shares.
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
    pub alloc: super::buffers::AllocStats,
}

fn backend_rank(b: wgpu::Backend) -> u32 {
    match b {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal => 1,
        wgpu::Backend::Dx12 => 2,
        _ => 9,
    }
}

fn type_rank(t: wgpu::DeviceType) -> u32 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

impl Gpu {
    pub fn new(opts: &GpuOptions) -> Result<Arc<Gpu>, GpuError> {
        pollster::block_on(Self::new_async(opts))
    }

    async fn new_async(opts: &GpuOptions) -> Result<Arc<Gpu>, GpuError> {
        let backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let mut adapters = instance.enumerate_adapters(backends).await;
        if let Some(want) = &opts.adapter_name {
            let want = want.to_lowercase();
            adapters.retain(|a| a.get_info().name.to_lowercase().contains(&want));
        }
        // Vulkan first, then Metal, then DX12; within a backend a real GPU before a CPU one.
        adapters.sort_by_key(|a| {
            let i = a.get_info();
            (backend_rank(i.backend), type_rank(i.device_type))
        });
        let Some(adapter) = adapters.into_iter().next() else {
            if let Some(lib) = missing_vulkan_loader() {
                return Err(GpuError::NoVulkanLoader { lib });
            }
            return Err(GpuError::NoAdapter { tried: "Vulkan, Metal, DX12".into() });
        };
        let info = adapter.get_info();
        let limits = adapter.limits();
        let wanted = wgpu::Features::SUBGROUP
            | wgpu::Features::SHADER_F16
            | wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
            | wgpu::Features::MEMORY_DECORATION_COHERENT;
        let mut features = adapter.features() & wanted;
        if opts.no_subgroups {
            features.remove(wgpu::Features::SUBGROUP);
        }
        if opts.no_coherent {
            features.remove(wgpu::Features::MEMORY_DECORATION_COHERENT);
        }
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("gerbil"),
                required_features: features,
                required_limits: limits.clone(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|source| GpuError::RequestDevice { adapter: info.name.clone(), source })?;
        let granted = device.limits();
        let caps = GpuCaps {
            adapter_name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: format!("{} {}", info.driver, info.driver_info),
            max_storage_buffers_per_stage: granted.max_storage_buffers_per_shader_stage,
            max_storage_binding_size: granted.max_storage_buffer_binding_size,
            max_buffer_size: granted.max_buffer_size,
            max_compute_workgroup_storage_size: granted.max_compute_workgroup_storage_size,
            max_compute_invocations_per_workgroup: granted.max_compute_invocations_per_workgroup,
            max_compute_workgroups_per_dimension: granted.max_compute_workgroups_per_dimension,
            subgroups: features.contains(wgpu::Features::SUBGROUP),
            subgroup_min_size: info.subgroup_min_size,
            subgroup_max_size: info.subgroup_max_size,
            shader_f16: features.contains(wgpu::Features::SHADER_F16),
            timestamp_query: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            timestamp_query_inside_passes: features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES),
            subgroup_add_order: None,
            coherent_buffers: features.contains(wgpu::Features::MEMORY_DECORATION_COHERENT),
        };
        let mut gpu = Gpu {
            device,
            queue,
            caps,
            pipelines: PipelineCache::default(),
            workgroup_memory: WorkgroupMemoryCache::default(),
            grid_probe: Default::default(),
            shader_checks: super::pipelines::shader_checks(opts.loop_bounding),
            shape_constants: !opts.dynamic_shapes,
            alloc: Default::default(),
        };
        if gpu.caps.subgroups32() {
            gpu.caps.subgroup_add_order = subgroup_order::probe(&gpu).unwrap_or_else(|e| {
                tracing::warn!("subgroupAdd order probe failed: {e}");
                None
            });
        }
        tracing::info!(caps = ?gpu.caps, "GPU device ready");
        Ok(Arc::new(gpu))
    }
}

/// The Vulkan loader's library name where it cannot be loaded (Linux and the BSDs; elsewhere
/// Metal or DX12 are the platform's own and nothing is missing).
fn missing_vulkan_loader() -> Option<&'static str> {
    if !cfg!(all(unix, not(target_vendor = "apple"))) {
        return None;
    }
    const LIB: &str = "libvulkan.so.1";
    // SAFETY: loading the system Vulkan loader runs no initializers beyond its own, the same
    // library wgpu has just tried to load; the handle is dropped at once.
    match unsafe { libloading::Library::new(LIB) } {
        Ok(_) => None,
        Err(_) => Some(LIB),
    }
}
