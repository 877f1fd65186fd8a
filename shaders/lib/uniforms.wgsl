// The two uniforms every kernel binds, put in front of every kernel by gpu/kernels.rs
// (`KernelSource::wgsl`), so a kernel's own bindings start at 2:
//   binding 0  `p`: the kernel's Params, a struct the kernel file declares (each mirrors one of
//              gpu/params.rs's, checked field by field by tests/shaders.rs)
//   binding 1  `step`: the per-step values every dispatch of a step shares (gpu/params.rs's Step).
//              `probe` is non-zero only for graph/residency.rs: decode_layer.wgsl then runs
//              grid_sync.wgsl's residency check instead.
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, probe: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
