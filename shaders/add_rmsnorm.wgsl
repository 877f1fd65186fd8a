// The residual add fused with the following RMSNorm (one row of `dim` per token):
//   sum = a + b;   out = sum * rsqrt(mean(sum^2) + eps) * w   (or * (1 + w))
// Both are written: `sum` is the residual stream the next add reads. Same
// reduction order as rmsnorm.wgsl, so fused and unfused agree bit for bit.

struct Params { dim: u32, eps: f32, add_unit: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(4) var<storage, read> w: array<f32>;
@group(0) @binding(5) var<storage, read_write> sum: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

const WG: u32 = 256u;
var<workgroup> partial: array<f32, WG>;

// grid: (n_tokens, 1, 1)
@compute @workgroup_size(256)
fn add_rmsnorm(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.x;
    if (row >= step.n_tokens) { return; }
    let base = row * p.dim;
    var ss = 0.0;
    for (var i = lid.x; i < p.dim; i += WG) {
        let v = a[base + i] + b[base + i];
        sum[base + i] = v;
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
        y[base + i] = ((a[base + i] + b[base + i]) * inv) * g;
    }
}
