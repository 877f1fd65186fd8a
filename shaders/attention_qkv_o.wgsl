// A decode layer's attention half in one dispatch, one workgroup per q head h:
//   x       = resid + the previous op's partial rows (PARTIALS_IN), or the input row
//   x'      = RMSNorm(x) * g                          (matvec_int4_core.wgsl's prologues)
//   q, k, v = q head h's and kv head kvh's columns of Wq x' (+ b), Wk x', Wv x'
//   attention over the cache (attention_decode_core.wgsl), o_proj's per-word partial rows
// Every number is the unfused plan's: each column is the INT4 matvec core's per-word terms
// (word_dot of x' and one 32-weight word) added in group_sum's order, then the bias, so the
// qkv matvec's dispatch, its launch and the round trip of q / k / v through memory are gone.
// The kv head's columns are computed by each of its q heads.
// Layout: the matvec core gives each column one lane group and each lane one word, so one
// workgroup would take 3 head_dim / 32 serial steps for a head's q / k / v (measured on the
// H200: 43 us for SmolLM2's six). Here every thread takes four words of one column quad, the
// four whose sum is the first two levels of group_sum's tree (partials_tree's d values), and
// the last three levels are added per quad from workgroup memory.
// Measured on the H200 (SmolLM2, context 136): 21.1 us a dispatch, against 7.6 + 10.0 us for
// the two it replaces: the qkv phase runs on n_heads workgroups instead of ~30 (8 us of the 21),
// and attention's cache rows can no longer be requested while q / k / v load. So the pass is
// opt-in (FusionConfig::attention_qkv); it pays where a dispatch costs more than the H200's ~2 us.
// Workgroup 0 writes x for the ops after this one (the MLP's residual).

struct Params {
    n0: u32, n1: u32, n2: u32, k: u32,
    group: u32, flags: u32, eps: f32, n3: u32,
    n_heads: u32, n_kv_heads: u32, head_dim: u32, max_seq: u32,
    scale: f32, rotary_dim: u32, split_cap: u32, qk_eps: f32,
}

// The input row, or with PARTIALS_IN the partial rows.
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> norm_w: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> resid: array<f32>;
@group(0) @binding(5) var<storage, read> wq_q: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> wq_sm: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read> wk_q: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> wk_sm: array<vec2<f32>>;
@group(0) @binding(9) var<storage, read> wv_q: array<vec4<u32>>;
@group(0) @binding(10) var<storage, read> wv_sm: array<vec2<f32>>;
@group(0) @binding(11) var<storage, read> bq: array<f32>;
@group(0) @binding(12) var<storage, read> bk: array<f32>;
@group(0) @binding(13) var<storage, read> bv: array<f32>;
// x with PARTIALS_IN (the sum, for the ops after this one).
@group(0) @binding(14) var<storage, read_write> x_out: array<f32>;
@group(0) @binding(15) var<storage, read> cos_sin: array<vec2<f32>>;
@group(0) @binding(16) var<storage, read> q_norm: array<f32>;
@group(0) @binding(17) var<storage, read> k_norm: array<f32>;
@group(0) @binding(18) var<storage, read_write> k_cache: array<KvWord>;
@group(0) @binding(19) var<storage, read_write> v_cache: array<KvWord>;
@group(0) @binding(20) var<storage, read_write> out: array<f32>;
@group(0) @binding(21) var<storage, read> o_q: array<vec4<u32>>;
@group(0) @binding(22) var<storage, read> o_sm: array<vec2<f32>>;
@group(0) @binding(23) var<storage, read_write> o_part: array<vec4<f32>>;

// K <= 1024: x fits 256 vec4s of workgroup memory (xsum), which keeps this kernel's workgroup
// memory (the matvec core's, the attention's and qkv_d) within 32 KB.
const MAX_K4: u32 = 256u;
const CHUNK: u32 = 512u;
// The attention library's flags in bits 26-27 (the matvec core's use bits 0-25).
fn attn_flags() -> u32 { return (FLAGS >> 26u) & 3u; }
// o_proj: matrix 3, the qkv matrices' scale group, K outputs (the residual's width).
const O_MAT: u32 = 3u;
fn o_group() -> u32 { return dim_group(); }
fn o_quads() -> u32 { return dim_k() / 4u; }

fn load_q(m: u32, i: u32) -> vec4<u32> {
    if (m == 0u) { return wq_q[i]; }
    if (m == 1u) { return wk_q[i]; }
    if (m == 2u) { return wv_q[i]; }
    return o_q[i];
}

fn load_sm(m: u32, i: u32) -> vec2<f32> {
    if (m == 0u) { return wq_sm[i]; }
    if (m == 1u) { return wk_sm[i]; }
    if (m == 2u) { return wv_sm[i]; }
    return o_sm[i];
}

fn norm_weight(i: u32) -> vec4<f32> { return norm_w[i]; }
fn gate_at(i: u32) -> vec4<f32> { return vec4<f32>(0.0); }
fn resid_at(i: u32) -> f32 { return resid[i]; }
// The PARTIALS_IN rows are bound as x (their count in FLAGS).
fn partial_rows() -> u32 { return partials_count(); }
fn partial_at(i: u32) -> vec4<f32> { return x[i]; }

fn bias_at(m: u32, c: u32) -> f32 {
    if (m == 0u) { return bq[c]; }
    if (m == 1u) { return bk[c]; }
    return bv[c];
}

// Only the PARTIALS_IN sum (matrix 3) is stored through the core; q / k / v go to qs / ks / vs.
fn store(m: u32, i: u32, v: f32) {
    if (m == 3u) { x_out[i] = v; }
}

// Where the head's output and the o_proj partial rows go.
fn store_head(i: u32, o: vec4<f32>) {
    out[i] = o.x;
    out[i + 1u] = o.y;
    out[i + 2u] = o.z;
    out[i + 3u] = o.w;
}
fn store_o_part(i: u32, v: vec4<f32>) { o_part[i] = v; }

// The new token's q / k / v lanes, computed by this workgroup.
fn new_q(h: u32, t: u32, row: u32) -> f32 { return qs[t]; }
fn new_k(kvh: u32, t: u32, row: u32) -> f32 { return ks[t]; }
fn new_v(kvh: u32, t: u32, row: u32) -> f32 { return vs[t]; }

// Column quads per round (a head's q, k, v: 3 head_dim / 4 quads) and the d values of a round.
const QUADS: u32 = 48u;
var<workgroup> qkv_d: array<vec4<f32>, 384>;

// The 4-word blocks with a word below K / 32, and the tree group of block n: group g holds lane
// values tree_lane(g + 8 j), j < 4 (words 4 n .. 4 n + 4 where subgroupAdd adds neighbours first).
fn live_blocks() -> u32 {
    if (SUBGROUP_ADD_NEIGHBOURS) { return (dim_k() / 32u + 3u) / 4u; }
    return min(8u, dim_k() / 32u);
}
fn block_group(n: u32) -> u32 {
    if (SUBGROUP_ADD_NEIGHBOURS) { return reverseBits(n) >> 29u; }
    return n;
}

// Quad q (of 3 head_dim / 4: q head h's, then k and v head kvh's): matrix and first column.
fn quad_col(h: u32, kvh: u32, q: u32) -> vec2<u32> {
    let qph = p.head_dim / 4u;
    let m = q / qph;
    var head = h;
    if (m > 0u) { head = kvh; }
    return vec2<u32>(m, head * p.head_dim + (q % qph) * 4u);
}

// Task i of round q0: block n = i / QUADS of quad q0 + i % QUADS (the live blocks of one quad on
// consecutive threads, for fewer cache lines per load, measured slower on the H200: 25.8 us). Its
// tree group's d value goes to qkv_d[slot]; the four words' weights.
struct QkvTask { live: bool, g: u32, slot: u32, c0: Chunk, c1: Chunk, c2: Chunk, c3: Chunk }

fn word_chunk(mc: vec2<u32>, word: u32) -> Chunk {
    var c: Chunk;
    if (word < dim_k() / 32u) { c = quad_words(mc.x, mc.y / 4u, word, dim_k(), dim_group()); }
    return c;
}

fn task_load(h: u32, kvh: u32, q0: u32, i: u32) -> QkvTask {
    var r: QkvTask;
    let n = i / QUADS;
    let q = q0 + i % QUADS;
    r.g = block_group(n);
    r.slot = r.g * QUADS + i % QUADS;
    r.live = n < live_blocks() && q < 3u * p.head_dim / 4u;
    if (!r.live) { return r; }
    let mc = quad_col(h, kvh, q);
    r.c0 = word_chunk(mc, tree_lane(r.g));
    r.c1 = word_chunk(mc, tree_lane(r.g + 8u));
    r.c2 = word_chunk(mc, tree_lane(r.g + 16u));
    r.c3 = word_chunk(mc, tree_lane(r.g + 24u));
    return r;
}

// The plain matvec's lane value for `word`: 0 + word_dot(x', word), or 0 past K.
fn lane_value(word: u32, c: Chunk) -> vec4<f32> {
    var a = vec4<f32>(0.0);
    if (word < dim_k() / 32u) {
        let b = 8u * word;
        a += chunk_dot(xsum[b], xsum[b + 1u], xsum[b + 2u], xsum[b + 3u],
                       xsum[b + 4u], xsum[b + 5u], xsum[b + 6u], xsum[b + 7u], c);
    }
    return a;
}

// d = (L(g) + L(g + 16)) + (L(g + 8) + L(g + 24)) over lanes tree_lane(.): partials_tree's d_g.
fn task_store(r: QkvTask) {
    var d = vec4<f32>(0.0);
    if (r.live) {
        let l0 = lane_value(tree_lane(r.g), r.c0);
        let l1 = lane_value(tree_lane(r.g + 8u), r.c1);
        let l2 = lane_value(tree_lane(r.g + 16u), r.c2);
        let l3 = lane_value(tree_lane(r.g + 24u), r.c3);
        d = (l0 + l2) + (l1 + l3);
    }
    qkv_d[r.slot] = d;
}

// The rest of group_sum's tree for quad q0 + t (t < QUADS) from the round's d values, then the
// biases `b`, into qs / ks / vs.
fn quad_finish(h: u32, kvh: u32, q0: u32, t: u32, b: vec4<f32>) {
    let q = q0 + t;
    if (t >= QUADS || q >= 3u * p.head_dim / 4u) { return; }
    let e0 = qkv_d[t] + qkv_d[4u * QUADS + t];
    let e1 = qkv_d[QUADS + t] + qkv_d[5u * QUADS + t];
    let e2 = qkv_d[2u * QUADS + t] + qkv_d[6u * QUADS + t];
    let e3 = qkv_d[3u * QUADS + t] + qkv_d[7u * QUADS + t];
    var s = (e0 + e2) + (e1 + e3);
    let mc = quad_col(h, kvh, q);
    if (has_bias(mc.x)) { s += b; }
    let i = mc.y % p.head_dim;
    for (var c = 0u; c < 4u; c++) {
        if (mc.x == 0u) { qs[i + c] = s[c]; } else if (mc.x == 1u) { ks[i + c] = s[c]; } else { vs[i + c] = s[c]; }
    }
}

// The biases of quad q0 + t's four columns (zeros without).
fn quad_bias(h: u32, kvh: u32, q0: u32, t: u32) -> vec4<f32> {
    let q = q0 + t;
    if (t >= QUADS || q >= 3u * p.head_dim / 4u) { return vec4<f32>(0.0); }
    let mc = quad_col(h, kvh, q);
    if (!has_bias(mc.x)) { return vec4<f32>(0.0); }
    return vec4<f32>(bias_at(mc.x, mc.y), bias_at(mc.x, mc.y + 1u), bias_at(mc.x, mc.y + 2u), bias_at(mc.x, mc.y + 3u));
}

// grid: (n_heads, 1)
@compute @workgroup_size(256)
fn attention_qkv_o(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    let h = wg.x;
    let kvh = h / (p.n_heads / p.n_kv_heads);
    let pos = step.pos0;
    let kq = dim_k() / 4u;
    // Requested before the prologue: the norm weights, x where it is read, the first biases. The
    // weights, cache rows and o_proj's first tasks are requested where each phase starts: live
    // across the partial-row sum (up to 64 loads a thread in flight) they cost registers, and on
    // the H200 each earlier placement measured slower (SmolLM2 at context 136: all early 42.9 us,
    // all late 21.1 us, per dispatch).
    let bias0 = quad_bias(h, kvh, 0u, t);
    var g = vec4<f32>(0.0);
    var xv = vec4<f32>(0.0);
    if (t < kq) {
        g = norm_w[t];
        if ((FLAGS & PARTIALS_IN) == 0u) { xv = x[t]; }
    }
    normed_x(wg, t, (FLAGS & PARTIALS_IN) != 0u, xv, g);
    // Rounds of QUADS quads (head_dim 64: one), 8 QUADS tasks each over the 256 threads.
    for (var q0 = 0u; q0 < 3u * p.head_dim / 4u; q0 += QUADS) {
        var b = bias0;
        if (q0 > 0u) { b = quad_bias(h, kvh, q0, t); }
        for (var i = t; i < 8u * QUADS; i += WG) { task_store(task_load(h, kvh, q0, i)); }
        workgroupBarrier();
        quad_finish(h, kvh, q0, t, b);
        workgroupBarrier();
    }
    let opf = o_prefetch(h, t);
    let span = full_span(pos);
    let ml = attend(h, t, 0u, 0u, pos, span, attend_prefetch(h, t, 0u, pos, span));
    attend_finish(h, t, 0u, ml.y);
    workgroupBarrier();
    o_partials(h, t, opf);
}
