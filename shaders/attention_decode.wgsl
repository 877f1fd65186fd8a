// Decode attention for one new token, fused with what feeds it:
//   optional per-head RMSNorm of q and k (Qwen3 q_norm / k_norm), rotary
//   embedding of q and k at position pos0, the K/V cache append, and causal
//   attention over positions 0..=pos0.
// Workgroup (head h) works on kv head kvh = h / (n_heads / n_kv_heads). Every
// workgroup of a kv group computes the new k/v itself (a few hundred FLOPs) and
// uses it for position pos0 directly, so no workgroup waits for another's cache
// write; the group's first head writes the cache for later steps.

struct Params {
    n_heads: u32, n_kv_heads: u32, head_dim: u32, max_seq: u32,
    scale: f32, rotary_dim: u32, flags: u32, eps: f32,
}
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k: array<f32>;
@group(0) @binding(4) var<storage, read> v: array<f32>;
@group(0) @binding(5) var<storage, read> cos_sin: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read> q_norm: array<f32>;
@group(0) @binding(7) var<storage, read> k_norm: array<f32>;
@group(0) @binding(8) var<storage, read_write> k_cache: array<f32>;
@group(0) @binding(9) var<storage, read_write> v_cache: array<f32>;
@group(0) @binding(10) var<storage, read_write> out: array<f32>;

// reduce_max / reduce_sum (t, x) come from a prelude chosen per adapter:
// shaders/lib/wg_reduce_subgroup.wgsl or wg_reduce_shared.wgsl.

// Flag bits, compiled in as a pipeline constant (the same bits are in p.flags).
override FLAGS: u32 = 0u;
const QK_NORM: u32 = 1u;
const INTERLEAVED: u32 = 2u;
const WG: u32 = 256u;
const NEG: f32 = -3.4028235e38;
var<workgroup> qs: array<f32, 256>;
var<workgroup> ks: array<f32, 256>;
var<workgroup> vs: array<f32, 256>;
var<workgroup> tmp: array<f32, 256>;
var<workgroup> probs: array<f32, 256>;
// One tile of keys (then of values): TILE_F / head_dim positions, rows padded
// to head_dim + 1 floats so the per-key dot products (thread = key) hit
// distinct shared-memory banks.
const TILE_F: u32 = 2048u;
var<workgroup> kt: array<f32, 2304>;

// tmp holds one head vector; optional RMSNorm with `is_q` choosing the weight,
// then rope at `pos`; the result is returned for lane t (t < head_dim).
fn norm_rope(t: u32, is_q: bool, pos: u32) -> f32 {
    let hd = p.head_dim;
    var x = 0.0;
    if (t < hd) { x = tmp[t]; }
    if ((FLAGS & QK_NORM) != 0u) {
        let inv = inverseSqrt(reduce_sum(t, x * x) / f32(hd) + p.eps);
        if (t < hd) {
            var g: f32;
            if (is_q) { g = q_norm[t]; } else { g = k_norm[t]; }
            x = (x * inv) * g;
        }
    }
    workgroupBarrier();
    if (t < hd) { tmp[t] = x; }
    workgroupBarrier();
    let half = p.rotary_dim / 2u;
    var y = x;
    if (t < p.rotary_dim) {
        var i: u32; var partner: u32; var first: bool;
        if ((FLAGS & INTERLEAVED) != 0u) {
            i = t / 2u; first = (t % 2u) == 0u;
            if (first) { partner = t + 1u; } else { partner = t - 1u; }
        } else {
            first = t < half;
            if (first) { i = t; partner = t + half; } else { i = t - half; partner = t - half; }
        }
        let cs = cos_sin[pos * half + i];
        let o = tmp[partner];
        if (first) { y = x * cs.x - o * cs.y; } else { y = x * cs.x + o * cs.y; }
    }
    workgroupBarrier();
    return y;
}

// grid: (n_heads, 1)
@compute @workgroup_size(256)
fn attention_decode(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    attend(wg.x, lid.x, 0u, 0u, step.pos0);
}

// Batched decode: row r (grid y) of q/k/v/out belongs to the sequence in KV
// slot rows[2r] at position rows[2r + 1]. The caches hold one
// [n_kv_heads, max_seq, head_dim] region per slot, so every row reads and
// appends to its own sequence.
@group(0) @binding(11) var<storage, read> rows: array<u32>;
var<workgroup> row_slot: u32;
var<workgroup> row_pos: u32;

// grid: (n_heads, rows)
@compute @workgroup_size(256)
fn attention_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    // The grid has exactly the step's rows; the check also keeps the Step binding in the layout.
    if (wg.y >= step.n_tokens) { return; }
    if (lid.x == 0u) {
        row_slot = rows[2u * wg.y];
        row_pos = rows[2u * wg.y + 1u];
    }
    // Loop bounds and barriers depend on the position: load it as a
    // workgroup-uniform value.
    let slot = workgroupUniformLoad(&row_slot);
    let pos = workgroupUniformLoad(&row_pos);
    attend(wg.x, lid.x, wg.y, slot, pos);
}

// Head h of activation row `row`, whose sequence lives in cache slot `slot`
// and whose new token sits at `pos`.
fn attend(h: u32, t: u32, row: u32, slot: u32, pos: u32) {
    let hd = p.head_dim;
    let kvh = h / (p.n_heads / p.n_kv_heads);
    let qrow = row * p.n_heads * hd;
    let kvrow = row * p.n_kv_heads * hd;
    if (t < hd) { tmp[t] = q[qrow + h * hd + t]; }
    workgroupBarrier();
    let qv = norm_rope(t, true, pos);
    if (t < hd) { qs[t] = qv; tmp[t] = k[kvrow + kvh * hd + t]; }
    workgroupBarrier();
    let kv = norm_rope(t, false, pos);
    if (t < hd) {
        ks[t] = kv;
        vs[t] = v[kvrow + kvh * hd + t];
    }
    let cache_base = (slot * p.n_kv_heads + kvh) * p.max_seq * hd;
    if (h % (p.n_heads / p.n_kv_heads) == 0u && t < hd && pos < p.max_seq) {
        k_cache[cache_base + pos * hd + t] = kv;
        v_cache[cache_base + pos * hd + t] = vs[t];
    }
    workgroupBarrier();
    // Keys and values of positions < pos stream through shared memory in tiles
    // of TILE_F floats: the tile is contiguous in the cache, so all 256 threads
    // load it coalesced and independently, and the per-key dot products then
    // read shared memory instead of chasing strided global loads.
    let len = min(pos + 1u, p.max_seq);
    let tile = min(TILE_F / hd, WG);
    let hs = hd + 1u;
    var m = NEG;
    var l = 0.0;
    var acc = 0.0;
    for (var j0 = 0u; j0 < len; j0 += tile) {
        let cnt = min(tile, len - j0);
        for (var i = t; i < cnt * hd; i += WG) {
            let j = j0 + i / hd;
            let si = (i / hd) * hs + i % hd;
            if (j == pos) { kt[si] = ks[i % hd]; } else { kt[si] = k_cache[cache_base + j0 * hd + i]; }
        }
        workgroupBarrier();
        var s = NEG;
        if (t < cnt) {
            var d = 0.0;
            for (var i = 0u; i < hd; i++) { d += qs[i] * kt[t * hs + i]; }
            s = d * p.scale;
        }
        let m_new = max(m, reduce_max(t, s));
        var pr = 0.0;
        if (t < cnt) { pr = exp(s - m_new); }
        probs[t] = pr;
        let alpha = exp(m - m_new);
        l = l * alpha + reduce_sum(t, pr);
        for (var i = t; i < cnt * hd; i += WG) {
            let j = j0 + i / hd;
            let si = (i / hd) * hs + i % hd;
            if (j == pos) { kt[si] = vs[i % hd]; } else { kt[si] = v_cache[cache_base + j0 * hd + i]; }
        }
        workgroupBarrier();
        if (t < hd) {
            var a = acc * alpha;
            for (var jj = 0u; jj < cnt; jj++) { a += probs[jj] * kt[jj * hs + t]; }
            acc = a;
        }
        m = m_new;
        workgroupBarrier();
    }
    if (t < hd) { out[qrow + h * hd + t] = acc / l; }
}
