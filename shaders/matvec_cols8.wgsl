// y[r, n] = sum_k x[r, k] * w[n, k] (+ bias[n]) for up to 4 rows, on CPU
// adapters (lavapipe). There every storage load costs a loop over the SIMD
// lanes, so the cross-lane reduction of matvec_f32.wgsl (32 lanes per column,
// 2 scalar loads per multiply-add, barriers) is the slow way: here an
// invocation owns 8 whole columns and reads w once as vec4s along k.
// Needs k % 4 == 0.

struct Params { n: u32, k: u32, group: u32, flags: u32 }

@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> w: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const C: u32 = 8u;

// grid: (ceil(n / 512), 1)
@compute @workgroup_size(64)
fn matvec_cols8(@builtin(global_invocation_id) gid: vec3<u32>) {
    let rows = min(step.n_tokens, 4u);
    let c0 = gid.x * C;
    if (c0 >= p.n) { return; }
    let k4 = p.k / 4u;
    var wb: array<u32, C>;
    for (var c = 0u; c < C; c++) { wb[c] = min(c0 + c, p.n - 1u) * k4; }
    var acc: array<array<f32, C>, 4>;
    for (var kk = 0u; kk < k4; kk++) {
        var wv: array<vec4<f32>, C>;
        for (var c = 0u; c < C; c++) { wv[c] = w[wb[c] + kk]; }
        for (var r = 0u; r < rows; r++) {
            let xv = x[r * k4 + kk];
            for (var c = 0u; c < C; c++) { acc[r][c] += dot(xv, wv[c]); }
        }
    }
    for (var c = 0u; c < C; c++) {
        let n = c0 + c;
        if (n >= p.n) { break; }
        var bv = 0.0;
        if ((p.flags & 1u) != 0u) { bv = bias[n]; }
        for (var r = 0u; r < rows; r++) { y[r * p.n + n] = acc[r][c] + bv; }
    }
}
