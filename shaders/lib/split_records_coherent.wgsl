// The split scratch where storage buffers can be declared @coherent (wgpu's
// MEMORY_DECORATION_COHERENT: SPIR-V's Coherent decoration on Vulkan). The kernel file binds
// `scratch` @coherent, so a record one workgroup writes is read by another through plain loads
// that bypass caches not coherent across workgroups (NVIDIA's L1), vec4 at a time. Without the
// decoration a plain load may be served stale from such a cache whatever barrier precedes it
// (split_records_atomic.wgsl is the fallback). The ordering still comes from storageBarrier.
struct SplitScratch { tickets: array<atomic<u32>, MAX_TICKETS>, rec: array<vec4<f32>> }

fn rec_load(i: u32) -> vec4<f32> { return scratch.rec[i]; }
fn rec_store(i: u32, v: vec4<f32>) { scratch.rec[i] = v; }
// Float j of the records (vec4 i is floats 4 i .. 4 i + 3).
fn rec_load1(j: u32) -> f32 { return scratch.rec[j / 4u][j % 4u]; }
fn rec_store1(j: u32, v: f32) { scratch.rec[j / 4u][j % 4u] = v; }
