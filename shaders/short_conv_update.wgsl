// short_conv.wgsl and conv_state_update.wgsl in one dispatch (the
// short_conv_state decode fusion): one thread per channel keeps the L-1-row
// window in registers, walks the step's rows, writes each output and finally
// the shifted state. Same float order as short_conv.wgsl. short_conv_rows: the same for a
// batched decode step's rows, each with its own slot's state.

struct Params { dim: u32, kernel: u32, flags: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> bcx: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> state: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;

const BIAS: u32 = 1u;
const MAX_STATE: u32 = 7u; // params::conv::MAX_KERNEL - 1

// Walks `n` rows of bcx from `row0` through channel c's conv, the window starting from and
// left in the L-1 state rows at `state0`.
fn conv_walk(c: u32, row0: u32, n: u32, state0: u32) {
    let s = p.kernel - 1u;
    var win: array<f32, MAX_STATE>;
    for (var j = 0u; j < s; j++) { win[j] = state[state0 + j * p.dim + c]; }
    for (var t = row0; t < row0 + n; t++) {
        let base = t * 3u * p.dim;
        let v = bcx[base + c] * bcx[base + 2u * p.dim + c];
        var acc = 0.0;
        for (var k = 0u; k < s; k++) { acc += w[c * p.kernel + k] * win[k]; }
        acc += w[c * p.kernel + s] * v;
        if ((p.flags & BIAS) != 0u) { acc += bias[c]; }
        out[t * p.dim + c] = bcx[base + p.dim + c] * acc;
        for (var k = 0u; k + 1u < s; k++) { win[k] = win[k + 1u]; }
        win[s - 1u] = v;
    }
    for (var j = 0u; j < s; j++) { state[state0 + j * p.dim + c] = win[j]; }
}

// grid: (ceil(dim / 256), 1)
@compute @workgroup_size(256)
fn short_conv_update(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let c = wg.x * 256u + lid.x;
    if (c >= p.dim) { return; }
    conv_walk(c, 0u, step.n_tokens, 0u);
}

// Batched decode: row r is one token of the sequence in slot rows[2r], whose state is that
// slot's [L-1][dim] region of `state` ([slots][L-1][dim]).
@group(0) @binding(7) var<storage, read> rows: array<u32>;

// grid: (ceil(dim / 256), n_tokens)
@compute @workgroup_size(256)
fn short_conv_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let c = wg.x * 256u + lid.x;
    let r = wg.y;
    if (c >= p.dim || r >= step.n_tokens) { return; }
    conv_walk(c, r, 1u, rows[2u * r] * (p.kernel - 1u) * p.dim);
}
