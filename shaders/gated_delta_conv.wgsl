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

// The token in qkv row `conv_row` is at position `conv_pos`; the ring starts at `conv_ring`
// (set by the entry point: the step's, or a batched decode row's slot's).
var<private> conv_row: u32;
var<private> conv_pos: u32;
var<private> conv_ring: u32;

// Channel `ch` of token t's q | k | v row, `raw` its value in `qkv`: the conv + SiLU
// output at its position (one token per workgroup: a decode step or a batched decode row),
// in causal_conv.wgsl's order and fma()s.
fn conv_in(t: u32, ch: u32, raw: f32) -> f32 {
    let k = FLAGS;
    let pos = conv_pos + t - conv_row;
    let ring = conv_ring + ch * k;
    var acc = 0.0;
    for (var j = 0u; j + 1u < k; j++) {
        let back = k - 1u - j;
        var v = 0.0;
        if (back <= pos) { v = conv_state[ring + (pos - back) % k]; }
        acc = fma(conv_w[ch * k + j], v, acc);
    }
    acc = fma(conv_w[ch * k + k - 1u], raw, acc);
    return acc / (1.0 + exp(-acc));
}

fn conv_keep(t: u32, ch: u32, raw: f32) {
    let k = FLAGS;
    conv_state[conv_ring + ch * k + (conv_pos + t - conv_row) % k] = raw;
}

@compute @workgroup_size(256)
fn gated_delta_conv(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    conv_row = 0u;
    conv_pos = step.pos0;
    conv_ring = 0u;
    gated_delta_core(wg, lid, 0u, step.n_tokens, 0u);
}

// Batched decode: row r is one token of the sequence in slot rows[2r] at position rows[2r + 1];
// the delta and conv states hold one region per slot ([slots][v_heads, dk, dv] and
// [slots][channels, K]).
@group(0) @binding(11) var<storage, read> rows: array<u32>;

// grid: (v_heads, ceil(dv / 32) * n_tokens): the column block and the row share y.
@compute @workgroup_size(256)
fn gated_delta_conv_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let blocks = (p.dv + COLS - 1u) / COLS;
    let r = wg.y / blocks;
    if (r >= step.n_tokens) { return; }
    let slot = rows[2u * r];
    conv_row = r;
    conv_pos = rows[2u * r + 1u];
    conv_ring = slot * (2u * p.k_heads * p.dk + p.v_heads * p.dv) * FLAGS;
    gated_delta_core(vec3<u32>(wg.x, wg.y % blocks, wg.z), lid, r, 1u, slot * p.v_heads * p.dk * p.dv);
}
