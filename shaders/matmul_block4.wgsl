// Register-blocked matmul for CPU adapters (lavapipe / llvmpipe), when k, the
// row strides and offsets are multiples of 4 and w is contiguous along k:
//   y[b, m, n] = scale * sum_k x[b, m, k] * w[b, n, k] (+ bias[n])
// (same strided layout and Params as matmul_bcast.wgsl, with w_ks = 1). llvmpipe
// turns every storage load into per-invocation loads, so the cost is the number of
// loads: here an invocation owns a 4 x 4 output block and per 4 values of k makes
// 8 vec4 loads for 64 multiply-adds (matmul_bcast: 17 scalar loads per 16).

struct Params {
    m: u32, n: u32, k: u32, flags: u32,
    x_off: u32, x_rs: u32, x_bs: u32, w_off: u32,
    w_ns: u32, w_ks: u32, w_bs: u32, y_off: u32,
    y_rs: u32, y_bs: u32, scale: f32, pad0: u32,
}
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> w: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const BIAS: u32 = 1u;

// grid: (ceil(n / 64), ceil(m / 16), batch)
@compute @workgroup_size(64)
fn matmul_block4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = min(p.m, step.n_tokens);
    let c0 = wg.x * 64u + (lid.x % 16u) * 4u;
    let r0 = wg.y * 16u + (lid.x / 16u) * 4u;
    let b = wg.z;
    if (r0 >= m || c0 >= p.n) { return; }
    // Rows / columns past the edge load the last valid one and store nothing.
    let xb0 = (p.x_off + b * p.x_bs + min(r0, m - 1u) * p.x_rs) / 4u;
    let xb1 = (p.x_off + b * p.x_bs + min(r0 + 1u, m - 1u) * p.x_rs) / 4u;
    let xb2 = (p.x_off + b * p.x_bs + min(r0 + 2u, m - 1u) * p.x_rs) / 4u;
    let xb3 = (p.x_off + b * p.x_bs + min(r0 + 3u, m - 1u) * p.x_rs) / 4u;
    let wb0 = (p.w_off + b * p.w_bs + min(c0, p.n - 1u) * p.w_ns) / 4u;
    let wb1 = (p.w_off + b * p.w_bs + min(c0 + 1u, p.n - 1u) * p.w_ns) / 4u;
    let wb2 = (p.w_off + b * p.w_bs + min(c0 + 2u, p.n - 1u) * p.w_ns) / 4u;
    let wb3 = (p.w_off + b * p.w_bs + min(c0 + 3u, p.n - 1u) * p.w_ns) / 4u;
    var a0 = vec4<f32>(0.0);
    var a1 = vec4<f32>(0.0);
    var a2 = vec4<f32>(0.0);
    var a3 = vec4<f32>(0.0);
    for (var kk = 0u; kk < p.k / 4u; kk++) {
        let w0 = w[wb0 + kk];
        let w1 = w[wb1 + kk];
        let w2 = w[wb2 + kk];
        let w3 = w[wb3 + kk];
        let x0 = x[xb0 + kk];
        let x1 = x[xb1 + kk];
        let x2 = x[xb2 + kk];
        let x3 = x[xb3 + kk];
        a0 += vec4<f32>(dot(x0, w0), dot(x0, w1), dot(x0, w2), dot(x0, w3));
        a1 += vec4<f32>(dot(x1, w0), dot(x1, w1), dot(x1, w2), dot(x1, w3));
        a2 += vec4<f32>(dot(x2, w0), dot(x2, w1), dot(x2, w2), dot(x2, w3));
        a3 += vec4<f32>(dot(x3, w0), dot(x3, w1), dot(x3, w2), dot(x3, w3));
    }
    var acc = array<vec4<f32>, 4>(a0, a1, a2, a3);
    for (var c = 0u; c < 4u; c++) {
        let n = c0 + c;
        if (n >= p.n) { break; }
        var bv = 0.0;
        if ((p.flags & BIAS) != 0u) { bv = bias[n]; }
        for (var r = 0u; r < 4u; r++) {
            if (r0 + r < m) { y[p.y_off + b * p.y_bs + (r0 + r) * p.y_rs + n] = acc[r][c] * p.scale + bv; }
        }
    }
}
