// Tiled INT4 matmul for many rows (prefill): Y[M, N] = X[M, K] . W[N, K]^T (+ bias),
// W[n, k] = s * q + m per group (see matvec_int4.wgsl); K % 32 == 0, group % 32 == 0.
// A 256-thread workgroup computes a 64 x 64 tile, 4 x 4 outputs per thread,
// stepping K by 32 through shared memory held as vec4s (X k-major by 4 rows, W
// k-major by 4 columns), so each k step is 2 vec4 loads for 16 FMAs. Any M and
// N: edges are zero-padded on load.

struct Params { n: u32, k: u32, group: u32, flags: u32 }
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> wq: array<u32>;
@group(0) @binding(4) var<storage, read> wsm: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> bias: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 32u;
var<workgroup> xs: array<vec4<f32>, 512>;   // [TK][TM / 4]
var<workgroup> ws: array<vec4<f32>, 512>;   // [TK][TN / 4]

// grid: (ceil(n / 64), ceil(n_tokens / 64))
@compute @workgroup_size(256)
fn matmul_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = step.n_tokens;
    let row0 = wg.y * TM;
    let col0 = wg.x * TN;
    let t = lid.x;
    let tr4 = t / 16u;         // this thread's rows: 4 * tr4 .. + 4 in the tile
    let tc4 = t % 16u;         // its columns: 4 * tc4 .. + 4
    var acc: array<vec4<f32>, 4>;
    for (var i = 0u; i < 4u; i++) { acc[i] = vec4<f32>(0.0); }
    for (var k0 = 0u; k0 < p.k; k0 += TK) {
        // X: 64 rows x 32 k; each thread loads 8 values (coalesced along k).
        for (var i = 0u; i < 8u; i++) {
            let idx = t + i * 256u;
            let r = idx / TK;
            let kk = idx % TK;
            var v = 0.0;
            if (row0 + r < m) { v = x[(row0 + r) * p.k + k0 + kk]; }
            xs[kk * 16u + r / 4u][r % 4u] = v;
        }
        // W: each thread dequantises 8 consecutive k of one column (64 columns x 4 threads).
        // One u32 = 8 nibbles of one column; a 32-wide k step lies inside one group.
        let c = t / 4u;
        let kb = (t % 4u) * 8u;
        var word = 0u;
        var sm = vec2<f32>(0.0);
        if (col0 + c < p.n) {
            let n = col0 + c;
            word = wq[(n * p.k + k0 + kb) / 8u];
            sm = wsm[(n * p.k + k0) / p.group];
        }
        for (var j = 0u; j < 8u; j++) {
            ws[(kb + j) * 16u + c / 4u][c % 4u] = sm.x * f32((word >> (4u * j)) & 15u) + sm.y;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            let a = xs[kk * 16u + tr4];
            let b = ws[kk * 16u + tc4];
            acc[0] += a.x * b;
            acc[1] += a.y * b;
            acc[2] += a.z * b;
            acc[3] += a.w * b;
        }
        workgroupBarrier();
    }
    for (var j = 0u; j < 4u; j++) {
        let col = col0 + tc4 * 4u + j;
        if (col >= p.n) { continue; }
        var bv = 0.0;
        if ((p.flags & 1u) != 0u) { bv = bias[col]; }
        for (var i = 0u; i < 4u; i++) {
            let row = row0 + tr4 * 4u + i;
            if (row < m) { y[row * p.n + col] = acc[i][j] + bv; }
        }
    }
}
