// INT4 decode matvec over ONE matrix whose rows are several projections
// concatenated at load (Qwen3.5's Gated DeltaNet front: in_proj_qkv | a | b | z),
// each output segment written to its own buffer: y0 gets columns [0, n0), y1 the
// next n1, y2 the next n2, y3 the last n3 (FLAGS bits 8-10: the segment count).
// x is read once and one launch replaces four. Same body as the other INT4
// matvecs (shaders/lib/matvec_int4_core.wgsl), so every output bit equals the
// plain matvec of the concatenated matrix; optional NORM prologue as there.
// Eight storage bindings.

// Params, x (binding 2), MAX_K4 and the PARTIALS_IN hooks: lib/matvec_int4_bindings.wgsl.
@group(0) @binding(3) var<storage, read> norm_w: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> wq: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> wsm: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read_write> y0: array<f32>;
@group(0) @binding(7) var<storage, read_write> y1: array<f32>;
@group(0) @binding(8) var<storage, read_write> y2: array<f32>;
@group(0) @binding(9) var<storage, read_write> y3: array<f32>;

// First row of segment m in the concatenated matrix.
fn seg_start(m: u32) -> u32 {
    var s = 0u;
    if (m > 0u) { s += dim_n0(); }
    if (m > 1u) { s += dim_n1(); }
    if (m > 2u) { s += dim_n2(); }
    return s;
}

fn load_q(m: u32, i: u32) -> vec4<u32> { return wq[seg_start(m) * (dim_k() / 32u) + i]; }
fn load_sm(m: u32, i: u32) -> vec2<f32> { return wsm[seg_start(m) * (dim_k() / dim_group()) + i]; }
fn norm_weight(i: u32) -> vec4<f32> { return norm_w[i]; }
fn gate_at(i: u32) -> vec4<f32> { return vec4<f32>(0.0); }
fn resid_at(i: u32) -> f32 { return 0.0; }
fn bias_at(m: u32, c: u32) -> f32 { return 0.0; }

fn store(m: u32, i: u32, v: f32) {
    if (m == 0u) { y0[i] = v; } else if (m == 1u) { y1[i] = v; } else if (m == 2u) { y2[i] = v; } else { y3[i] = v; }
}

@compute @workgroup_size(256)
fn matvec_fused_split_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    matvec_core(wg, lid);
}
