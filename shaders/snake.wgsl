// Snake activation (DAC, BigVGAN) over a channel-major [channels, time] tensor, one alpha per channel:
//   y = x + 1 / (alpha + 1e-9) * sin(alpha * x)^2
// The time length is step.n_tokens. `y` must not alias `x`.

struct Params { channels: u32, pad0: u32, pad1: u32, pad2: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> alpha: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

// grid: (ceil(t / 256), channels)
@compute @workgroup_size(256)
fn snake(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = step.n_tokens;
    let i = wg.x * 256u + lid.x;
    let c = wg.y;
    if (i >= t || c >= p.channels) { return; }
    let a = alpha[c];
    let v = x[c * t + i];
    let s = sin(a * v);
    y[c * t + i] = v + s * s / (a + 1e-9);
}
