// INT4 matvec for decode, alone or fused, over up to four INT4 matrices that
// share one input x (the engine's only INT4 matvec: the plain one is this
// kernel with no prologue or epilogue, so fusing changes no bits):
//   prologue  (flags & NORM):   x' = (x * rsqrt(mean(x^2) + eps)) * g  (g or 1 + g with
//                               ADD_UNIT), sum(x^2) in rmsnorm.wgsl's exact order
//             (flags & GATE):   x' = x * sigmoid(gate), gate rows bound where g is
//   columns   c in [0, n0 + n1 + n2 + n3): column c of the concatenation W0 | W1 | W2 | W3,
//                               written to y0 .. y3 at c - offset (+ bias; none for W3)
//   epilogues (flags & RESID):  y0 = resid + W0 x'           (residual add)
//             (flags & SWIGLU): y0 = silu(W0 x') * (W1 x')   (gate/up, n0 == n1)
//   rows      up to ROWS input rows per workgroup (grid.y = ceil(rows / ROWS)), so
//             a batch of decode rows reads each weight once per ROWS rows;
//             LAST_ROW reads only row n_tokens - 1 and writes output row 0.
// W[n, k] = s * q + m per group of `group` consecutive k; 8 nibbles per u32 (k at
// bits 4 * (k % 8)), column n's words contiguous. A lane group of 32 invocations
// owns CPG columns: each lane reads one vec4<u32> (32 weights) of every column per
// step, so the x values it loads serve CPG columns and CPG loads are in flight.
// group_sum (shaders/lib/reduce_*.wgsl) sums over the lane group; the body is
// shaders/lib/matvec_int4_core.wgsl, shared with the plain matvec_int4.wgsl.

// Params, x (binding 2), MAX_K4 and the PARTIALS_IN hooks: lib/matvec_int4_bindings.wgsl.
// The norm weight g (NORM) or the gate rows (GATE): never both.
@group(0) @binding(3) var<storage, read> norm_w: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> resid: array<f32>;
@group(0) @binding(5) var<storage, read> w0q: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> w0sm: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read> w1q: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> w1sm: array<vec2<f32>>;
@group(0) @binding(9) var<storage, read> w2q: array<vec4<u32>>;
@group(0) @binding(10) var<storage, read> w2sm: array<vec2<f32>>;
@group(0) @binding(11) var<storage, read> b0: array<f32>;
@group(0) @binding(12) var<storage, read> b1: array<f32>;
@group(0) @binding(13) var<storage, read> b2: array<f32>;
@group(0) @binding(14) var<storage, read_write> y0: array<f32>;
@group(0) @binding(15) var<storage, read_write> y1: array<f32>;
@group(0) @binding(16) var<storage, read_write> y2: array<f32>;
// A fourth matrix (Qwen3.5's attention: q | gate | k | v from one normed x), without bias.
@group(0) @binding(17) var<storage, read> w3q: array<vec4<u32>>;
@group(0) @binding(18) var<storage, read> w3sm: array<vec2<f32>>;
@group(0) @binding(19) var<storage, read_write> y3: array<f32>;

fn load_q(m: u32, i: u32) -> vec4<u32> {
    if (m == 0u) { return w0q[i]; }
    if (m == 1u) { return w1q[i]; }
    if (m == 2u) { return w2q[i]; }
    return w3q[i];
}

fn load_sm(m: u32, i: u32) -> vec2<f32> {
    if (m == 0u) { return w0sm[i]; }
    if (m == 1u) { return w1sm[i]; }
    if (m == 2u) { return w2sm[i]; }
    return w3sm[i];
}

fn norm_weight(i: u32) -> vec4<f32> { return norm_w[i]; }
fn gate_at(i: u32) -> vec4<f32> { return norm_w[i]; }
fn resid_at(i: u32) -> f32 { return resid[i]; }

fn bias_at(m: u32, c: u32) -> f32 {
    if (m == 0u) { return b0[c]; }
    if (m == 1u) { return b1[c]; }
    return b2[c];
}

fn store(m: u32, i: u32, v: f32) {
    if (m == 0u) { y0[i] = v; } else if (m == 1u) { y1[i] = v; } else if (m == 2u) { y2[i] = v; } else { y3[i] = v; }
}

@compute @workgroup_size(256)
fn matvec_fused_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    matvec_core(wg, lid);
}
