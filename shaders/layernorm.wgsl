// LayerNorm with weight and bias over [n_tokens, dim] rows (torch.nn.LayerNorm):
// y = (x - mean) / sqrt(var + eps) * w + b, var the biased variance. Two passes
// over the row (mean, then centred squares) as torch does, not E[x^2] - E[x]^2.
// reduce_sum: shaders/lib/wg_reduce_*.wgsl (subgroups where 32 wide).

struct Params { dim: u32, eps: f32, pad0: u32, pad1: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> b: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const WG: u32 = 256u;

// grid: (n_tokens, 1)
@compute @workgroup_size(256)
fn layernorm(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.x;
    if (row >= step.n_tokens) { return; }
    let t = lid.x;
    let base = row * p.dim;
    var s = 0.0;
    for (var i = t; i < p.dim; i += WG) { s += x[base + i]; }
    let mean = reduce_sum(t, s) / f32(p.dim);
    var s2 = 0.0;
    for (var i = t; i < p.dim; i += WG) {
        let d = x[base + i] - mean;
        s2 += d * d;
    }
    let inv = inverseSqrt(reduce_sum(t, s2) / f32(p.dim) + p.eps);
    for (var i = t; i < p.dim; i += WG) {
        y[base + i] = (x[base + i] - mean) * inv * w[i] + b[i];
    }
}
