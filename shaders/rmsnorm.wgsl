// RMSNorm over rows of `dim`: y = x * rsqrt(mean(x^2) + eps) * w   (or * (1 + w)
// when add_unit != 0, the Qwen3.5/Gemma convention). A token holds
// `rows_per_token` rows: 1 for the hidden state, n_heads for per-head q/k norms.

struct Params { dim: u32, rows_per_token: u32, eps: f32, add_unit: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

const WG: u32 = 256u;
var<workgroup> partial: array<f32, WG>;

// grid: (n_tokens * rows_per_token, 1, 1)
@compute @workgroup_size(256)
fn rmsnorm(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.x;
    if (row >= step.n_tokens * p.rows_per_token) { return; }
    let base = row * p.dim;
    var ss = 0.0;
    for (var i = lid.x; i < p.dim; i += WG) {
        let v = x[base + i];
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
        var g = w[i];
        if (p.add_unit != 0u) { g = 1.0 + g; }
        y[base + i] = (x[base + i] * inv) * g;
    }
}
