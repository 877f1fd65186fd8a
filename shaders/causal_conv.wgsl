// Causal depthwise conv1d over time with a rolling state, then SiLU (the
// Gated DeltaNet front). One thread per channel walks the step's tokens in
// order, so one dispatch serves a prefill chunk and a decode step alike.
//   out[t, c] = silu(sum_{j < K-1} w[c, j] * in(P - (K-1) + j) + w[c, K-1] * x[t, c]),  P = pos0 + t
// where in(Q) is x's row for Q >= pos0, the state's for earlier Q >= 0, and 0 before position 0.
// The sum is written as fma()s in tap order, here and in gated_delta_conv.wgsl, so both
// kernels round alike whatever the compiler contracts (that kernel's loop is unrolled, its
// first add one of two products): with a * b + c the delta_conv pass drifted 9.8e-5 from the
// unfused logits on the H200, with the fma()s it matches them to the bit.
// The state is a ring of K inputs per channel: slot Q % K holds the input at position Q. A
// step writes slots of its own positions only, which hold inputs K or more positions back:
// so gated_delta.wgsl can read a decode step's window from it while other workgroups of
// the same dispatch write the new input (see CONV there).

struct Params { channels: u32, kernel: u32, pad0: u32, pad1: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read_write> state: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

// grid: (ceil(channels / 64), 1)
@compute @workgroup_size(64)
fn causal_conv(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c = gid.x;
    if (c >= p.channels) { return; }
    let k = p.kernel;
    let pos0 = step.pos0;
    for (var t = 0u; t < step.n_tokens; t++) {
        let pos = pos0 + t;
        var acc = 0.0;
        for (var j = 0u; j + 1u < k; j++) {
            let back = k - 1u - j;
            var v = 0.0;
            if (back <= t) {
                v = x[(t - back) * p.channels + c];
            } else if (back <= pos) {
                v = state[c * k + (pos - back) % k];
            }
            acc = fma(w[c * k + j], v, acc);
        }
        acc = fma(w[c * k + k - 1u], x[t * p.channels + c], acc);
        out[t * p.channels + c] = acc / (1.0 + exp(-acc));
    }
    // After the reads: this step's last inputs replace the oldest.
    for (var t = max(step.n_tokens, k) - k; t < step.n_tokens; t++) {
        state[c * k + (pos0 + t) % k] = x[t * p.channels + c];
    }
}
