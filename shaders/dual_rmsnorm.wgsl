// Two per-head RMSNorms in one dispatch (Qwen3.5's q_norm and k_norm): the
// first q_rows rows of a token normalize q with qw, the next k_rows rows k
// with kw. y = x * rsqrt(mean(x^2) + eps) * w   (or * (1 + w) when add_unit != 0).

struct Params { dim: u32, q_rows: u32, k_rows: u32, add_unit: u32, eps: f32, pad0: u32, pad1: u32, pad2: u32 }

@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> qw: array<f32>;
@group(0) @binding(4) var<storage, read> k: array<f32>;
@group(0) @binding(5) var<storage, read> kw: array<f32>;
@group(0) @binding(6) var<storage, read_write> q_out: array<f32>;
@group(0) @binding(7) var<storage, read_write> k_out: array<f32>;

const WG: u32 = 64u;
var<workgroup> partial: array<f32, WG>;

fn load(is_q: bool, i: u32) -> f32 {
    if (is_q) { return q[i]; }
    return k[i];
}

// grid: (n_tokens * (q_rows + k_rows), 1, 1)
@compute @workgroup_size(64)
fn dual_rmsnorm(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let per_token = p.q_rows + p.k_rows;
    let t = wg.x / per_token;
    if (t >= step.n_tokens) { return; }
    let r = wg.x % per_token;
    let is_q = r < p.q_rows;
    var base = (t * p.q_rows + r) * p.dim;
    if (!is_q) { base = (t * p.k_rows + r - p.q_rows) * p.dim; }
    var ss = 0.0;
    for (var i = lid.x; i < p.dim; i += WG) {
        let v = load(is_q, base + i);
        ss += v * v;
    }
    partial[lid.x] = ss;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid.x < s) { partial[lid.x] += partial[lid.x + s]; }
        workgroupBarrier();
    }
    let inv = inverseSqrt(partial[0] / f32(p.dim) + p.eps);
    for (var i = lid.x; i < p.dim; i += WG) {
        let x = load(is_q, base + i) * inv;
        if (is_q) {
            var g = qw[i];
            if (p.add_unit != 0u) { g = 1.0 + g; }
            q_out[base + i] = x * g;
        } else {
            var g = kw[i];
            if (p.add_unit != 0u) { g = 1.0 + g; }
            k_out[base + i] = x * g;
        }
    }
}
