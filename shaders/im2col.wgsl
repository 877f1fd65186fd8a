// im2col for a 1-D convolution over time-major input x[t_in, c_in]:
// cols[t, c * kernel + k] = x[t * stride + k - pad, c] (0 outside the input),
// so conv1d becomes one matmul with the torch weight [c_out, c_in, kernel]
// viewed as [c_out, c_in * kernel].

struct Params { c_in: u32, t_in: u32, kernel: u32, stride: u32, pad: u32, t_out: u32, pad0: u32, pad1: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> cols: array<f32>;

// grid: (ceil(c_in * kernel / 256), t_out)   (step.n_tokens = t_out)
@compute @workgroup_size(256)
fn im2col(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let width = p.c_in * p.kernel;
    let col = wg.x * 256u + lid.x;
    let t = wg.y;
    if (t >= step.n_tokens || t >= p.t_out || col >= width) { return; }
    let c = col / p.kernel;
    let k = col % p.kernel;
    let src = i32(t * p.stride + k) - i32(p.pad);
    var v = 0.0;
    if (src >= 0 && u32(src) < p.t_in) { v = x[u32(src) * p.c_in + c]; }
    cols[t * width + col] = v;
}
