// The residual add and RMSNorm after a decoder's last MLP, when the MLP kernel leaves its down
// projection as per-word partial rows (Op::PartialsNorm, one token, one workgroup):
//   sum = resid + the partial rows summed in the plain matvec's order   (y_sum)
//   out = sum * rsqrt(mean(sum^2) + eps) * g   (or * (1 + g))           (y_norm)
// Both through matvec_int4_core.wgsl's PARTIALS_IN and NORM prologues, so the bits are the
// unfused [down matvec] [add_rmsnorm] pair's, as for every other consumer of partial rows.
// Params: k = the row width, n0..n3 = 0 (no matrix), group = 32 (unused).
// grid: (1, 1)

// Params, x (binding 2), MAX_K4 and the PARTIALS_IN hooks: lib/matvec_int4_bindings.wgsl.
// x: the partial rows [P, k].
@group(0) @binding(3) var<storage, read> norm_w: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> resid: array<f32>;
@group(0) @binding(5) var<storage, read_write> y_sum: array<f32>;
@group(0) @binding(6) var<storage, read_write> y_norm: array<vec4<f32>>;

// No matrix: the core's matvec hooks are never called.
fn load_q(m: u32, i: u32) -> vec4<u32> { return vec4<u32>(0u); }
fn load_sm(m: u32, i: u32) -> vec2<f32> { return vec2<f32>(0.0); }
fn norm_weight(i: u32) -> vec4<f32> { return norm_w[i]; }
fn gate_at(i: u32) -> vec4<f32> { return vec4<f32>(0.0); }
fn resid_at(i: u32) -> f32 { return resid[i]; }
fn bias_at(m: u32, c: u32) -> f32 { return 0.0; }
// Only the PARTIALS_IN sum is stored through the hook (matrix slot 3).
fn store(m: u32, i: u32, v: f32) { y_sum[i] = v; }

@compute @workgroup_size(256)
fn partials_norm(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    let staged = stage_load(t);
    prologues(wg, t, 1u, staged);
    for (var i = t; i < dim_k() / 4u; i += WG) {
        y_norm[i] = xin(0u, 0u, i);
    }
}
