//! Whether the adapter runs grid barriers (shaders/lib/grid_sync.wgsl) correctly, measured once per
//! device on first use: a dispatch of `PROBE_WORKGROUPS` workgroups of 256 invocations, as much
//! workgroup memory as decode_layer.wgsl, runs four phases; in each, every invocation writes a
//! value, meets the others at the barrier, and reads what its neighbour workgroup wrote. The
//! adapter passes where every read sees its phase's value and the barrier word ends with every
//! barrier completed. Neither Vulkan nor WGSL promises that a whole grid is resident at once or
//! that the barrier orders memory between workgroups: the H200 (NVIDIA 580) passes; Mesa 22.3's
//! lavapipe leaves arrivals pending and reads stale values, so it fails. An adapter that cannot
//! declare storage buffers `@coherent` fails without running it: grid-barrier kernels read what
//! other workgroups publish through such bindings.

use super::kernels::GRID_SYNC;
use super::Gpu;

/// The largest grid a grid-barrier kernel runs (`dispatch_layer::MAX_WORKGROUPS`).
pub const PROBE_WORKGROUPS: u32 = 128;
const PHASES: u32 = 4;

/// Each phase writes and reads its own region of `s`, a @coherent binding as decode_layer's
/// published values are (grid_sync.wgsl). `pad` holds the workgroup memory of
/// decode_layer.wgsl's arrays, so residency is tested at that footprint.
const PROBE_WGSL: &str = "
struct Probe { word: array<atomic<u32>, 4>, data: array<u32> }
@group(0) @binding(0) @coherent var<storage, read_write> s: Probe;
@group(0) @binding(1) var<storage, read_write> bad: array<atomic<u32>>;
fn barrier_add(v: u32) -> u32 { return atomicAdd(&s.word[0], v); }
fn barrier_load() -> u32 { return atomicLoad(&s.word[0]); }
fn failed_load() -> u32 { return atomicLoad(&s.word[1]); }
fn failed_set() { atomicStore(&s.word[1], 1u); }
var<workgroup> pad: array<vec4<f32>, 1792>;
@compute @workgroup_size(256)
fn probe(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
         @builtin(num_workgroups) n: vec3<u32>) {
    let w = wg.x;
    let t = lid.x;
    let g = n.x;
    for (var i = t; i < 1792u; i += 256u) { pad[i] = vec4<f32>(f32(w)); }
    for (var ph = 0u; ph < PHASES; ph++) {
        let region = ph * g * 256u;
        s.data[region + w * 256u + t] = 1000u * (ph + 1u) + w;
        grid_sync(t, g);
        let o = (w + 1u) % g;
        if (s.data[region + o * 256u + t] != 1000u * (ph + 1u) + o) { atomicAdd(&bad[0], 1u); }
    }
    workgroupBarrier();
    if (pad[t].x != f32(w)) { atomicAdd(&bad[1], 1u); }
}";

/// Runs the probe (see the module doc). Any failure to run it counts as a fail.
pub fn run(gpu: &Gpu) -> bool {
    let src = format!("const PHASES: u32 = {PHASES}u;\n{GRID_SYNC}\n{PROBE_WGSL}");
    let groups = PROBE_WORKGROUPS;
    let pipeline = gpu.standalone_pipeline("grid barrier probe", &src, "probe");
    let state = gpu.storage("grid probe", 16 + 4 * (PHASES * groups * 256) as u64);
    let bad = gpu.storage("grid probe errors", 8);
    let bind = gpu.bind_buffers("grid barrier probe", &pipeline, &[&state, &bad]);
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    gpu.queue.submit([enc.finish()]);
    let (Ok(word), Ok(errors)) = (gpu.read_u32(&state, 2), gpu.read_u32(&bad, 2)) else { return false };
    // word[1]: a workgroup waited out its polls (grid_sync.wgsl's failure word).
    let passed = word == [PHASES << 16, 0] && errors == [0, 0];
    tracing::info!(passed, word = word[0], timed_out = word[1], stale_reads = errors[0], "grid barrier probe");
    passed
}

impl Gpu {
    /// Whether grid-barrier kernels may run here (`run`, once per device).
    pub fn grid_barriers_work(&self) -> bool {
        *self.grid_probe.get_or_init(|| self.caps.coherent_buffers && run(self))
    }
}
