// Plain INT4 matvec for decode rows: y[r] = W x[r] (+ bias), or only the last
// row with LAST_ROW. Five storage bindings, so it runs on adapters that grant few
// storage buffers per stage; the body (shaders/lib/matvec_int4_core.wgsl) and so
// every bit of the result are the same as matvec_fused_int4.wgsl's with no
// prologue or epilogue. Only FLAGS bits BIAS0 and LAST_ROW (and one matrix) apply.

struct Params {
    n0: u32, n1: u32, n2: u32, k: u32,
    group: u32, flags: u32, eps: f32, n3: u32,
}
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> wq: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> wsm: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> bias: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

// K <= 2048 for the staged / summed x (matvec_int4_core.wgsl's xsum).
const MAX_K4: u32 = 512u;

fn load_q(m: u32, i: u32) -> vec4<u32> { return wq[i]; }
fn load_sm(m: u32, i: u32) -> vec2<f32> { return wsm[i]; }
fn norm_weight(i: u32) -> vec4<f32> { return vec4<f32>(1.0); }
fn gate_at(i: u32) -> vec4<f32> { return vec4<f32>(0.0); }
fn resid_at(i: u32) -> f32 { return 0.0; }
fn bias_at(m: u32, c: u32) -> f32 { return bias[c]; }
fn store(m: u32, i: u32, v: f32) { y[i] = v; }

@compute @workgroup_size(256)
fn matvec_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    matvec_core(wg, lid);
}
