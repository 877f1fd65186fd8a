// LayerNorm across the channels of a channel-major [channels, time] tensor (VITS
// `LayerNorm`: each time step normalized over its channels, eps from the params),
// with optional fused epilogues:
//   v = (x - mean) / sqrt(var + eps) * gamma + beta     (biased variance, two passes)
//   v = gelu(v)               (GELU, exact erf form; erf_as from lib/erf.wgsl)
//   y = v (+ y)               (ACCUMULATE adds into what y holds)
// The time length is step.n_tokens. `y` must not alias `x`.

struct Params { channels: u32, flags: u32, eps: f32, pad0: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> gamma: array<f32>;
@group(0) @binding(4) var<storage, read> beta: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const GELU: u32 = 1u;
const ACCUMULATE: u32 = 2u;

// grid: (ceil(t / 64), 1); one invocation per time step, so neighbouring
// invocations read neighbouring addresses of every channel row.
@compute @workgroup_size(64)
fn layernorm_channels(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = step.n_tokens;
    let j = gid.x;
    if (j >= t) { return; }
    let c = p.channels;
    var s = 0.0;
    for (var i = 0u; i < c; i++) { s += x[i * t + j]; }
    let mean = s / f32(c);
    var s2 = 0.0;
    for (var i = 0u; i < c; i++) {
        let d = x[i * t + j] - mean;
        s2 += d * d;
    }
    let inv = 1.0 / sqrt(s2 / f32(c) + p.eps);
    for (var i = 0u; i < c; i++) {
        var v = (x[i * t + j] - mean) * inv * gamma[i] + beta[i];
        if ((p.flags & GELU) != 0u) { v = 0.5 * v * (1.0 + erf_as(v * 0.70710678118654752)); }
        if ((p.flags & ACCUMULATE) != 0u) { v += y[i * t + j]; }
        y[i * t + j] = v;
    }
}
