// Strided, batched matmul for CPU adapters (lavapipe / llvmpipe):
//   y[b, m, n] = scale * sum_k x[b, m, k] * w[b, n, k] (+ bias[n])
//   x[b, m, k] = x[x_off + b * x_bs + m * x_rs + k]
//   w[b, n, k] = w[w_off + b * w_bs + n * w_ns + k * w_ks]
//   y[b, m, n] = y[y_off + b * y_bs + m * y_rs + n]
// llvmpipe runs 8 invocations as one SIMD vector and turns every load whose
// address differs per invocation into 8 scalar loads, so the tiled shared-memory
// matmul (6 such loads per 8 multiply-adds) crawls there. Here an invocation owns
// one output column n and 16 rows: per k it makes one per-invocation load of w
// and 16 loads of x whose address is the same for every invocation (one scalar
// load, broadcast), so 16 multiply-adds per scattered load. On a real GPU the
// tiled kernel is the better one (uncoalesced w reads here); `nn::Recorder`
// picks this one only for CPU adapters. The strides let attention use it
// directly on fused QKV rows (scores Q.K^T, then P.V with w = V^T).

struct Params {
    m: u32, n: u32, k: u32, flags: u32,
    x_off: u32, x_rs: u32, x_bs: u32, w_off: u32,
    w_ns: u32, w_ks: u32, w_bs: u32, y_off: u32,
    y_rs: u32, y_bs: u32, scale: f32, pad0: u32,
}

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const R: u32 = 16u;
const BIAS: u32 = 1u;

// grid: (ceil(n / 64), ceil(m / 16), batch)
@compute @workgroup_size(64)
fn matmul_bcast(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = wg.x * 64u + lid.x;
    let row0 = wg.y * R;
    let b = wg.z;
    let rows = min(R, min(p.m, step.n_tokens) - row0);
    let nn = min(n, p.n - 1u); // out-of-range columns compute a copy of the last one and store nothing
    let wb = p.w_off + b * p.w_bs + nn * p.w_ns;
    let xb = p.x_off + b * p.x_bs + row0 * p.x_rs;
    var acc: array<f32, 16>;
    for (var r = 0u; r < R; r++) { acc[r] = 0.0; }
    if (rows == R) {
        for (var k = 0u; k < p.k; k++) {
            let wv = w[wb + k * p.w_ks];
            for (var r = 0u; r < R; r++) { acc[r] += x[xb + r * p.x_rs + k] * wv; }
        }
    } else {
        for (var k = 0u; k < p.k; k++) {
            let wv = w[wb + k * p.w_ks];
            for (var r = 0u; r < rows; r++) { acc[r] += x[xb + r * p.x_rs + k] * wv; }
        }
    }
    if (n >= p.n) { return; }
    var bv = 0.0;
    if ((p.flags & BIAS) != 0u) { bv = bias[n]; }
    let yb = p.y_off + b * p.y_bs + row0 * p.y_rs + n;
    for (var r = 0u; r < rows; r++) { y[yb + r * p.y_rs] = acc[r] * p.scale + bv; }
}
