// The gated delta rule (Gated DeltaNet), recurrent form, over the step's
// tokens in order: prefill chunks and decode steps share it, the per-head
// state S [v_heads, dk, dv] staying on the GPU between them.
// Per token and value head h (key head kh = h / (v_heads / k_heads)):
//   q = l2norm(q_kh) / sqrt(dk), k = l2norm(k_kh)            (eps 1e-6 inside the rsqrt)
//   beta = sigmoid(b_h), decay = exp(-exp(A_log_h) * softplus(a_h + dt_bias_h))
//   S *= decay; delta = (v - S^T k) * beta; S += k delta^T; o = S^T q
// Columns of S are independent, so a workgroup owns 64 columns of one head
// and recomputes the (cheap) q/k norms itself.

struct Params { k_heads: u32, v_heads: u32, dk: u32, dv: u32 }
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
// Conv output rows [q (k_heads * dk) | k (k_heads * dk) | v (v_heads * dv)].
@group(0) @binding(2) var<storage, read> qkv: array<f32>;
@group(0) @binding(3) var<storage, read> a: array<f32>;
@group(0) @binding(4) var<storage, read> b: array<f32>;
@group(0) @binding(5) var<storage, read> a_log: array<f32>;
@group(0) @binding(6) var<storage, read> dt_bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> state: array<f32>;
@group(0) @binding(8) var<storage, read_write> out: array<f32>;

const WG: u32 = 64u;
const MAX_DK: u32 = 256u;
var<workgroup> qs: array<f32, MAX_DK>;
var<workgroup> ks: array<f32, MAX_DK>;
var<workgroup> rq: array<f32, WG>;
var<workgroup> rk: array<f32, WG>;

// grid: (v_heads, ceil(dv / 64))
@compute @workgroup_size(64)
fn gated_delta(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let h = wg.x;
    let j = wg.y * WG + lid.x;
    let key_dim = p.k_heads * p.dk;
    let width = 2u * key_dim + p.v_heads * p.dv;
    let kh = h / (p.v_heads / p.k_heads);
    let base = h * p.dk * p.dv + j;
    let decay_rate = exp(a_log[h]);
    for (var t = 0u; t < step.n_tokens; t++) {
        let row = t * width;
        var sq = 0.0;
        var sk = 0.0;
        for (var i = lid.x; i < p.dk; i += WG) {
            let qv = qkv[row + kh * p.dk + i];
            let kv = qkv[row + key_dim + kh * p.dk + i];
            qs[i] = qv;
            ks[i] = kv;
            sq += qv * qv;
            sk += kv * kv;
        }
        rq[lid.x] = sq;
        rk[lid.x] = sk;
        workgroupBarrier();
        for (var s = WG / 2u; s > 0u; s >>= 1u) {
            if (lid.x < s) {
                rq[lid.x] += rq[lid.x + s];
                rk[lid.x] += rk[lid.x + s];
            }
            workgroupBarrier();
        }
        let qn = inverseSqrt(rq[0] + 1e-6) / sqrt(f32(p.dk));
        let kn = inverseSqrt(rk[0] + 1e-6);
        if (j < p.dv) {
            let beta = 1.0 / (1.0 + exp(-b[t * p.v_heads + h]));
            let xa = a[t * p.v_heads + h] + dt_bias[h];
            var sp = xa;
            if (xa <= 20.0) { sp = log(1.0 + exp(xa)); }
            let decay = exp(-decay_rate * sp);
            let v = qkv[row + 2u * key_dim + h * p.dv + j];
            var kv_mem = 0.0;
            for (var i = 0u; i < p.dk; i++) {
                kv_mem += state[base + i * p.dv] * decay * (ks[i] * kn);
            }
            let delta = (v - kv_mem) * beta;
            var o = 0.0;
            for (var i = 0u; i < p.dk; i++) {
                let s = state[base + i * p.dv] * decay + (ks[i] * kn) * delta;
                state[base + i * p.dv] = s;
                o += s * (qs[i] * qn);
            }
            out[t * p.v_heads * p.dv + h * p.dv + j] = o;
        }
        // The next token overwrites qs/ks/rq/rk.
        workgroupBarrier();
    }
}
