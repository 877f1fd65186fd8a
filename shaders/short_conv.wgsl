// LFM2 short convolution over one step's rows (prefill chunk or decode token).
//   bcx row t = [B | C | x], each `dim` wide (the in_proj output)
//   win = [state rows 0..L-1, B*x rows of this step]   (state layout [L-1][dim])
//   out[t, c] = C[t, c] * (sum_k w[c, k] * win[t + k, c] + bias[c])
// The state is only read here; conv_state_update.wgsl shifts it afterwards
// (short_conv_update.wgsl does both in one dispatch when decoding).

struct Params { dim: u32, kernel: u32, flags: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> bcx: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read> state: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;

const BIAS: u32 = 1u;

fn window(j: u32, c: u32) -> f32 {
    let s = p.kernel - 1u;
    if (j < s) { return state[j * p.dim + c]; }
    let base = (j - s) * 3u * p.dim;
    return bcx[base + c] * bcx[base + 2u * p.dim + c];
}

// grid: (ceil(dim / 256), n_tokens)
@compute @workgroup_size(256)
fn short_conv(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let c = wg.x * 256u + lid.x;
    let t = wg.y;
    if (t >= step.n_tokens || c >= p.dim) { return; }
    var acc = 0.0;
    for (var k = 0u; k < p.kernel; k++) {
        acc += w[c * p.kernel + k] * window(t + k, c);
    }
    if ((p.flags & BIAS) != 0u) { acc += bias[c]; }
    out[t * p.dim + c] = bcx[t * 3u * p.dim + p.dim + c] * acc;
}
