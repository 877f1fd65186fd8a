// Gated RMSNorm (Qwen3.5 DeltaNet output norm): y = x * rsqrt(mean(x^2) + eps) * w * silu(z),
// over rows of `dim` (one row per value head). add_unit is unused (the weight is plain).

struct Params { dim: u32, rows_per_token: u32, eps: f32, add_unit: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> z: array<f32>;
@group(0) @binding(4) var<storage, read> w: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const WG: u32 = 64u;
var<workgroup> partial: array<f32, WG>;

// grid: (n_tokens * rows_per_token, 1, 1)
@compute @workgroup_size(64)
fn rmsnorm_gated(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
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
        let g = z[base + i];
        y[base + i] = (x[base + i] * inv) * w[i] * (g / (1.0 + exp(-g)));
    }
}
