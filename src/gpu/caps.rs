//! What the caller asks of the device (`GpuOptions`) and what the device granted (`GpuCaps`):
//! plain records, so adapter selection fills them and kernel selection and fusion passes read
//! them without reaching for the `Gpu`.

use super::kernels::Preludes;
use super::subgroup_order::SubgroupAddOrder;

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
