// The gated delta rule (Gated DeltaNet), recurrent form, over the step's
// tokens in order: prefill chunks and decode steps share it, the per-head
// state S [v_heads, dk, dv] staying on the GPU between them.
// Per token and value head h (key head kh = h / (v_heads / k_heads)):
//   q = l2norm(q_kh) / sqrt(dk), k = l2norm(k_kh)            (eps 1e-6 inside the rsqrt)
//   beta = sigmoid(b_h), decay = exp(-exp(A_log_h) * softplus(a_h + dt_bias_h))
//   S *= decay; delta = (v - S^T k) * beta; S += k delta^T; o = S^T q
// Columns of S are independent: a workgroup owns 32 columns of one head, and
// each column is split over 8 invocations holding every 8th row of it in
// registers for all of the step's tokens (loaded once, stored once), so a
// decode step is a few loads per invocation rather than a walk down dk; the two
// column sums per token (S^T k and S^T q) reduce the 8 partials in workgroup
// memory. The (cheap) q/k norms are recomputed per workgroup.
// The kernel files define the hooks conv_in(t, ch, raw) -> f32 (the q | k | v value the
// rule uses for channel ch of token t, `raw` being qkv's) and conv_keep(t, ch, raw) (called
// once per channel and token by the workgroup owning it): gated_delta.wgsl (identity: qkv
// is the conv output) and gated_delta_conv.wgsl (the causal conv folded in).
struct Params { k_heads: u32, v_heads: u32, dk: u32, dv: u32 }

// Conv output rows [q (k_heads * dk) | k (k_heads * dk) | v (v_heads * dv)].
@group(0) @binding(2) var<storage, read> qkv: array<f32>;
@group(0) @binding(3) var<storage, read> a: array<f32>;
@group(0) @binding(4) var<storage, read> b: array<f32>;
@group(0) @binding(5) var<storage, read> a_log: array<f32>;
@group(0) @binding(6) var<storage, read> dt_bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> state: array<f32>;
@group(0) @binding(8) var<storage, read_write> out: array<f32>;
const COLS: u32 = 32u;
const SLICES: u32 = 8u;
const WG: u32 = 256u;
// dk <= 256 (checked on the host): at most 32 rows per invocation.
const MAX_ROWS: u32 = 32u;
var<workgroup> qs: array<f32, 256>;
var<workgroup> ks: array<f32, 256>;
var<workgroup> rq: array<f32, WG>;
var<workgroup> rk: array<f32, WG>;
var<workgroup> part: array<f32, WG>;
var<workgroup> delta_col: array<f32, COLS>;

// grid: (v_heads, ceil(dv / 32)); the kernel file's entry point (256 invocations) calls this
// for `n` tokens in rows row0.. of qkv/a/b/out, the state at `state0` (a batched decode step's
// row: one token, its slot's state region).
fn gated_delta_core(wg: vec3<u32>, lid3: vec3<u32>, row0: u32, n: u32, state0: u32) {
    let lid = lid3.x;
    let c = lid % COLS;
    let r = lid / COLS;
    let h = wg.x;
    let j = wg.y * COLS + c;
    let live = j < p.dv;
    let key_dim = p.k_heads * p.dk;
    let width = 2u * key_dim + p.v_heads * p.dv;
    let kh = h / (p.v_heads / p.k_heads);
    let base = state0 + h * p.dk * p.dv + j;
    let decay_rate = exp(a_log[h]);
    // This invocation's rows of column j: r, r + 8, r + 16, ...
    var s: array<f32, MAX_ROWS>;
    for (var m = 0u; m < MAX_ROWS; m++) {
        let i = m * SLICES + r;
        s[m] = 0.0;
        if (live && i < p.dk) { s[m] = state[base + i * p.dv]; }
    }
    for (var t = row0; t < row0 + n; t++) {
        let row = t * width;
        var sq = 0.0;
        var sk = 0.0;
        if (lid < p.dk) {
            let qch = kh * p.dk + lid;
            let kch = key_dim + qch;
            let q_raw = qkv[row + qch];
            let k_raw = qkv[row + kch];
            let qv = conv_in(t, qch, q_raw);
            let kv = conv_in(t, kch, k_raw);
            if (wg.y == 0u && h % (p.v_heads / p.k_heads) == 0u) {
                conv_keep(t, qch, q_raw);
                conv_keep(t, kch, k_raw);
            }
            qs[lid] = qv;
            ks[lid] = kv;
            sq = qv * qv;
            sk = kv * kv;
        }
        rq[lid] = sq;
        rk[lid] = sk;
        workgroupBarrier();
        for (var w = WG / 2u; w > 0u; w >>= 1u) {
            if (lid < w) {
                rq[lid] += rq[lid + w];
                rk[lid] += rk[lid + w];
            }
            workgroupBarrier();
        }
        let qn = inverseSqrt(rq[0] + 1e-6) / sqrt(f32(p.dk));
        let kn = inverseSqrt(rk[0] + 1e-6);
        let beta = 1.0 / (1.0 + exp(-b[t * p.v_heads + h]));
        let xa = a[t * p.v_heads + h] + dt_bias[h];
        var sp = xa;
        if (xa <= 20.0) { sp = log(1.0 + exp(xa)); }
        let decay = exp(-decay_rate * sp);
        var kv_mem = 0.0;
        for (var m = 0u; m < MAX_ROWS; m++) {
            let i = m * SLICES + r;
            if (i < p.dk) {
                s[m] *= decay;
                kv_mem += s[m] * (ks[i] * kn);
            }
        }
        part[lid] = kv_mem;
        workgroupBarrier();
        if (r == 0u) {
            var mem = 0.0;
            for (var x = 0u; x < SLICES; x++) { mem += part[x * COLS + c]; }
            var v = 0.0;
            if (live) {
                let vch = 2u * key_dim + h * p.dv + j;
                let v_raw = qkv[row + vch];
                v = conv_in(t, vch, v_raw);
                conv_keep(t, vch, v_raw);
            }
            delta_col[c] = (v - mem) * beta;
        }
        workgroupBarrier();
        let delta = delta_col[c];
        var o = 0.0;
        for (var m = 0u; m < MAX_ROWS; m++) {
            let i = m * SLICES + r;
            if (i < p.dk) {
                s[m] += (ks[i] * kn) * delta;
                o += s[m] * (qs[i] * qn);
            }
        }
        part[lid] = o;
        workgroupBarrier();
        if (r == 0u && live) {
            var sum = 0.0;
            for (var x = 0u; x < SLICES; x++) { sum += part[x * COLS + c]; }
            out[t * p.v_heads * p.dv + h * p.dv + j] = sum;
        }
        // The next token overwrites qs/ks/rq/rk/part.
        workgroupBarrier();
    }
    for (var m = 0u; m < MAX_ROWS; m++) {
        let i = m * SLICES + r;
        if (live && i < p.dk) { state[base + i * p.dv] = s[m]; }
    }
}
