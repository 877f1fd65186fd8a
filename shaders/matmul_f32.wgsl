// Tiled matmul for many rows (prefill): Y[M, N] = X[M, K] . W[N, K]^T (+ bias).
// A 256-thread workgroup computes a 32 x 64 tile, 2 x 4 outputs per thread,
// stepping K by 32 through shared memory (stored k-major so the inner loop
// reads 4 adjacent columns). Any M, N, K: edges are zero-padded on load.

struct Params { n: u32, k: u32, group: u32, flags: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const TM: u32 = 32u;
const TN: u32 = 64u;
const TK: u32 = 32u;
var<workgroup> xs: array<f32, 1024>;        // [TK][TM]
var<workgroup> ws: array<f32, 2048>;        // [TK][TN]

// grid: (ceil(n / 64), ceil(n_tokens / 32))
@compute @workgroup_size(256)
fn matmul_f32(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = step.n_tokens;
    let row0 = wg.y * TM;
    let col0 = wg.x * TN;
    let t = lid.x;
    let tr = (t / 16u) * 2u;   // first of this thread's 2 rows in the tile
    let tc = (t % 16u) * 4u;   // first of its 4 columns
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    for (var k0 = 0u; k0 < p.k; k0 += TK) {
        for (var i = 0u; i < 4u; i++) {
            let idx = t + i * 256u;
            let r = idx / TK;
            let kk = idx % TK;
            var v = 0.0;
            if (row0 + r < m && k0 + kk < p.k) { v = x[(row0 + r) * p.k + k0 + kk]; }
            xs[kk * TM + r] = v;
        }
        // Each thread loads 8 consecutive k of one column: 64 columns x 4 threads.
        let c = t / 4u;
        let kb = (t % 4u) * 8u;
        for (var j = 0u; j < 8u; j++) {
            var v = 0.0;
            if (col0 + c < p.n && k0 + kb + j < p.k) { v = w[(col0 + c) * p.k + k0 + kb + j]; }
            ws[(kb + j) * TN + c] = v;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            let wb = kk * TN + tc;
            let b = vec4<f32>(ws[wb], ws[wb + 1u], ws[wb + 2u], ws[wb + 3u]);
            acc0 += xs[kk * TM + tr] * b;
            acc1 += xs[kk * TM + tr + 1u] * b;
        }
        workgroupBarrier();
    }
    for (var j = 0u; j < 4u; j++) {
        let col = col0 + tc + j;
        if (col >= p.n) { continue; }
        var bv = 0.0;
        if ((p.flags & 1u) != 0u) { bv = bias[col]; }
        if (row0 + tr < m) { y[(row0 + tr) * p.n + col] = acc0[j] + bv; }
        if (row0 + tr + 1u < m) { y[(row0 + tr + 1u) * p.n + col] = acc1[j] + bv; }
    }
}
