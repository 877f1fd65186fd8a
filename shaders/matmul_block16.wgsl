// Register-blocked matmul for CPU adapters (lavapipe / llvmpipe):
//   y[b, m, n] = scale * sum_k x[b, m, k] * w[b, n, k] (+ bias[n])
// (same strided layout and Params as matmul_bcast.wgsl). llvmpipe runs 8
// invocations as one SIMD vector but turns every storage load into a loop over
// the lanes, so a kernel costs its loads per invocation, not its arithmetic. An
// invocation here owns a 16 x 16 output block: per 4 values of k it makes 32
// vec4 loads for 1024 multiply-adds (4 x 4 blocks: 8 per 64). Measured on
// lavapipe (2 cores): 1500x384 . 1152x384 at 1.8 GMAC/s, 0.3 with 4 x 4 blocks.
// Needs k, the offsets and the strides along k in multiples of 4.
//   matmul_block16:    w contiguous along k (w_ks = 1), vec4 loads along k.
//   matmul_block16_kn: w contiguous along n (w_ns = 1, n % 4 == 0), e.g. V in P.V.

struct Params {
    m: u32, n: u32, k: u32, flags: u32,
    x_off: u32, x_rs: u32, x_bs: u32, w_off: u32,
    w_ns: u32, w_ks: u32, w_bs: u32, y_off: u32,
    y_rs: u32, y_bs: u32, scale: f32, pad0: u32,
}

@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> w: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const BIAS: u32 = 1u;
const B: u32 = 16u;

// x row starts (in vec4s) of the block's rows; rows past the edge repeat the last one.
fn row_starts(r0: u32, m: u32, b: u32) -> array<u32, B> {
    var xb: array<u32, B>;
    for (var i = 0u; i < B; i++) { xb[i] = (p.x_off + b * p.x_bs + min(r0 + i, m - 1u) * p.x_rs) / 4u; }
    return xb;
}

fn store(acc: ptr<function, array<array<f32, B>, B>>, r0: u32, c0: u32, m: u32, b: u32) {
    for (var c = 0u; c < B; c++) {
        let n = c0 + c;
        if (n >= p.n) { break; }
        var bv = 0.0;
        if ((p.flags & BIAS) != 0u) { bv = bias[n]; }
        for (var r = 0u; r < B; r++) {
            if (r0 + r < m) { y[p.y_off + b * p.y_bs + (r0 + r) * p.y_rs + n] = (*acc)[r][c] * p.scale + bv; }
        }
    }
}

// grid: (ceil(n / 64), ceil(m / 64), batch); 4 x 4 invocations of 16 x 16 outputs.
@compute @workgroup_size(16)
fn matmul_block16(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = min(p.m, step.n_tokens);
    let c0 = wg.x * 64u + (lid.x % 4u) * B;
    let r0 = wg.y * 64u + (lid.x / 4u) * B;
    let b = wg.z;
    if (r0 >= m || c0 >= p.n) { return; }
    let xb = row_starts(r0, m, b);
    var wb: array<u32, B>;
    for (var c = 0u; c < B; c++) { wb[c] = (p.w_off + b * p.w_bs + min(c0 + c, p.n - 1u) * p.w_ns) / 4u; }
    var acc: array<array<f32, B>, B>;
    for (var kk = 0u; kk < p.k / 4u; kk++) {
        var wv: array<vec4<f32>, B>;
        for (var c = 0u; c < B; c++) { wv[c] = w[wb[c] + kk]; }
        for (var r = 0u; r < B; r++) {
            let xv = x[xb[r] + kk];
            for (var c = 0u; c < B; c++) { acc[r][c] += dot(xv, wv[c]); }
        }
    }
    store(&acc, r0, c0, m, b);
}

@compute @workgroup_size(16)
fn matmul_block16_kn(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = min(p.m, step.n_tokens);
    let c0 = wg.x * 64u + (lid.x % 4u) * B;
    let r0 = wg.y * 64u + (lid.x / 4u) * B;
    let b = wg.z;
    if (r0 >= m || c0 >= p.n) { return; }
    let xb = row_starts(r0, m, b);
    // Four vec4s of 4 columns each; past the edge they repeat the last one.
    var wb: array<u32, 4>;
    for (var q = 0u; q < 4u; q++) { wb[q] = (p.w_off + b * p.w_bs + min(c0 + 4u * q, p.n - 4u)) / 4u; }
    let ks = p.w_ks / 4u;
    var acc: array<array<f32, B>, B>;
    for (var kk = 0u; kk < p.k / 4u; kk++) {
        // wv[j][q]: w at k = 4 kk + j, columns c0 + 4 q .. + 4.
        var wv: array<array<vec4<f32>, 4>, 4>;
        for (var j = 0u; j < 4u; j++) {
            for (var q = 0u; q < 4u; q++) { wv[j][q] = w[wb[q] + (4u * kk + j) * ks]; }
        }
        for (var r = 0u; r < B; r++) {
            let xv = x[xb[r] + kk];
            for (var q = 0u; q < 4u; q++) {
                let s = xv.x * wv[0][q] + xv.y * wv[1][q] + xv.z * wv[2][q] + xv.w * wv[3][q];
                acc[r][4u * q] += s.x;
                acc[r][4u * q + 1u] += s.y;
                acc[r][4u * q + 2u] += s.z;
                acc[r][4u * q + 3u] += s.w;
            }
        }
    }
    store(&acc, r0, c0, m, b);
}
