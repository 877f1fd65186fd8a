// INT4 matvec for few rows (decode): y[r, n] = sum_k x[r, k] * W[n, k] (+ bias[n]),
// W[n, k] = s * q + m with (s, m) per group of `group` consecutive k.
// wq holds 8 nibbles per u32 (element k at bits 4*(k%8)), column n's words contiguous.
// Each of 32 lanes per column reads a vec4<u32> (32 weights) at a time and
// computes s * dot(q, x) + m * sum(x) per 8 weights: the same arithmetic, in
// the same order, as matvec_fused_int4.wgsl, so fusion changes no bits.

struct Params { n: u32, k: u32, group: u32, flags: u32 }
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> wq: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> wsm: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> bias: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

const LANES: u32 = 32u;
const COLS: u32 = 8u;
var<workgroup> partial: array<f32, 256>;

fn nib4(word: u32, shift: u32) -> vec4<f32> {
    return vec4<f32>(f32((word >> shift) & 15u), f32((word >> (shift + 4u)) & 15u),
                     f32((word >> (shift + 8u)) & 15u), f32((word >> (shift + 12u)) & 15u));
}

fn dot32(q: vec4<u32>, sm: vec2<f32>, xb: u32, v: u32) -> f32 {
    var dq = 0.0;
    var sx = 0.0;
    for (var j = 0u; j < 4u; j++) {
        let xa = x[xb + 8u * v + 2u * j];
        let xc = x[xb + 8u * v + 2u * j + 1u];
        dq += dot(nib4(q[j], 0u), xa) + dot(nib4(q[j], 16u), xc);
        sx += dot(xa + xc, vec4<f32>(1.0));
    }
    return sm.x * dq + sm.y * sx;
}

// grid: (ceil(n / 8), rows)   rows = n_tokens, or 1 with LAST_ROW
@compute @workgroup_size(256)
fn matvec_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let lane = lid.x % LANES;
    let c = wg.x * COLS + lid.x / LANES;
    var in_row = wg.y;
    if ((p.flags & 2u) != 0u) { in_row = step.n_tokens - 1u; }
    let vecs = p.k / 32u;
    let groups = p.k / p.group;
    let vec_per_group = p.group / 32u;
    var acc = 0.0;
    if (c < p.n && in_row < step.n_tokens) {
        let xb = in_row * (p.k / 4u);
        for (var v = lane; v < vecs; v += LANES) {
            acc += dot32(wq[c * vecs + v], wsm[c * groups + v / vec_per_group], xb, v);
        }
    }
    partial[lid.x] = acc;
    workgroupBarrier();
    for (var s = LANES / 2u; s > 0u; s >>= 1u) {
        if (lane < s) { partial[lid.x] += partial[lid.x + s]; }
        workgroupBarrier();
    }
    if (lane == 0u && c < p.n && in_row < step.n_tokens) {
        var v = partial[lid.x];
        if ((p.flags & 1u) != 0u) { v += bias[c]; }
        y[wg.y * p.n + c] = v;
    }
}
