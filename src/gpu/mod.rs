//! The GPU layer: adapter and device selection, the kernel registry, the
//! pipeline cache, typed uniform layouts and buffer helpers.

mod adapter;
pub mod buffers;
pub mod caps;
pub mod device;
pub mod error;
pub mod grid_probe;
pub mod health;
pub mod kernels;
pub mod kv_dtype;
pub mod kv_pages;
pub mod params;
pub mod pipelines;
pub mod subgroup_order;
pub mod workgroup_memory;

pub use caps::{GpuCaps, GpuOptions};
pub use device::Gpu;
pub use error::GpuError;
pub use health::DeviceHealth;
pub use kernels::KernelId;
pub use kv_dtype::KvDtype;
pub use kv_pages::{KvLayout, KvPaging};
pub use pipelines::PipelineKey;
