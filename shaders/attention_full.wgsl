// Multi-head attention of this step's queries over a key/value block, for
// encoder self-attention (non-causal), decoder self-attention over a KV cache
// (causal: query row r sees keys < causal_off + r + 1) and cross-attention.
// Rows of q, k and v are strided so fused projections ([T, 3D] QKV or [T, 2D]
// KV) are read in place: q[r * q_stride + h * hd + i],
// k[j * kv_stride + k_off + h * hd + i], v[j * kv_stride + v_off + h * hd + i].
// Output is [n_tokens, n_heads * hd]. Query and output rows start at row_off (one sequence of several
// packed into the same buffers, its keys and values found through k_off / v_off). One workgroup per
// (head, query row);
// keys are scored 256 at a time into a running (max, sum, acc) online softmax.
// head_dim <= 256.
// reduce_max / reduce_sum: shaders/lib/wg_reduce_*.wgsl (subgroups where 32 wide).

struct Params {
    n_heads: u32, head_dim: u32, kv_len: u32, q_stride: u32,
    kv_stride: u32, k_off: u32, v_off: u32, causal_off: u32,
    scale: f32, flags: u32, row_off: u32, pad1: u32,
}

@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k: array<f32>;
@group(0) @binding(4) var<storage, read> v: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

const WG: u32 = 256u;
const NEG: f32 = -3.4028235e38;
const CAUSAL: u32 = 1u;
var<workgroup> qs: array<f32, 256>;
var<workgroup> probs: array<f32, 256>;

// grid: (n_heads, n_tokens)
@compute @workgroup_size(256)
fn attention_full(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let h = wg.x;
    let row = wg.y;
    if (row >= step.n_tokens) { return; }
    let t = lid.x;
    let hd = p.head_dim;
    if (t < hd) { qs[t] = q[(p.row_off + row) * p.q_stride + h * hd + t]; }
    workgroupBarrier();
    var len = p.kv_len;
    if ((p.flags & CAUSAL) != 0u) { len = min(len, p.causal_off + row + 1u); }
    let kb0 = p.k_off + h * hd;
    let vb0 = p.v_off + h * hd;
    var m = NEG;
    var l = 0.0;
    var acc = 0.0;
    for (var j0 = 0u; j0 < len; j0 += WG) {
        let j = j0 + t;
        var s = NEG;
        if (j < len) {
            let kb = j * p.kv_stride + kb0;
            var d = 0.0;
            for (var i = 0u; i < hd; i++) { d += qs[i] * k[kb + i]; }
            s = d * p.scale;
        }
        let m_new = max(m, reduce_max(t, s));
        var pr = 0.0;
        if (j < len) { pr = exp(s - m_new); }
        probs[t] = pr;
        let alpha = exp(m - m_new);
        l = l * alpha + reduce_sum(t, pr);
        if (t < hd) {
            var a = acc * alpha;
            let cnt = min(WG, len - j0);
            for (var jj = 0u; jj < cnt; jj++) {
                a += probs[jj] * v[(j0 + jj) * p.kv_stride + vb0 + t];
            }
            acc = a;
        }
        m = m_new;
        workgroupBarrier();
    }
    if (t < hd) { out[((p.row_off + row) * p.n_heads + h) * hd + t] = acc / l; }
}
