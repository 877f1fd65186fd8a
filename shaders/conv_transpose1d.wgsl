// Transposed 1-D convolution over channel-major [channels, time] tensors (batch 1), groups 1:
//   y[co, i*stride + k - padding] += w[ci, co, k] * pre(x[ci, i]),  plus bias
// with pre = leaky_relu(., slope) when PRE_LRELU (HiFi-GAN upsampling). Gathered per output:
// output o reads taps k = (o + padding) mod stride, + stride, ... so no atomics are needed.
// The input length is step.n_tokens; t_out = (t_in - 1) * stride + kernel - 2 * padding.
// Weight layout [c_in, c_out, kernel] (PyTorch).

struct Params {
    c_in: u32,
    c_out: u32,
    kernel: u32,
    stride: u32,
    padding: u32,
    flags: u32,
    slope: f32,
    pad0: u32,
}

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const BIAS: u32 = 1u;
const PRE_LRELU: u32 = 2u;

// grid: (ceil(t_out / 64), ceil(c_out / 4)); 4 output channels per invocation.
@compute @workgroup_size(64)
fn conv_transpose1d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t_in = step.n_tokens;
    let t_out = (t_in - 1u) * p.stride + p.kernel - 2u * p.padding;
    let o = gid.x;
    let co0 = gid.y * 4u;
    if (o >= t_out || co0 >= p.c_out) { return; }
    let n = min(4u, p.c_out - co0);
    let shifted = o + p.padding;
    var acc = vec4<f32>(0.0);
    for (var k = shifted % p.stride; k < p.kernel; k += p.stride) {
        if (k > shifted) { break; }
        let i = (shifted - k) / p.stride;
        if (i >= t_in) { continue; }
        for (var ci = 0u; ci < p.c_in; ci++) {
            var xv = x[ci * t_in + i];
            if ((p.flags & PRE_LRELU) != 0u && xv < 0.0) { xv *= p.slope; }
            let wi = (ci * p.c_out + co0) * p.kernel + k;
            var wv = vec4<f32>(w[wi], 0.0, 0.0, 0.0);
            if (n > 1u) { wv.y = w[wi + p.kernel]; }
            if (n > 2u) { wv.z = w[wi + 2u * p.kernel]; }
            if (n > 3u) { wv.w = w[wi + 3u * p.kernel]; }
            acc += xv * wv;
        }
    }
    for (var j = 0u; j < n; j++) {
        var v = acc[j];
        if ((p.flags & BIAS) != 0u) { v += bias[co0 + j]; }
        y[(co0 + j) * t_out + o] = v;
    }
}
