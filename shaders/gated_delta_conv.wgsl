// The gated delta rule (shaders/lib/gated_delta_core.wgsl) with the causal conv folded in
// (the delta_conv pass; decode plans only, one token per step): `qkv` is the conv's input,
// and the kernel runs causal_conv.wgsl's arithmetic for the channels it reads, the window
// from the conv state ring. The one workgroup owning a channel (q, k: the first of its key
// head's value heads, y == 0; v: its column's) writes the new input to slot pos0 % K, which
// no workgroup of this step reads (it holds position pos0 - K): no race between workgroups.

// The depthwise conv weights [channels, K] and state ring [channels, K].
@group(0) @binding(9) var<storage, read> conv_w: array<f32>;
@group(0) @binding(10) var<storage, read_write> conv_state: array<f32>;

// The conv width K (1-15), compiled in.
override FLAGS: u32 = 4u;

// Channel `ch` of token t's q | k | v row, `raw` its value in `qkv`: the conv + SiLU
// output at position pos0 + t (t == 0: a decode step), in causal_conv.wgsl's order and fma()s.
fn conv_in(t: u32, ch: u32, raw: f32) -> f32 {
    let k = FLAGS;
    let pos = step.pos0 + t;
    var acc = 0.0;
    for (var j = 0u; j + 1u < k; j++) {
        let back = k - 1u - j;
        var v = 0.0;
        if (back <= pos) { v = conv_state[ch * k + (pos - back) % k]; }
        acc = fma(conv_w[ch * k + j], v, acc);
    }
    acc = fma(conv_w[ch * k + k - 1u], raw, acc);
    return acc / (1.0 + exp(-acc));
}

fn conv_keep(t: u32, ch: u32, raw: f32) {
    let k = FLAGS;
    conv_state[ch * k + (step.pos0 + t) % k] = raw;
}

@compute @workgroup_size(256)
fn gated_delta_conv(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    gated_delta_core(wg, lid);
}
