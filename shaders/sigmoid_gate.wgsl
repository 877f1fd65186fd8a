// Output gate of Qwen3.5's full-attention layers: out = a * sigmoid(b), over [n_tokens, width].

struct Params { width: u32, pad0: u32, pad1: u32, pad2: u32 }

@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

// grid: (ceil(width / 256), n_tokens)
@compute @workgroup_size(256)
fn sigmoid_gate(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let col = wg.x * 256u + lid.x;
    if (wg.y >= step.n_tokens || col >= p.width) { return; }
    let i = wg.y * p.width + col;
    out[i] = a[i] / (1.0 + exp(-b[i]));
}
