//! Compiled compute pipelines, cached by a typed key. Bind group layouts are
//! derived from the shader (auto layout), so Rust never restates bindings. Everything here takes
//! the `wgpu::Device` rather than the `Gpu`: the `Gpu` holds the cache, and the subgroup-order probe
//! that fills its caps builds a pipeline too. `Gpu`'s pipeline methods (device.rs) pass their own
//! device in.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::kernels::Preludes;
use super::{KernelId, KvLayout};

/// What makes two pipelines different: the kernel, and for kernels that
/// declare `override FLAGS: u32`, the flag bits compiled into it (so fused
/// variants carry no run-time branches on what they fuse).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PipelineKey {
    pub kernel: KernelId,
    pub flags: u32,
    /// INT4 matvec kernels: the shape (k, n0, n1, n2, n3, group) compiled in as
    /// pipeline constants (`GpuOptions::dynamic_shapes` leaves it zero: read from the uniform).
    pub dims: [u32; 6],
    /// Kernels with a KV cache (`KernelSource::kv_cache`): its value type and addressing.
    pub kv: KvLayout,
}

impl PipelineKey {
    pub fn new(kernel: KernelId, flags: u32) -> PipelineKey {
        PipelineKey { kernel, flags, dims: [0; 6], kv: KvLayout::default() }
    }
}

#[derive(Default)]
pub(crate) struct PipelineCache {
    /// By file and KV cache layout.
    modules: Mutex<HashMap<(&'static str, KvLayout), wgpu::ShaderModule>>,
    pipelines: Mutex<HashMap<PipelineKey, Arc<wgpu::ComputePipeline>>>,
}

impl PipelineCache {
    /// The pipeline for `key`, compiled on first use with `preludes` and `checks` (the device's,
    /// which do not change after start-up: the cache keys on `key` alone).
    pub(crate) fn get(
        &self,
        device: &wgpu::Device,
        key: PipelineKey,
        preludes: Preludes,
        checks: wgpu::ShaderRuntimeChecks,
    ) -> Arc<wgpu::ComputePipeline> {
        if let Some(p) = self.pipelines.lock().unwrap().get(&key) {
            return p.clone();
        }
        let src = key.kernel.source();
        let module = {
            let mut modules = self.modules.lock().unwrap();
            modules
                .entry((src.file, if src.kv_cache { key.kv } else { KvLayout::default() }))
                .or_insert_with(|| {
                    let desc = wgpu::ShaderModuleDescriptor {
                        label: Some(src.file),
                        source: wgpu::ShaderSource::Wgsl(src.wgsl(preludes, key.kv).into()),
                    };
                    // SAFETY: see shader_checks: only loop bounding is dropped, and every loop of
                    // these kernels runs to a bound the plan computes.
                    unsafe { device.create_shader_module_trusted(desc, checks) }
                })
                .clone()
        };
        let mut constants: Vec<(&str, f64)> = Vec::new();
        if src.specialized {
            constants.push(("FLAGS", key.flags as f64));
        }
        if key.dims[0] != 0 {
            let names = ["K_DIM", "N0_DIM", "N1_DIM", "N2_DIM", "N3_DIM", "GROUP_DIM"];
            constants.extend(names.into_iter().zip(key.dims.map(f64::from)));
        }
        let pipeline = Arc::new(device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(src.entry),
            layout: None,
            module: &module,
            entry_point: Some(src.entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                // Every kernel writes what it reads from shared memory first.
                zero_initialize_workgroup_memory: false,
            },
            cache: None,
        }));
        self.pipelines.lock().unwrap().insert(key, pipeline.clone());
        pipeline
    }
}

/// A pipeline from WGSL outside the kernel registry (start-up probes, benchmark floors):
/// auto layout, no pipeline constants, not cached.
pub fn standalone_pipeline(device: &wgpu::Device, label: &str, wgsl: &str, entry: &str) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A bind group for group 0 of `pipeline` binding `buffers` whole at bindings 0, 1, ...
pub fn bind_buffers(
    device: &wgpu::Device,
    label: &str,
    pipeline: &wgpu::ComputePipeline,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let resources: Vec<_> = buffers.iter().map(|b| b.as_entire_binding()).collect();
    bind_in_order(device, Some(label), pipeline, &resources)
}

/// A bind group for group 0 of `pipeline` with `resources` at bindings 0, 1, ...
pub fn bind_in_order(
    device: &wgpu::Device,
    label: Option<&str>,
    pipeline: &wgpu::ComputePipeline,
    resources: &[wgpu::BindingResource],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = resources
        .iter()
        .enumerate()
        .map(|(i, r)| wgpu::BindGroupEntry { binding: i as u32, resource: r.clone() })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}

/// The runtime checks naga adds to the kernels. Loop bounding (a counter in every loop) costs
/// 10-50% of a latency-bound decode kernel on the H200 (`gerbil profile --ablate`: SmolLM2 step
/// 1293 -> 1136 us, the gated delta rule 17.7 -> 8.5 us); every loop of these kernels runs to a
/// finite bound the plan computes, so it is off. Everything else stays: index clamps, buffer bounds
/// (by naga or the driver's robust buffer access) and integer-division guards (measured free).
/// `GpuOptions::loop_bounding` keeps it.
pub(crate) fn shader_checks(loop_bounding: bool) -> wgpu::ShaderRuntimeChecks {
    let mut c = wgpu::ShaderRuntimeChecks::checked();
    c.force_loop_bounding = loop_bounding;
    c
}
