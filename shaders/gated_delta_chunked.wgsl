// The gated delta rule in chunked (WY / UT-transform) form, for prefill: the
// same result as gated_delta.wgsl's token-by-token recurrence (the decode
// kernel), with the serial dependency per chunk of C tokens instead of per
// token (flash-linear-attention's chunk_gated_delta_rule; transformers'
// torch_chunk_gated_delta_rule). Per value head h (key head kh as in
// gated_delta.wgsl), l2-normed k, q scaled by 1/sqrt(dk), beta = sigmoid(b),
// g = -exp(A_log) softplus(a + dt_bias), within a chunk G_i = g_0 + .. + g_i and,
// with S the state at the chunk's start:
//   L[i][m] = beta_i (k_i . k_m) exp(G_i - G_m)            m < i
//   (I + L) U = Y,  Y_i = beta_i (v_i - exp(G_i) S^T k_i)    (forward substitution)
//   o_i = exp(G_i) S^T q_i + sum_{m <= i} (q_i . k_m) exp(G_i - G_m) U_m
//   S  <- exp(G_last) S + sum_m k_m exp(G_last - G_m) U_m^T
// (U are the recurrence's deltas; every exponent is <= 0, so nothing overflows.)
// A workgroup owns DVB columns of one head's state (columns are independent);
// the state lives in the `state` buffer [v_heads, dk, dv] between chunks and steps.

struct Params { k_heads: u32, v_heads: u32, dk: u32, dv: u32 }

// Conv output rows [q (k_heads * dk) | k (k_heads * dk) | v (v_heads * dv)].
@group(0) @binding(2) var<storage, read> qkv: array<f32>;
@group(0) @binding(3) var<storage, read> a: array<f32>;
@group(0) @binding(4) var<storage, read> b: array<f32>;
@group(0) @binding(5) var<storage, read> a_log: array<f32>;
@group(0) @binding(6) var<storage, read> dt_bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> state: array<f32>;
@group(0) @binding(8) var<storage, read_write> out: array<f32>;

const WG: u32 = 256u;
// Chunk length and value columns per workgroup: 12.5 KB of workgroup memory,
// inside WebGPU's 16 KB default.
const C: u32 = 32u;
const DVB: u32 = 32u;
var<workgroup> beta_s: array<f32, C>;
var<workgroup> g_s: array<f32, C>;
var<workgroup> rq_s: array<f32, C>;
var<workgroup> rk_s: array<f32, C>;
var<workgroup> lmat: array<f32, 1024>; // C * C
var<workgroup> qk: array<f32, 1024>;   // C * C
var<workgroup> u: array<f32, 1024>;    // C * DVB

// grid: (v_heads, ceil(dv / DVB))
@compute @workgroup_size(256)
fn gated_delta_chunked(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    let h = wg.x;
    let j0 = wg.y * DVB;
    let key_dim = p.k_heads * p.dk;
    let width = 2u * key_dim + p.v_heads * p.dv;
    let kh = h / (p.v_heads / p.k_heads);
    let qoff = kh * p.dk;
    let koff = key_dim + kh * p.dk;
    let sbase = h * p.dk * p.dv;
    let decay_rate = exp(a_log[h]);
    for (var c0 = 0u; c0 < step.n_tokens; c0 += C) {
        let len = min(C, step.n_tokens - c0);
        // Per-token scalars: norms, beta, log decay.
        if (t < C) {
            var rq = 0.0;
            var rk = 0.0;
            var be = 0.0;
            var g = 0.0;
            if (t < len) {
                let row = (c0 + t) * width;
                var sq = 0.0;
                var sk = 0.0;
                for (var r = 0u; r < p.dk; r++) {
                    let qv = qkv[row + qoff + r];
                    let kv = qkv[row + koff + r];
                    sq += qv * qv;
                    sk += kv * kv;
                }
                rq = inverseSqrt(sq + 1e-6) / sqrt(f32(p.dk));
                rk = inverseSqrt(sk + 1e-6);
                be = 1.0 / (1.0 + exp(-b[(c0 + t) * p.v_heads + h]));
                let xa = a[(c0 + t) * p.v_heads + h] + dt_bias[h];
                var sp = xa;
                if (xa <= 20.0) { sp = log(1.0 + exp(xa)); }
                g = -decay_rate * sp;
            }
            rq_s[t] = rq;
            rk_s[t] = rk;
            beta_s[t] = be;
            g_s[t] = g;
        }
        workgroupBarrier();
        if (t == 0u) {
            for (var i = 1u; i < len; i++) { g_s[i] += g_s[i - 1u]; }
        }
        workgroupBarrier();
        // Gram matrices of the chunk, decay and masks applied.
        for (var e = t; e < C * C; e += WG) {
            let i = e / C;
            let m = e % C;
            var lv = 0.0;
            var qv = 0.0;
            if (i < len && m <= i) {
                let ri = (c0 + i) * width;
                let rm = (c0 + m) * width;
                var dkk = 0.0;
                var dqk = 0.0;
                for (var r = 0u; r < p.dk; r++) {
                    let km = qkv[rm + koff + r];
                    dkk += qkv[ri + koff + r] * km;
                    dqk += qkv[ri + qoff + r] * km;
                }
                let decay = exp(g_s[i] - g_s[m]);
                if (m < i) { lv = beta_s[i] * (dkk * rk_s[i] * rk_s[m]) * decay; }
                qv = (dqk * rq_s[i] * rk_s[m]) * decay;
            }
            lmat[e] = lv;
            qk[e] = qv;
        }
        // Y = beta (v - exp(G) S^T k) for this workgroup's columns.
        for (var e = t; e < C * DVB; e += WG) {
            let i = e / DVB;
            let j = j0 + e % DVB;
            var yv = 0.0;
            if (i < len && j < p.dv) {
                let ri = (c0 + i) * width;
                var d = 0.0;
                for (var r = 0u; r < p.dk; r++) {
                    d += state[sbase + r * p.dv + j] * qkv[ri + koff + r];
                }
                let v = qkv[ri + 2u * key_dim + h * p.dv + j];
                yv = beta_s[i] * (v - exp(g_s[i]) * (d * rk_s[i]));
            }
            u[e] = yv;
        }
        workgroupBarrier();
        // (I + L) U = Y, one row at a time (row i needs the finished rows m < i).
        for (var i = 1u; i < len; i++) {
            if (t < DVB) {
                var acc = 0.0;
                for (var m = 0u; m < i; m++) { acc += lmat[i * C + m] * u[m * DVB + t]; }
                u[i * DVB + t] -= acc;
            }
            workgroupBarrier();
        }
        // Outputs, from the state at the chunk's start.
        for (var e = t; e < C * DVB; e += WG) {
            let i = e / DVB;
            let jj = e % DVB;
            let j = j0 + jj;
            if (i < len && j < p.dv) {
                let ri = (c0 + i) * width;
                var d = 0.0;
                for (var r = 0u; r < p.dk; r++) {
                    d += state[sbase + r * p.dv + j] * qkv[ri + qoff + r];
                }
                var o = exp(g_s[i]) * (d * rq_s[i]);
                for (var m = 0u; m <= i; m++) { o += qk[i * C + m] * u[m * DVB + jj]; }
                out[(c0 + i) * p.v_heads * p.dv + h * p.dv + j] = o;
            }
        }
        // Every read of the old state is done before it is overwritten.
        storageBarrier();
        let gl = g_s[len - 1u];
        for (var e = t; e < p.dk * DVB; e += WG) {
            let r = e / DVB;
            let jj = e % DVB;
            let j = j0 + jj;
            if (j < p.dv) {
                var s = state[sbase + r * p.dv + j] * exp(gl);
                for (var m = 0u; m < len; m++) {
                    let km = qkv[(c0 + m) * width + koff + r] * rk_s[m];
                    s += km * exp(gl - g_s[m]) * u[m * DVB + jj];
                }
                state[sbase + r * p.dv + j] = s;
            }
        }
        // The next chunk reads the new state and overwrites the workgroup arrays.
        storageBarrier();
        workgroupBarrier();
    }
}
