//! Adapter selection and device creation. We ask for the adapter's real limits (not WebGPU
//! defaults) and every optional feature the kernels can use, and record what was granted in
//! `GpuCaps` so kernel selection and fusion passes can respect it.

use super::caps::{GpuCaps, GpuOptions};
use super::GpuError;

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

/// The device and queue of the adapter `opts` picks, and what it granted. `subgroup_add_order` is
/// left None: the probe that fills it runs on the device (`Gpu::new`).
pub(crate) async fn open(opts: &GpuOptions) -> Result<(wgpu::Device, wgpu::Queue, GpuCaps), GpuError> {
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
    Ok((device, queue, caps))
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
