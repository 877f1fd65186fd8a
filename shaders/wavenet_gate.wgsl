// WaveNet's gated activation (VITS `fused_add_tanh_sigmoid_multiply`, no conditioning)
// over a channel-major [2 * channels, time] tensor: the first half of the channels
// through tanh, the second through a sigmoid, multiplied:
//   y[c, i] = tanh(a[c, i]) * sigmoid(a[channels + c, i])      y: [channels, time]
// The time length is step.n_tokens. `y` must not alias `a`.

struct Params { channels: u32, pad0: u32, pad1: u32, pad2: u32 }

@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

// grid: (ceil(t / 256), channels)
@compute @workgroup_size(256)
fn wavenet_gate(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = step.n_tokens;
    let i = wg.x * 256u + lid.x;
    let c = wg.y;
    if (i >= t || c >= p.channels) { return; }
    let g = a[(p.channels + c) * t + i];
    y[c * t + i] = tanh(a[c * t + i]) / (1.0 + exp(-g));
}
