// GroupNorm with one group (torch nn.GroupNorm(1, C)) over a time-major
// [n_tokens, channels] block: every value of the block shares one mean and one
// (biased) variance, then y = (x - mean) / sqrt(var + eps) * w[c] + b[c].
// Moonshine's conv stem applies tanh first; flag TANH fuses it into both
// passes (tanh(x) is recomputed rather than stored).
// Two entry points: groupnorm_stats (one workgroup: mean, then the centred
// squares, as torch's two-pass variance) writes stats = (mean, rstd);
// groupnorm_apply normalizes the block in parallel.
// reduce_sum: shaders/lib/wg_reduce_*.wgsl (subgroups where 32 wide).

struct Params { channels: u32, eps: f32, flags: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> b: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
@group(0) @binding(6) var<storage, read_write> stats: array<f32>;

const WG: u32 = 256u;
const TANH: u32 = 1u;

fn load(i: u32) -> f32 {
    if ((p.flags & TANH) != 0u) {
        // Clamped: tanh is exactly +-1 in f32 past |x| = 9, and some drivers
        // overflow exp() inside tanh for large inputs.
        return tanh(clamp(x[i], -15.0, 15.0));
    }
    return x[i];
}

// grid: (1, 1)
@compute @workgroup_size(256)
fn groupnorm_stats(@builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    let n = step.n_tokens * p.channels;
    var s = 0.0;
    for (var i = t; i < n; i += WG) { s += load(i); }
    let mean = reduce_sum(t, s) / f32(n);
    var s2 = 0.0;
    for (var i = t; i < n; i += WG) {
        let d = load(i) - mean;
        s2 += d * d;
    }
    let variance = reduce_sum(t, s2) / f32(n);
    if (t == 0u) {
        stats[0] = mean;
        stats[1] = inverseSqrt(variance + p.eps);
    }
}

// grid: (ceil(channels / 256), n_tokens)
@compute @workgroup_size(256)
fn groupnorm_apply(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let c = wg.x * WG + lid.x;
    if (wg.y >= step.n_tokens || c >= p.channels) { return; }
    let i = wg.y * p.channels + c;
    y[i] = (load(i) - stats[0]) * stats[1] * w[c] + b[c];
}
