// The feed-forward half of a decode layer in one dispatch (one token):
//   prologue  x, or (PARTIALS_IN) resid + the previous op's per-word partial rows, then
//             the NORM prologue: matvec_int4_core.wgsl's, so the bits are the unfused ops'
//   gate/up   this workgroup's 32 intermediate columns i = 32 w .. 32 w + 32 of
//             W_gate x' and W_up x', s_i = silu(gate_i) * up_i (the SwiGLU epilogue's
//             arithmetic), kept in workgroup memory
//   down      partial[w] = W_down[:, 32 w .. 32 w + 32] s: word w of the down projection's
//             K for every output column (int4_word.wgsl's word_dot), left for the next
//             matvec's PARTIALS_IN prologue to add to the residual in the plain matvec's order.
// So a layer's down projection costs no dispatch of its own. Lane group lg computes
// intermediates 32 w + 2 lg + {0, 1} and 32 w + 16 + 2 lg + {0, 1} (gate in components
// 0-1, up in 2-3, as the core's SWIGLU layout). Params: n0 = n1 = intermediate width (the
// down projection's K), n2 = the down projection's outputs, k = the input width.
// grid: (n0 / 32, 1)

// Params, x (binding 2), MAX_K4 and the PARTIALS_IN hooks: lib/matvec_int4_bindings.wgsl.
@group(0) @binding(3) var<storage, read> norm_w: array<vec4<f32>>;
// The residual PARTIALS_IN adds (dummy otherwise).
@group(0) @binding(4) var<storage, read> resid: array<f32>;
@group(0) @binding(5) var<storage, read> gate_q: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> gate_sm: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read> up_q: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> up_sm: array<vec2<f32>>;
@group(0) @binding(9) var<storage, read> down_q: array<vec4<u32>>;
@group(0) @binding(10) var<storage, read> down_sm: array<vec2<f32>>;
// [n0 / 32, n2 / 4] vec4s: this workgroup's row is its word of the down projection.
@group(0) @binding(11) var<storage, read_write> partials: array<vec4<f32>>;
// The PARTIALS_IN sum x (written by workgroup 0; dummy otherwise).
@group(0) @binding(12) var<storage, read_write> x_out: array<f32>;

fn load_q(m: u32, i: u32) -> vec4<u32> {
    if (m == 0u) { return gate_q[i]; }
    if (m == 1u) { return up_q[i]; }
    return down_q[i];
}

fn load_sm(m: u32, i: u32) -> vec2<f32> {
    if (m == 0u) { return gate_sm[i]; }
    if (m == 1u) { return up_sm[i]; }
    return down_sm[i];
}

fn norm_weight(i: u32) -> vec4<f32> { return norm_w[i]; }
fn gate_at(i: u32) -> vec4<f32> { return vec4<f32>(0.0); }
fn resid_at(i: u32) -> f32 { return resid[i]; }
fn bias_at(m: u32, c: u32) -> f32 { return 0.0; }
// Only the PARTIALS_IN sum is stored through the hook (matrix slot 3).
fn store(m: u32, i: u32, v: f32) { x_out[i] = v; }

// The 32 SwiGLU values of this workgroup's word.
var<workgroup> act: array<vec4<f32>, 8>;

@compute @workgroup_size(256)
fn matvec_mlp_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    let lane = t % LANES;
    let lg = t / LANES;
    let vecs = dim_k() / 32u;
    let groups = dim_k() / dim_group();
    let vec_per_group = dim_group() / 32u;
    let ca = wg.x * 32u + 2u * lg;
    let cb = ca + 16u;
    let a0 = vec2<u32>(0u, ca);
    let a1 = vec2<u32>(0u, ca + 1u);
    let a2 = vec2<u32>(1u, ca);
    let a3 = vec2<u32>(1u, ca + 1u);
    let b0 = vec2<u32>(0u, cb);
    let b1 = vec2<u32>(0u, cb + 1u);
    let b2 = vec2<u32>(1u, cb);
    let b3 = vec2<u32>(1u, cb + 1u);
    let part = (vecs + LANES - 1u) / LANES * LANES;
    // Every weight this workgroup reads first is requested before the prologue.
    let nq = dim_n2() / 4u;
    var dw: Chunk;
    if (t < nq) { dw = quad_words(2u, t, wg.x, dim_n0(), dim_group()); }
    var wa = load_chunk(a0, a1, a2, a3, lane, vecs, vecs, groups, vec_per_group);
    var wb = load_chunk(b0, b1, b2, b3, lane, vecs, vecs, groups, vec_per_group);
    let staged = stage_load(t);
    prologues(wg, t, 1u, staged);
    var acc_a = vec4<f32>(0.0);
    var acc_b = vec4<f32>(0.0);
    for (var v0 = 0u; v0 < part; v0 += LANES) {
        let v = v0 + lane;
        let cur_a = wa;
        let cur_b = wb;
        if (v0 + LANES < part) {
            wa = load_chunk(a0, a1, a2, a3, v + LANES, vecs, vecs, groups, vec_per_group);
            wb = load_chunk(b0, b1, b2, b3, v + LANES, vecs, vecs, groups, vec_per_group);
        }
        if (v < vecs) {
            acc_a += row_dot(0u, 0u, v, cur_a.q0, cur_a.q1, cur_a.q2, cur_a.q3, chunk_scales(cur_a), chunk_offsets(cur_a));
            acc_b += row_dot(0u, 0u, v, cur_b.q0, cur_b.q1, cur_b.q2, cur_b.q3, chunk_scales(cur_b), chunk_offsets(cur_b));
        }
    }
    let sa = group_sum(acc_a, t);
    let sb = group_sum(acc_b, t);
    if (lane < 2u) {
        let i = 2u * lg + lane;
        act[i / 4u][i % 4u] = silu_mul(sa[lane], sa[lane + 2u]);
        act[(i + 16u) / 4u][i % 4u] = silu_mul(sb[lane], sb[lane + 2u]);
    }
    workgroupBarrier();
    for (var q = t; q < nq; q += WG) {
        var c = dw;
        if (q != t) { c = quad_words(2u, q, wg.x, dim_n0(), dim_group()); }
        partials[wg.x * nq + q] = chunk_dot(act[0], act[1], act[2], act[3], act[4], act[5], act[6], act[7], c);
    }
}
