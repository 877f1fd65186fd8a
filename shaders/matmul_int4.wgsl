// Tiled INT4 matmul for many rows (prefill): Y[M, N] = X[M, K] . W[N, K]^T (+ bias),
// W[n, k] = s * q + m per group (see matvec_int4.wgsl); K % 32 == 0, group % 32 == 0.
// A 256-thread workgroup computes a 64 x 64 tile, 4 x 4 outputs per thread,
// stepping K by 32 through shared memory held as vec4s (X k-major by 4 rows, W
// k-major by 4 columns), so each k step is 2 vec4 loads for 16 FMAs. The next
// k step's X and W are loaded into registers while the current one computes
// (one workgroup per SM at these grid sizes: nothing else hides the latency),
// and X is staged with consecutive threads on consecutive rows, so its shared
// stores hit 32 different banks. Any M and N: edges are zero-padded on load.

struct Params { n: u32, k: u32, group: u32, flags: u32 }

@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> wq: array<u32>;
@group(0) @binding(4) var<storage, read> wsm: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> bias: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 32u;
var<workgroup> xs: array<vec4<f32>, 512>;   // [TK][TM / 4]
var<workgroup> ws: array<vec4<f32>, 512>;   // [TK][TN / 4]

// One thread's share of a k step: X row (t % 64), k 4 (t / 64) .. + 4 and 16 more;
// W column t / 4, k 8 (t % 4) .. + 8 (one u32 of nibbles, inside one group).
struct Fetch { xa: vec4<f32>, xb: vec4<f32>, word: u32, sm: vec2<f32> }

fn fetch(k0: u32, xrow: u32, xq: u32, wcol: u32, kb: u32, m: u32) -> Fetch {
    var f: Fetch;
    if (xrow < m) {
        let base = (xrow * p.k + k0) / 4u + xq;
        f.xa = x[base];
        f.xb = x[base + 4u];
    }
    if (wcol < p.n) {
        f.word = wq[(wcol * p.k + k0 + kb) / 8u];
        f.sm = wsm[(wcol * p.k + k0) / p.group];
    }
    return f;
}

@compute @workgroup_size(256)
fn matmul_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = step.n_tokens;
    let row0 = wg.y * TM;
    let col0 = wg.x * TN;
    let t = lid.x;
    let tr4 = t / 16u;         // this thread's rows: 4 * tr4 .. + 4 in the tile
    let tc4 = t % 16u;         // its columns: 4 * tc4 .. + 4
    let xr = t % 64u;
    let xq = t / 64u;
    let c = t / 4u;
    let kb = (t % 4u) * 8u;
    var acc: array<vec4<f32>, 4>;
    for (var i = 0u; i < 4u; i++) { acc[i] = vec4<f32>(0.0); }
    var f = fetch(0u, row0 + xr, xq, col0 + c, kb, m);
    for (var k0 = 0u; k0 < p.k; k0 += TK) {
        for (var j = 0u; j < 4u; j++) {
            xs[(4u * xq + j) * 16u + xr / 4u][xr % 4u] = f.xa[j];
            xs[(16u + 4u * xq + j) * 16u + xr / 4u][xr % 4u] = f.xb[j];
        }
        for (var j = 0u; j < 8u; j++) {
            ws[(kb + j) * 16u + c / 4u][c % 4u] = f.sm.x * f32((f.word >> (4u * j)) & 15u) + f.sm.y;
        }
        workgroupBarrier();
        if (k0 + TK < p.k) { f = fetch(k0 + TK, row0 + xr, xq, col0 + c, kb, m); }
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
