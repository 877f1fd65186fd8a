// 1-D convolution over channel-major [channels, time] tensors (batch 1), stride 1,
// symmetric zero padding, dilation and groups, with an optional fused prologue and
// epilogue (the shapes HiFi-GAN and WaveNet-style stacks need):
//   v = conv(pre_lrelu ? leaky_relu(x, slope) : x) + bias
//   v = v + res              (RESIDUAL)
//   v = tanh(v)              (POST_TANH)
//   y = out_scale * v (+ y)  (ACCUMULATE adds into what y holds)
// The input length is step.n_tokens; t_out = t_in + 2*padding - dilation*(kernel-1).
// Weight layout [c_out, c_in / groups, kernel] (PyTorch).

struct Params {
    c_in: u32,
    c_out: u32,
    kernel: u32,
    dilation: u32,
    padding: u32,
    groups: u32,
    flags: u32,
    slope: f32,
    out_scale: f32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read> res: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

const BIAS: u32 = 1u;
const PRE_LRELU: u32 = 2u;
const RESIDUAL: u32 = 4u;
const ACCUMULATE: u32 = 8u;
const POST_TANH: u32 = 16u;

fn load_x(ci: u32, ti: i32, t_in: u32) -> f32 {
    if (ti < 0 || u32(ti) >= t_in) { return 0.0; }
    let v = x[ci * t_in + u32(ti)];
    if ((p.flags & PRE_LRELU) != 0u && v < 0.0) { return v * p.slope; }
    return v;
}

fn store(co: u32, t: u32, t_out: u32, acc: f32) {
    var v = acc;
    if ((p.flags & BIAS) != 0u) { v += bias[co]; }
    let i = co * t_out + t;
    if ((p.flags & RESIDUAL) != 0u) { v += res[i]; }
    // tanh through exp overflows to NaN on some drivers past |v| ~ 44.
    if ((p.flags & POST_TANH) != 0u) { v = tanh(clamp(v, -20.0, 20.0)); }
    v *= p.out_scale;
    if ((p.flags & ACCUMULATE) != 0u) { v += y[i]; }
    y[i] = v;
}

// grid: (ceil(t_out / 256), ceil(c_out / 4)); each invocation makes a 4 x 4 tile: 4 output
// channels at 4 consecutive time steps, so each weight load feeds 4 FMAs and each input
// value feeds 4 output channels (register tiling; the dense case is HiFi-GAN's hot loop).
const TT: u32 = 4u;

@compute @workgroup_size(64)
fn conv1d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t_in = step.n_tokens;
    let t_out = t_in + 2u * p.padding - p.dilation * (p.kernel - 1u);
    let t0 = gid.x * TT;
    let co0 = gid.y * 4u;
    if (t0 >= t_out || co0 >= p.c_out) { return; }
    let nt = min(TT, t_out - t0);
    let cig = p.c_in / p.groups;
    let cog = p.c_out / p.groups;
    let base = i32(t0) - i32(p.padding);
    if (p.groups == 1u) {
        var acc: array<vec4<f32>, 4>;
        for (var j = 0u; j < TT; j++) { acc[j] = vec4<f32>(0.0); }
        let n = min(4u, p.c_out - co0);
        let wstride = cig * p.kernel;
        for (var ci = 0u; ci < cig; ci++) {
            for (var k = 0u; k < p.kernel; k++) {
                let wi = (co0 * cig + ci) * p.kernel + k;
                var wv = vec4<f32>(w[wi], 0.0, 0.0, 0.0);
                if (n > 1u) { wv.y = w[wi + wstride]; }
                if (n > 2u) { wv.z = w[wi + 2u * wstride]; }
                if (n > 3u) { wv.w = w[wi + 3u * wstride]; }
                let xb = base + i32(k * p.dilation);
                for (var j = 0u; j < TT; j++) {
                    acc[j] += load_x(ci, xb + i32(j), t_in) * wv;
                }
            }
        }
        for (var j = 0u; j < nt; j++) {
            for (var c = 0u; c < n; c++) { store(co0 + c, t0 + j, t_out, acc[j][c]); }
        }
        return;
    }
    for (var c = 0u; c < 4u; c++) {
        let co = co0 + c;
        if (co >= p.c_out) { break; }
        let g = co / cog;
        for (var j = 0u; j < nt; j++) {
            var acc = 0.0;
            for (var cl = 0u; cl < cig; cl++) {
                for (var k = 0u; k < p.kernel; k++) {
                    acc += load_x(g * cig + cl, base + i32(j + k * p.dilation), t_in) * w[(co * cig + cl) * p.kernel + k];
                }
            }
            store(co, t0 + j, t_out, acc);
        }
    }
}
