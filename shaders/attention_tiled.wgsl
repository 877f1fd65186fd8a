// Causal attention of a prefill step's query rows over the layer's KV cache,
// GQA aware, flash style: a workgroup takes 32 query rows of one head and walks
// the keys 32 at a time through shared memory with an online softmax, so each
// key block is read once per 32 queries (attention.wgsl reads it once per query,
// with one thread per key) and no score leaves the workgroup. head_dim % 32 == 0,
// at most 256; query row r sits at pos0 + r and sees keys 0..=pos0 + r.
//
// Thread t owns query row t / 8 of the tile; within the row, keys t % 8 + 8 i of
// each block (4 scores) and output vec4 slots t % 8 + 8 c (one per 32-wide chunk c
// of head_dim). Shared tiles hold 32-wide chunks padded to 9 vec4s a row, so the
// 8 lanes of a row group read 8 different bank groups. 15.4 KB of shared memory.

struct Params {
    n_heads: u32, n_kv_heads: u32, head_dim: u32, max_seq: u32,
    scale: f32, pad0: u32, pad1: u32, pad2: u32,
}

@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
// Cache words: shaders/lib/kv_*.wgsl.
@group(0) @binding(3) var<storage, read> k_cache: array<KvWord>;
@group(0) @binding(4) var<storage, read> v_cache: array<KvWord>;
@group(0) @binding(5) var<storage, read_write> out: array<vec4<f32>>;

const BQ: u32 = 32u;
const BK: u32 = 32u;
const RS: u32 = 9u;       // vec4 stride of a shared row (8 + 1 pad)
const MAX_CHUNKS: u32 = 8u;
const NEG: f32 = -3.4028235e38;
var<workgroup> qs: array<vec4<f32>, 288>;    // [BQ][RS]: one 32-wide chunk of the query rows
var<workgroup> kv: array<vec4<f32>, 288>;    // [BK][RS]: one chunk of the key block, then of its values
var<workgroup> ps: array<f32, 1056>;         // [BQ][33]: the block's probabilities
var<workgroup> red_max: array<f32, 256>;
var<workgroup> red_sum: array<f32, 256>;

// grid: (n_heads, ceil(n_tokens / 32))
@compute @workgroup_size(256)
fn attention_tiled(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = step.n_tokens;
    let h = wg.x;
    let row0 = wg.y * BQ;
    if (row0 >= n) { return; }
    let t = lid.x;
    let r = t / 8u;
    let cq = t % 8u;
    let hd4 = p.head_dim / 4u;
    let chunks = hd4 / 8u;
    let kvh = h / (p.n_heads / p.n_kv_heads);
    let row = row0 + r;
    // Keys row r sees; a padding row past n_tokens sees key 0 only (never written).
    var len = 1u;
    if (row < n) { len = min(step.pos0 + row + 1u, p.max_seq); }
    let kv_end = min(step.pos0 + min(row0 + BQ, n), p.max_seq);
    let cache_row0 = kvh * p.max_seq;
    // The staging slot of this thread: shared row t / 8, vec4 t % 8 of a chunk.
    let sr = t / 8u;
    let sc = t % 8u;

    var m = NEG;
    var l = 0.0;
    var acc: array<vec4<f32>, MAX_CHUNKS>;
    for (var c = 0u; c < MAX_CHUNKS; c++) { acc[c] = vec4<f32>(0.0); }
    for (var j0 = 0u; j0 < kv_end; j0 += BK) {
        // Scores of keys j0 + cq + 8 i, summed over head_dim chunk by chunk.
        var s = vec4<f32>(0.0);
        for (var c = 0u; c < chunks; c++) {
            var qv = vec4<f32>(0.0);
            if (row0 + sr < n) { qv = q[((row0 + sr) * p.n_heads + h) * hd4 + c * 8u + sc]; }
            qs[sr * RS + sc] = qv;
            var kvv = vec4<f32>(0.0);
            if (j0 + sr < kv_end) { kvv = kv_get(k_cache[(cache_row0 + j0 + sr) * hd4 + c * 8u + sc]); }
            kv[sr * RS + sc] = kvv;
            workgroupBarrier();
            for (var d4 = 0u; d4 < 8u; d4++) {
                let a = qs[r * RS + d4];
                s.x += dot(a, kv[cq * RS + d4]);
                s.y += dot(a, kv[(cq + 8u) * RS + d4]);
                s.z += dot(a, kv[(cq + 16u) * RS + d4]);
                s.w += dot(a, kv[(cq + 24u) * RS + d4]);
            }
            workgroupBarrier();
        }
        // Online softmax over the block: the row's 8 threads reduce through shared memory
        // and each arrives at the same max and sum.
        var sv = s * p.scale;
        for (var i = 0u; i < 4u; i++) {
            if (j0 + cq + 8u * i >= len) { sv[i] = NEG; }
        }
        red_max[t] = max(max(sv.x, sv.y), max(sv.z, sv.w));
        workgroupBarrier();
        var bm = red_max[r * 8u];
        for (var i = 1u; i < 8u; i++) { bm = max(bm, red_max[r * 8u + i]); }
        let m_new = max(m, bm);
        let pr = exp(sv - vec4<f32>(m_new));
        for (var i = 0u; i < 4u; i++) { ps[r * 33u + cq + 8u * i] = pr[i]; }
        red_sum[t] = (pr.x + pr.y) + (pr.z + pr.w);
        workgroupBarrier();
        var bs = 0.0;
        for (var i = 0u; i < 8u; i++) { bs += red_sum[r * 8u + i]; }
        let alpha = exp(m - m_new);
        l = l * alpha + bs;
        m = m_new;
        // acc = acc * alpha + P . V, a 32-wide chunk of V at a time.
        for (var c = 0u; c < MAX_CHUNKS; c++) {
            if (c < chunks) {
                var vv = vec4<f32>(0.0);
                if (j0 + sr < kv_end) { vv = kv_get(v_cache[(cache_row0 + j0 + sr) * hd4 + c * 8u + sc]); }
                kv[sr * RS + sc] = vv;
                workgroupBarrier();
                var o = acc[c] * alpha;
                for (var k = 0u; k < BK; k++) {
                    o += ps[r * 33u + k] * kv[k * RS + cq];
                }
                acc[c] = o;
                workgroupBarrier();
            }
        }
    }
    if (row < n) {
        let base = (row * p.n_heads + h) * hd4;
        for (var c = 0u; c < MAX_CHUNKS; c++) {
            if (c < chunks) { out[base + c * 8u + cq] = acc[c] / l; }
        }
    }
}
