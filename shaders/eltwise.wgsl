// Element-wise kernels over [n_tokens, width] rows.
//   swiglu: out = silu(a) * b      (a = gate projection, b = up projection)
//   add:    out = a + b            (residual)

struct Params { width: u32, pad0: u32, pad1: u32, pad2: u32 }

@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

// grid: (ceil(width / 256), n_tokens)
@compute @workgroup_size(256)
fn swiglu(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let col = wg.x * 256u + lid.x;
    if (wg.y >= step.n_tokens || col >= p.width) { return; }
    let i = wg.y * p.width + col;
    let g = a[i];
    out[i] = (g / (1.0 + exp(-g))) * b[i];
}

// grid: (ceil(width / 256), n_tokens)
@compute @workgroup_size(256)
fn add(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let col = wg.x * 256u + lid.x;
    if (wg.y >= step.n_tokens || col >= p.width) { return; }
    let i = wg.y * p.width + col;
    out[i] = a[i] + b[i];
}

// Exact (erf) GELU; erf_as comes from lib/erf.wgsl.
// out = gelu(a); b is unused (bound for a uniform layout across this file).
// grid: (ceil(width / 256), n_tokens)
@compute @workgroup_size(256)
fn gelu(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let col = wg.x * 256u + lid.x;
    if (wg.y >= step.n_tokens || col >= p.width) { return; }
    let i = wg.y * p.width + col;
    let v = a[i];
    out[i] = 0.5 * v * (1.0 + erf_as(v * 0.70710678118654752));
}
