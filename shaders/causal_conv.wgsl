// Causal depthwise conv1d over time with a rolling state, then SiLU (the
// Gated DeltaNet front). One thread per channel walks the step's tokens in
// order, so one dispatch serves a prefill chunk and a decode step alike, and
// the window left in `state` carries into the next chunk / step.
//   out[t, c] = silu(sum_{j < K-1} w[c, j] * win[j] + w[c, K-1] * x[t, c])
// where win holds the channel's previous K-1 inputs, oldest first.

struct Params { channels: u32, kernel: u32, pad0: u32, pad1: u32 }
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read_write> state: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

// The kernel width is at most MAX_K (Qwen3.5 uses 4).
const MAX_K: u32 = 8u;

// grid: (ceil(channels / 64), 1)
@compute @workgroup_size(64)
fn causal_conv(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c = gid.x;
    if (c >= p.channels) { return; }
    let km1 = p.kernel - 1u;
    var win: array<f32, MAX_K>;
    for (var j = 0u; j < km1; j++) { win[j] = state[c * km1 + j]; }
    for (var t = 0u; t < step.n_tokens; t++) {
        let xin = x[t * p.channels + c];
        var acc = 0.0;
        for (var j = 0u; j < km1; j++) { acc += w[c * p.kernel + j] * win[j]; }
        acc += w[c * p.kernel + km1] * xin;
        out[t * p.channels + c] = acc / (1.0 + exp(-acc));
        for (var j = 0u; j + 1u < km1; j++) { win[j] = win[j + 1u]; }
        if (km1 > 0u) { win[km1 - 1u] = xin; }
    }
    for (var j = 0u; j < km1; j++) { state[c * km1 + j] = win[j]; }
}
