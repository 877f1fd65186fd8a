//! The GPU layer's one error enum, in a file of its own so the helpers that fail (buffer readback,
//! the workgroup-memory check, start-up probes) can return it without importing the `Gpu` they
//! serve.

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
