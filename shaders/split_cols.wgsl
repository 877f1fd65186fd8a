// Splits each row of x [n_tokens, w0 + w1 + w2 + w3] into y0..y3 (rows of w0..w3),
// the unfused form of a projection concatenated at load (Qwen3.5's in_proj
// qkv | a | b | z, computed as one matmul); a zero width means no output.

struct Params { w0: u32, w1: u32, w2: u32, w3: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> y0: array<f32>;
@group(0) @binding(4) var<storage, read_write> y1: array<f32>;
@group(0) @binding(5) var<storage, read_write> y2: array<f32>;
@group(0) @binding(6) var<storage, read_write> y3: array<f32>;

// grid: (ceil((w0 + w1 + w2 + w3) / 256), n_tokens)
@compute @workgroup_size(256)
fn split_cols(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let width = p.w0 + p.w1 + p.w2 + p.w3;
    let c = wg.x * 256u + lid.x;
    let row = wg.y;
    if (row >= step.n_tokens || c >= width) { return; }
    let v = x[row * width + c];
    if (c < p.w0) {
        y0[row * p.w0 + c] = v;
    } else if (c < p.w0 + p.w1) {
        y1[row * p.w1 + c - p.w0] = v;
    } else if (c < p.w0 + p.w1 + p.w2) {
        y2[row * p.w2 + c - p.w0 - p.w1] = v;
    } else {
        y3[row * p.w3 + c - p.w0 - p.w1 - p.w2] = v;
    }
}
