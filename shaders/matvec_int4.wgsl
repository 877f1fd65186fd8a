// INT4 matvec for few rows (decode): y[r, n] = sum_k x[r, k] * W[n, k] (+ bias[n]),
// W[n, k] = s * q + m with (s, m) per group of `group` consecutive k.
// wq holds 8 nibbles per u32 (element k at bits 4*(k%8)), column n's words contiguous.
// Per word: s * dot(q, x) + m * sum(x), so dequantisation costs two FMAs per 8 weights.

struct Params { n: u32, k: u32, group: u32, flags: u32 }
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> wq: array<u32>;
@group(0) @binding(4) var<storage, read> wsm: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read> bias: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

const LANES: u32 = 32u;
const COLS: u32 = 8u;
var<workgroup> partial: array<f32, 256>;

fn nibbles(word: u32, shift: u32) -> vec4<f32> {
    return vec4<f32>(
        f32((word >> shift) & 15u),
        f32((word >> (shift + 4u)) & 15u),
        f32((word >> (shift + 8u)) & 15u),
        f32((word >> (shift + 12u)) & 15u));
}

// grid: (ceil(n / 8), rows)   rows = n_tokens, or 1 with LAST_ROW
@compute @workgroup_size(256)
fn matvec_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let lane = lid.x % LANES;
    let c = lid.x / LANES;
    let n = wg.x * COLS + c;
    var in_row = wg.y;
    if ((p.flags & 2u) != 0u) { in_row = step.n_tokens - 1u; }
    let words = p.k / 8u;
    let groups = p.k / p.group;
    let words_per_group = p.group / 8u;
    var acc = 0.0;
    if (n < p.n && in_row < step.n_tokens) {
        let xb = in_row * (p.k / 4u);
        for (var wi = lane; wi < words; wi += LANES) {
            let word = wq[n * words + wi];
            let x0 = x[xb + 2u * wi];
            let x1 = x[xb + 2u * wi + 1u];
            let sm = wsm[n * groups + wi / words_per_group];
            let dq = dot(nibbles(word, 0u), x0) + dot(nibbles(word, 16u), x1);
            let sx = dot(x0, vec4<f32>(1.0)) + dot(x1, vec4<f32>(1.0));
            acc += sm.x * dq + sm.y * sx;
        }
    }
    partial[lid.x] = acc;
    workgroupBarrier();
    for (var s = LANES / 2u; s > 0u; s >>= 1u) {
        if (lane < s) { partial[lid.x] += partial[lid.x + s]; }
        workgroupBarrier();
    }
    if (lane == 0u && n < p.n && in_row < step.n_tokens) {
        var v = partial[lid.x];
        if ((p.flags & 1u) != 0u) { v += bias[n]; }
        y[wg.y * p.n + n] = v;
    }
}
