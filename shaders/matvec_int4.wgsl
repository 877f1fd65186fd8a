// Plain INT4 matvec for decode rows: y[r] = W x[r] (+ bias), or only the last
// row with LAST_ROW. Five storage bindings, so it runs on adapters that grant few
// storage buffers per stage; the body (shaders/lib/matvec_int4_core.wgsl) and so
// every bit of the result are the same as matvec_fused_int4.wgsl's with no
// prologue or epilogue. Only FLAGS bits BIAS0 and LAST_ROW (and one matrix) apply.

// Params, x (binding 2), MAX_K4 and the PARTIALS_IN hooks: lib/matvec_int4_bindings.wgsl.
@group(0) @binding(3) var<storage, read> wq: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> wsm: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> bias: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

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

// The streaming layout (one input row, no prologue or epilogue beyond the bias; chosen by
// dispatch_matvec::stream_grid): workgroup wg.x computes column blocks wg.x, wg.x + grid,
// wg.x + 2 grid, .. (a block is the plain layout's workgroup: GROUPS lane groups of CPG columns),
// walking (block, K step) iterations with the next iteration's weights requested while one computes. A workgroup so
// keeps loads in flight across blocks instead of ending, relaunching and ramping up every 32
// columns, and where K is one step of the lanes its x stays in registers for every block. Lane
// groups share no barrier, so each walks its columns at its own pace. Every column's arithmetic is
// the plain layout's with ksplit() == 1 (lane = word, steps in order, group_sum), bit for bit.
// Measured on the H200 (commit `ba2983e`) and kept simple on purpose: prefetching two or
// three iterations ahead was slower (registers cost more occupancy than the extra loads in flight
// bring), and taking blocks from an atomic ticket counter (a barrier per block) was slower too.
fn stream_chunk(j: u32, total: u32, wgx: u32, nwg: u32, steps: u32, lg: u32, lane: u32) -> Chunk {
    var c: Chunk;
    if (j >= total) { return c; }
    let b = wgx + j / steps * nwg;
    let vecs = dim_k() / 32u;
    return load_chunk(slot_col(b, lg, 0u), slot_col(b, lg, 1u), slot_col(b, lg, 2u), slot_col(b, lg, 3u),
                      j % steps * LANES + lane, vecs, vecs, dim_k() / dim_group(), dim_group() / 32u);
}

fn matvec_stream(wg: vec3<u32>, lid: vec3<u32>, nwg: vec3<u32>) {
    let t = lid.x;
    let lane = t % LANES;
    let lg = t / LANES;
    let vecs = dim_k() / 32u;
    let steps = (vecs + LANES - 1u) / LANES;
    let blocks = (dim_n0() + GROUPS * CPG - 1u) / (GROUPS * CPG);
    if (wg.x >= blocks) { return; }
    // Iterations of this workgroup: its blocks times the K steps (uniform over the workgroup).
    let total = (blocks - wg.x + nwg.x - 1u) / nwg.x * steps;
    let row = in_row(0u, 0u);
    var w = stream_chunk(0u, total, wg.x, nwg.x, steps, lg, lane);
    let xr = row * (dim_k() / 4u) + 8u * lane;
    var h0: vec4<f32>; var h1: vec4<f32>; var h2: vec4<f32>; var h3: vec4<f32>;
    var h4: vec4<f32>; var h5: vec4<f32>; var h6: vec4<f32>; var h7: vec4<f32>;
    if (steps == 1u && lane < vecs) {
        h0 = x[xr]; h1 = x[xr + 1u]; h2 = x[xr + 2u]; h3 = x[xr + 3u];
        h4 = x[xr + 4u]; h5 = x[xr + 5u]; h6 = x[xr + 6u]; h7 = x[xr + 7u];
    }
    var acc = vec4<f32>(0.0);
    for (var i = 0u; i < total; i++) {
        let cur = w;
        w = stream_chunk(i + 1u, total, wg.x, nwg.x, steps, lg, lane);
        let s = i % steps;
        let v = s * LANES + lane;
        if (v < vecs) {
            let sc = chunk_scales(cur);
            let ofs = chunk_offsets(cur);
            if (steps == 1u) {
                acc += word_dot(h0, h1, h2, h3, h4, h5, h6, h7, cur.q0, cur.q1, cur.q2, cur.q3, sc, ofs);
            } else {
                acc += row_dot(row, 0u, v, cur.q0, cur.q1, cur.q2, cur.q3, sc, ofs);
            }
        }
        if (s + 1u == steps) {
            let sum = group_sum(acc, t);
            acc = vec4<f32>(0.0);
            let mc = slot_col(wg.x + i / steps * nwg.x, lg, min(lane, CPG - 1u));
            if (lane < CPG && live(mc)) { emit(0u, 0u, lane, mc, sum, addends(0u, 0u, mc)); }
        }
    }
}

// The streaming layout: grid (workgroups, 1).
@compute @workgroup_size(256)
fn matvec_int4_stream(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                      @builtin(num_workgroups) nwg: vec3<u32>) {
    matvec_stream(wg, lid, nwg);
}
