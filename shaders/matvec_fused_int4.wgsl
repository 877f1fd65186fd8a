// Fused decode matvec over up to three INT4 matrices that share one input x:
//   prologue  (flags & NORM):   x' = (x * rsqrt(mean(x^2) + eps)) * g  (g or 1 + g with
//                               ADD_UNIT); each workgroup recomputes sum(x^2) over the
//                               x it reads anyway, in rmsnorm.wgsl's exact order, so the
//                               fused result is bit-identical to norm-then-matvec
//   columns   c in [0, n0 + n1 + n2): column c of the concatenation W0 | W1 | W2,
//                               written to y0 / y1 / y2 at c - offset (+ bias)
//   epilogues (flags & RESID):  y0 = resid + W0 x'           (residual add)
//             (flags & SWIGLU): y0 = silu(W0 x') * (W1 x')   (gate/up, n0 == n1)
// Each column's words are read as vec4<u32> (32 weights) by one of 32 lanes.

struct Params {
    n0: u32, n1: u32, n2: u32, k: u32,
    group: u32, flags: u32, eps: f32, pad0: u32,
}
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> norm_w: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> resid: array<f32>;
@group(0) @binding(5) var<storage, read> w0q: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> w0sm: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read> w1q: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> w1sm: array<vec2<f32>>;
@group(0) @binding(9) var<storage, read> w2q: array<vec4<u32>>;
@group(0) @binding(10) var<storage, read> w2sm: array<vec2<f32>>;
@group(0) @binding(11) var<storage, read> b0: array<f32>;
@group(0) @binding(12) var<storage, read> b1: array<f32>;
@group(0) @binding(13) var<storage, read> b2: array<f32>;
@group(0) @binding(14) var<storage, read_write> y0: array<f32>;
@group(0) @binding(15) var<storage, read_write> y1: array<f32>;
@group(0) @binding(16) var<storage, read_write> y2: array<f32>;

// Flag bits, compiled in as a pipeline constant: bits 0-6 as below, bits 8-9
// the number of matrices.
override FLAGS: u32 = 0u;
const NORM: u32 = 1u;
const ADD_UNIT: u32 = 2u;
const RESID: u32 = 4u;
const SWIGLU: u32 = 8u;
const BIAS0: u32 = 16u;
const BIAS1: u32 = 32u;
const BIAS2: u32 = 64u;

const LANES: u32 = 32u;
const COLS: u32 = 8u;
var<workgroup> partial: array<f32, 256>;
var<workgroup> partial2: array<f32, 256>;

fn nib4(word: u32, shift: u32) -> vec4<f32> {
    return vec4<f32>(f32((word >> shift) & 15u), f32((word >> (shift + 4u)) & 15u),
                     f32((word >> (shift + 8u)) & 15u), f32((word >> (shift + 12u)) & 15u));
}

var<workgroup> inv_rms: f32;

// x' for vec4 index i.
fn xin(i: u32) -> vec4<f32> {
    if ((FLAGS & NORM) != 0u) {
        var g = norm_w[i];
        if ((FLAGS & ADD_UNIT) != 0u) { g = vec4<f32>(1.0) + g; }
        return (x[i] * inv_rms) * g;
    }
    return x[i];
}

// 32 weights (one vec4<u32>) of a column against x'[32 * v .. 32 * v + 32].
fn dot32(q: vec4<u32>, sm: vec2<f32>, v: u32) -> f32 {
    var dq = 0.0;
    var sx = 0.0;
    for (var j = 0u; j < 4u; j++) {
        let xa = xin(8u * v + 2u * j);
        let xb = xin(8u * v + 2u * j + 1u);
        dq += dot(nib4(q[j], 0u), xa) + dot(nib4(q[j], 16u), xb);
        sx += dot(xa + xb, vec4<f32>(1.0));
    }
    return sm.x * dq + sm.y * sx;
}

fn col_dot(m: u32, c: u32, lane: u32) -> f32 {
    let vecs = p.k / 32u;
    let groups = p.k / p.group;
    let vec_per_group = p.group / 32u;
    var acc = 0.0;
    for (var v = lane; v < vecs; v += LANES) {
        let gi = c * groups + v / vec_per_group;
        if (m == 0u) {
            acc += dot32(w0q[c * vecs + v], w0sm[gi], v);
        } else if (m == 1u) {
            acc += dot32(w1q[c * vecs + v], w1sm[gi], v);
        } else {
            acc += dot32(w2q[c * vecs + v], w2sm[gi], v);
        }
    }
    return acc;
}

// grid: (ceil((n0 + n1 + n2) / 8), 1)   (SWIGLU: ceil(n0 / 8))
@compute @workgroup_size(256)
fn matvec_fused_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if (step.n_tokens == 0u) { return; } // decode only: one row
    let t = lid.x;
    if ((FLAGS & NORM) != 0u) {
        var ss = 0.0;
        for (var i = t; i < p.k; i += 256u) {
            let v = x[i / 4u][i % 4u];
            ss += v * v;
        }
        partial[t] = ss;
        workgroupBarrier();
        for (var s = 128u; s > 0u; s >>= 1u) {
            if (t < s) { partial[t] += partial[t + s]; }
            workgroupBarrier();
        }
        if (t == 0u) { inv_rms = inverseSqrt(partial[0] / f32(p.k) + p.eps); }
        workgroupBarrier();
    }
    let lane = t % LANES;
    let col = wg.x * COLS + t / LANES;
    let swiglu = (FLAGS & SWIGLU) != 0u;
    var total = p.n0 + p.n1 + p.n2;
    if (swiglu) { total = p.n0; }
    var m = 0u;
    var c = col;
    let n_mats = (FLAGS >> 8u) & 3u;
    if (!swiglu && n_mats > 1u && c >= p.n0) {
        c -= p.n0;
        m = 1u;
        if (n_mats > 2u && c >= p.n1) { c -= p.n1; m = 2u; }
    }
    var a = 0.0;
    var b = 0.0;
    if (col < total) {
        a = col_dot(m, c, lane);
        if (swiglu) { b = col_dot(1u, c, lane); }
    }
    partial[t] = a;
    partial2[t] = b;
    workgroupBarrier();
    for (var s = LANES / 2u; s > 0u; s >>= 1u) {
        if (lane < s) {
            partial[t] += partial[t + s];
            partial2[t] += partial2[t + s];
        }
        workgroupBarrier();
    }
    if (lane != 0u || col >= total) { return; }
    let d = partial[t];
    if (swiglu) {
        var g = d;
        var u = partial2[t];
        if ((FLAGS & BIAS0) != 0u) { g += b0[c]; }
        if ((FLAGS & BIAS1) != 0u) { u += b1[c]; }
        y0[c] = (g / (1.0 + exp(-g))) * u;
    } else if (m == 0u) {
        var v = d;
        if ((FLAGS & BIAS0) != 0u) { v += b0[c]; }
        if ((FLAGS & RESID) != 0u) { v += resid[c]; }
        y0[c] = v;
    } else if (m == 1u) {
        var v = d;
        if ((FLAGS & BIAS1) != 0u) { v += b1[c]; }
        y1[c] = v;
    } else {
        var v = d;
        if ((FLAGS & BIAS2) != 0u) { v += b2[c]; }
        y2[c] = v;
    }
}
