// Causal attention of this step's queries over the layer's KV cache, GQA aware.
// One workgroup per (head, query row): keys are scored 256 at a time and folded
// into a running (max, sum, acc) online softmax, so any context length works
// with fixed shared memory. head_dim <= 256. Query row r sits at pos0 + r and
// sees keys 0..=pos0 + r.
// reduce_max / reduce_sum: shaders/lib/wg_reduce_*.wgsl (subgroups where 32 wide); the
// cache words (head_dim % 4 == 0): shaders/lib/kv_*.wgsl.

struct Params {
    n_heads: u32, n_kv_heads: u32, head_dim: u32, max_seq: u32,
    scale: f32, pad0: u32, pad1: u32, pad2: u32,
}

@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k_cache: array<KvWord>;
@group(0) @binding(4) var<storage, read> v_cache: array<KvWord>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

const WG: u32 = 256u;
const NEG: f32 = -3.4028235e38;
var<workgroup> qs: array<f32, 256>;
var<workgroup> probs: array<f32, 256>;

// grid: (n_heads, n_tokens)
@compute @workgroup_size(256)
fn attention(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let h = wg.x;
    let row = wg.y;
    if (row >= step.n_tokens) { return; }
    let t = lid.x;
    let hd = p.head_dim;
    let kvh = h / (p.n_heads / p.n_kv_heads);
    let q_base = (row * p.n_heads + h) * hd;
    if (t < hd) { qs[t] = q[q_base + t]; }
    workgroupBarrier();
    let len = min(step.pos0 + row + 1u, p.max_seq);
    let cache_base = kvh * p.max_seq * hd;
    var m = NEG;
    var l = 0.0;
    var acc = 0.0;
    for (var j0 = 0u; j0 < len; j0 += WG) {
        let j = j0 + t;
        var s = NEG;
        if (j < len) {
            let kb4 = (cache_base + j * hd) / 4u;
            var d = 0.0;
            for (var i4 = 0u; i4 < hd / 4u; i4++) {
                let kk = kv_get(k_cache[kb4 + i4]);
                d += qs[4u * i4] * kk.x;
                d += qs[4u * i4 + 1u] * kk.y;
                d += qs[4u * i4 + 2u] * kk.z;
                d += qs[4u * i4 + 3u] * kk.w;
            }
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
                a += probs[jj] * kv_get(v_cache[(cache_base + (j0 + jj) * hd + t) / 4u])[t % 4u];
            }
            acc = a;
        }
        m = m_new;
        workgroupBarrier();
    }
    if (t < hd) { out[q_base + t] = acc / l; }
}
