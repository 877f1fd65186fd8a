//! The GPU layer: adapter and device selection, the kernel registry, the
//! pipeline cache, typed uniform layouts and buffer helpers.

pub mod buffers;
pub mod device;
pub mod grid_probe;
pub mod kernels;
pub mod params;
pub mod pipelines;
pub mod subgroup_order;
pub mod workgroup_memory;

pub use device::{Gpu, GpuCaps, GpuError, GpuOptions};
pub use kernels::KernelId;
pub use pipelines::PipelineKey;
