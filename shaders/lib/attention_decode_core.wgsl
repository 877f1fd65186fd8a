// Decode attention for one new token, shared by attention_decode.wgsl (q / k / v from
// the previous dispatch) and attention_qkv_o.wgsl (q / k / v computed in the same
// workgroup): optional per-head RMSNorm of q and k (Qwen3 q_norm / k_norm), rotary
// embedding of q and k at position pos, the K/V cache append, causal attention over
// positions 0..=pos, and optionally this head's per-word partial rows of o_proj.
// With PREPARED the feeding ops ran as their own dispatches (the unfused decode
// graph): q is final and position pos is already in the cache. The attention
// arithmetic is the same in every mode, so fused and unfused decode agree to
// the rounding of the separate norm / rope kernels.
// Workgroup (head h) works on kv head kvh = h / (n_heads / n_kv_heads). Every
// workgroup of a kv group computes the new k/v itself and uses it for position pos
// directly, so no workgroup waits for another's cache write; the group's first head
// writes the cache for later steps.
//
// The kernel file declares: Params `p` with n_heads, n_kv_heads, head_dim, max_seq,
// scale, rotary_dim, qk_eps; the bindings cos_sin, q_norm, k_norm, k_cache, v_cache (arrays of
// KvWord: shaders/lib/kv_*.wgsl);
// the consts WG (256), CHUNK and O_MAT; and the hooks
//   store_head(i, o)                         the head's output o (4 floats) at out[i ..]
//   store_o_part(i, v)                       o_partials' vec4 i
//   attn_flags() -> u32                      QK_NORM | INTERLEAVED | PREPARED
//   new_q(h, t, row), new_k(kvh, t, row), new_v(kvh, t, row) -> f32
//                                            lane t of the new token's q head h / k, v head kvh
//   o_group() -> u32, o_quads() -> u32       o_proj's scale group and outputs / 4
//   load_q(m, i), load_sm(m, i)              o_proj is matrix O_MAT (int4_word.wgsl's hooks)
// reduce_max / reduce_sum (t, x) come from a prelude chosen per adapter:
// shaders/lib/wg_reduce_subgroup.wgsl or wg_reduce_shared.wgsl.

const QK_NORM: u32 = 1u;
const INTERLEAVED: u32 = 2u;
const PREPARED: u32 = 4u;

const NEG: f32 = -3.4028235e38;
var<workgroup> qs: array<f32, 256>;
var<workgroup> ks: array<f32, 256>;
var<workgroup> vs: array<f32, 256>;
// The new token's q and k lanes (x: q, y: k), for rope's partner lanes.
var<workgroup> qk_pair: array<vec2<f32>, 256>;
// Positions are taken CHUNK at a time (a const of the kernel file): scores, then probabilities, of one chunk.
var<workgroup> probs: array<f32, CHUNK>;
// Per-thread partial outputs (vec4 column, key slice) combined at the end.
var<workgroup> slice_acc: array<vec4<f32>, 256>;
// This head's output (attention_decode_o multiplies it into o_proj).
var<workgroup> head_out: array<vec4<f32>, 64>;

// The q_norm / k_norm sums in rmsnorm.wgsl's tree order on every adapter, so fused and
// unfused decode agree to the bit (reduce_sum's order depends on the adapter's subgroups);
// q's in x, k's in y, one tree for both (each component adds in the scalar tree's order).
var<workgroup> norm_red: array<vec2<f32>, 256>;

fn tree_sum2(t: u32, x: vec2<f32>) -> vec2<f32> {
    norm_red[t] = x;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (t < s) { norm_red[t] += norm_red[t + s]; }
        workgroupBarrier();
    }
    return norm_red[0];
}

// Lane t's rotary pair: (cos, sin) at `pos` (loaded once for q and k, with them).
fn rope_cs(t: u32, pos: u32) -> vec2<f32> {
    if (t >= p.rotary_dim) { return vec2<f32>(1.0, 0.0); }
    let half = p.rotary_dim / 2u;
    var i = t;
    if ((attn_flags() & INTERLEAVED) != 0u) { i = t / 2u; } else if (t >= half) { i = t - half; }
    return cos_sin[pos * half + i];
}

// Lane t (< head_dim) of the new token's q (x) and k (y) head vectors: optional RMSNorm
// (weights g: q_norm[t], k_norm[t]), then rope with lane t's pair `cs`, both vectors at once
// (the rmsnorm and rope kernels' arithmetic per vector).
fn norm_rope_qk(t: u32, qk_in: vec2<f32>, g: vec2<f32>, cs: vec2<f32>) -> vec2<f32> {
    let hd = p.head_dim;
    var x = qk_in;
    if ((attn_flags() & QK_NORM) != 0u) {
        let inv = inverseSqrt(tree_sum2(t, x * x) / f32(hd) + vec2<f32>(p.qk_eps));
        x = (x * inv) * g;
    }
    if (t < hd) { qk_pair[t] = x; }
    workgroupBarrier();
    let half = p.rotary_dim / 2u;
    var y = x;
    if (t < p.rotary_dim) {
        var partner: u32; var first: bool;
        if ((attn_flags() & INTERLEAVED) != 0u) {
            first = (t % 2u) == 0u;
            if (first) { partner = t + 1u; } else { partner = t - 1u; }
        } else {
            first = t < half;
            if (first) { partner = t + half; } else { partner = t - half; }
        }
        let o = qk_pair[partner];
        if (first) { y = x * cs.x - o * cs.y; } else { y = x * cs.x + o * cs.y; }
    }
    return y;
}

fn q4(i: u32) -> vec4<f32> {
    return vec4<f32>(qs[4u * i], qs[4u * i + 1u], qs[4u * i + 2u], qs[4u * i + 3u]);
}

// Value row j's vec4 column c: the new token's from vs, the others from the cache.
fn value_at(j: u32, pos: u32, c: u32, s: KvSeq) -> vec4<f32> {
    if (j == pos) { return new_value(c); }
    return kv_get(v_cache[kv_at(s, j) + c]);
}

// value_at as a cache word, converted where it is used (the new token's values are kv_round's, so
// packing them back is exact).
fn value_word_at(j: u32, pos: u32, c: u32, s: KvSeq) -> KvWord {
    if (j == pos) { return kv_put(new_value(c)); }
    return v_cache[kv_at(s, j) + c];
}

// Prefetched cache rows (see AttnPrefetch), as the cache's words: a packed word is converted where it
// is used, so the loads at kernel start are not waited for there (a conversion is a use).
const PREFETCH_HD4: u32 = 16u;
struct KeyRow {
    k0: KvWord, k1: KvWord, k2: KvWord, k3: KvWord, k4: KvWord, k5: KvWord, k6: KvWord, k7: KvWord,
    k8: KvWord, k9: KvWord, k10: KvWord, k11: KvWord, k12: KvWord, k13: KvWord, k14: KvWord, k15: KvWord,
}
struct ValueRows {
    v0: KvWord, v1: KvWord, v2: KvWord, v3: KvWord, v4: KvWord, v5: KvWord, v6: KvWord, v7: KvWord,
}

// Key row at vec4 index `at` (hd4 <= PREFETCH_HD4 vec4s).
fn load_key_row(at: u32, hd4: u32) -> KeyRow {
    var r: KeyRow;
    if (hd4 > 0u) { r.k0 = k_cache[at + 0u]; }
    if (hd4 > 1u) { r.k1 = k_cache[at + 1u]; }
    if (hd4 > 2u) { r.k2 = k_cache[at + 2u]; }
    if (hd4 > 3u) { r.k3 = k_cache[at + 3u]; }
    if (hd4 > 4u) { r.k4 = k_cache[at + 4u]; }
    if (hd4 > 5u) { r.k5 = k_cache[at + 5u]; }
    if (hd4 > 6u) { r.k6 = k_cache[at + 6u]; }
    if (hd4 > 7u) { r.k7 = k_cache[at + 7u]; }
    if (hd4 > 8u) { r.k8 = k_cache[at + 8u]; }
    if (hd4 > 9u) { r.k9 = k_cache[at + 9u]; }
    if (hd4 > 10u) { r.k10 = k_cache[at + 10u]; }
    if (hd4 > 11u) { r.k11 = k_cache[at + 11u]; }
    if (hd4 > 12u) { r.k12 = k_cache[at + 12u]; }
    if (hd4 > 13u) { r.k13 = k_cache[at + 13u]; }
    if (hd4 > 14u) { r.k14 = k_cache[at + 14u]; }
    if (hd4 > 15u) { r.k15 = k_cache[at + 15u]; }
    return r;
}

// The scores loop's dot of q with a prefetched key row (the same order of adds).
fn key_row_dot(r: KeyRow, hd4: u32) -> f32 {
    var d = 0.0;
    if (hd4 > 0u) { d += dot(q4(0u), kv_get(r.k0)); }
    if (hd4 > 1u) { d += dot(q4(1u), kv_get(r.k1)); }
    if (hd4 > 2u) { d += dot(q4(2u), kv_get(r.k2)); }
    if (hd4 > 3u) { d += dot(q4(3u), kv_get(r.k3)); }
    if (hd4 > 4u) { d += dot(q4(4u), kv_get(r.k4)); }
    if (hd4 > 5u) { d += dot(q4(5u), kv_get(r.k5)); }
    if (hd4 > 6u) { d += dot(q4(6u), kv_get(r.k6)); }
    if (hd4 > 7u) { d += dot(q4(7u), kv_get(r.k7)); }
    if (hd4 > 8u) { d += dot(q4(8u), kv_get(r.k8)); }
    if (hd4 > 9u) { d += dot(q4(9u), kv_get(r.k9)); }
    if (hd4 > 10u) { d += dot(q4(10u), kv_get(r.k10)); }
    if (hd4 > 11u) { d += dot(q4(11u), kv_get(r.k11)); }
    if (hd4 > 12u) { d += dot(q4(12u), kv_get(r.k12)); }
    if (hd4 > 13u) { d += dot(q4(13u), kv_get(r.k13)); }
    if (hd4 > 14u) { d += dot(q4(14u), kv_get(r.k14)); }
    if (hd4 > 15u) { d += dot(q4(15u), kv_get(r.k15)); }
    return d;
}

// The new token's value vec4 column c (from vs: its cache row may not be written yet).
fn new_value(c: u32) -> vec4<f32> {
    return vec4<f32>(vs[4u * c], vs[4u * c + 1u], vs[4u * c + 2u], vs[4u * c + 3u]);
}

// Cached value word c of position j, or zeros where j is past len or the new token's.
fn cached_value(s: KvSeq, c: u32, j: u32, len: u32, pos: u32) -> KvWord {
    if (j < len && j != pos) { return v_cache[kv_at(s, j) + c]; }
    return KvWord();
}

// Value vec4 column c of the slice's first eight positions j = sl + i * slices.
fn load_value_rows(s: KvSeq, c: u32, sl: u32, slices: u32, len: u32, pos: u32) -> ValueRows {
    return ValueRows(
        cached_value(s, c, sl, len, pos),
        cached_value(s, c, sl + slices, len, pos),
        cached_value(s, c, sl + 2u * slices, len, pos),
        cached_value(s, c, sl + 3u * slices, len, pos),
        cached_value(s, c, sl + 4u * slices, len, pos),
        cached_value(s, c, sl + 5u * slices, len, pos),
        cached_value(s, c, sl + 6u * slices, len, pos),
        cached_value(s, c, sl + 7u * slices, len, pos));
}

// Value i of the prefetched rows, or the new token's at position pos.
fn value_pref(r: ValueRows, i: u32, j: u32, pos: u32, c: u32) -> vec4<f32> {
    if (j == pos) { return new_value(c); }
    switch i {
        case 0u: { return kv_get(r.v0); }
        case 1u: { return kv_get(r.v1); }
        case 2u: { return kv_get(r.v2); }
        case 3u: { return kv_get(r.v3); }
        case 4u: { return kv_get(r.v4); }
        case 5u: { return kv_get(r.v5); }
        case 6u: { return kv_get(r.v6); }
        default: { return kv_get(r.v7); }
    }
}

// What attend reads that does not depend on this step's q / k / v, requested when the kernel
// starts: the cache rows a thread reads first (their memory round trips overlap whatever
// precedes the attention instead of following it: decode attention is a chain of round
// trips): the key row of the thread's first position (head_dim <= 64: 16 vec4s) and the
// value vec4s of the first eight positions of its key slice, used in the loops' own order of
// adds (no bit changes); and lane t's rotary pair and q / k norm weights.
struct AttnPrefetch { kp: KeyRow, vp: ValueRows, cs: vec2<f32>, g: vec2<f32> }

// Where head h's kv head keeps the sequence in cache slot `slot`: a region of max_seq rows per
// (slot, kv head) (base4: its first word), or blocks of a pool found through the block table
// (KV_PAGED: shaders/lib/kv_pages.wgsl's prelude, from gpu/kv_pages.rs).
struct KvSeq { base4: u32, slot: u32, kvh: u32 }

fn kv_seq(h: u32, slot: u32) -> KvSeq {
    let kvh = h / (p.n_heads / p.n_kv_heads);
    return KvSeq((slot * p.n_kv_heads + kvh) * p.max_seq * (p.head_dim / 4u), slot, kvh);
}

// The first word of position j's row.
fn kv_at(s: KvSeq, j: u32) -> u32 {
    if (KV_PAGED) { return kv_row_paged(s.slot, s.kvh, j, p.head_dim / 4u); }
    return s.base4 + j * (p.head_dim / 4u);
}

// The positions [begin, end) one workgroup attends over: all of them (0 .. min(pos + 1, max_seq)),
// or one split of them (attention_decode.wgsl's flash-decoding splits).
struct Span { begin: u32, end: u32 }

fn full_span(pos: u32) -> Span { return Span(0u, min(pos + 1u, p.max_seq)); }

// Whether thread t's key (position span.begin + t) comes from the rows loaded at kernel start.
fn key_prefetched(t: u32, pos: u32, span: Span) -> bool {
    return p.head_dim / 4u <= PREFETCH_HD4 && t < span.end - span.begin && span.begin + t != pos;
}

fn attend_prefetch(h: u32, t: u32, slot: u32, pos: u32, span: Span) -> AttnPrefetch {
    let hd4 = p.head_dim / 4u;
    let slices = WG / hd4;
    let sl = t / hd4;
    let s = kv_seq(h, slot);
    var pf: AttnPrefetch;
    if (key_prefetched(t, pos, span)) { pf.kp = load_key_row(kv_at(s, span.begin + t), hd4); }
    if (sl < slices) { pf.vp = load_value_rows(s, t % hd4, span.begin + sl, slices, span.end, pos); }
    pf.g = vec2<f32>(1.0);
    pf.cs = vec2<f32>(1.0, 0.0);
    if ((attn_flags() & PREPARED) == 0u) {
        pf.cs = rope_cs(t, pos);
        if ((attn_flags() & QK_NORM) != 0u && t < p.head_dim) { pf.g = vec2<f32>(q_norm[t], k_norm[t]); }
    }
    return pf;
}

// Head h of activation row `row`, whose sequence lives in cache slot `slot`
// and whose new token sits at `pos`, over the positions of `span`; `pf` is
// attend_prefetch(h, t, slot, pos, span). Leaves the span's unnormalised output
// (sum of p_j v_j with p_j = exp(score_j - m)) in head_out and returns (m, l = sum of p_j):
// attend_finish divides, attention_decode.wgsl's splits combine first.
fn attend(h: u32, t: u32, row: u32, slot: u32, pos: u32, span: Span, pf: AttnPrefetch) -> vec2<f32> {
    let hd = p.head_dim;
    let kvh = h / (p.n_heads / p.n_kv_heads);
    let s = kv_seq(h, slot);
    let len = min(pos + 1u, p.max_seq);
    let hd4 = hd / 4u;
    let slices = WG / hd4;
    let c = t % hd4;
    let sl = t / hd4;
    let key_pref = key_prefetched(t, pos, span);
    let kp = pf.kp;
    let vp = pf.vp;
    if ((attn_flags() & PREPARED) != 0u) {
        if (t < hd) {
            qs[t] = new_q(h, t, row);
            let at = kv_at(s, min(pos, p.max_seq - 1u)) + t / 4u;
            ks[t] = kv_get(k_cache[at])[t % 4u];
            vs[t] = kv_get(v_cache[at])[t % 4u];
        }
    } else {
        var qk_in = vec2<f32>(0.0);
        var vin = 0.0;
        if (t < hd) {
            qk_in = vec2<f32>(new_q(h, t, row), new_k(kvh, t, row));
            vin = new_v(kvh, t, row);
        }
        let qk = norm_rope_qk(t, qk_in, pf.g, pf.cs);
        if (t < hd) {
            qs[t] = qk.x;
            // As the cache holds them (kv_round), so this step and later ones read the same values.
            ks[t] = kv_round(qk.y);
            vs[t] = kv_round(vin);
        }
    }
    workgroupBarrier();
    // One workgroup writes the new position's cache rows, a word per thread: the group's first head,
    // in the span that holds pos.
    if ((attn_flags() & PREPARED) == 0u && h % (p.n_heads / p.n_kv_heads) == 0u && t < hd4 && pos < p.max_seq
        && span.end == len) {
        k_cache[kv_at(s, pos) + t] = kv_put(vec4<f32>(ks[4u * t], ks[4u * t + 1u], ks[4u * t + 2u], ks[4u * t + 3u]));
        v_cache[kv_at(s, pos) + t] = kv_put(new_value(t));
    }
    // Each chunk of positions in three phases, with no per-key barrier:
    //   scores: thread t takes keys t, t + 256, ...: a dot product of head_dim / 4
    //     independent vec4 loads (many loads in flight: the kernel is latency-bound,
    //     with one workgroup per head);
    //   softmax: one max and one sum over the workgroup, online across chunks;
    //   values: thread t = (vec4 column c, key slice sl) accumulates its column over
    //     the slice's keys (a key's row is read by consecutive threads: coalesced);
    // then the slices' partial outputs are summed through workgroup memory.
    // The new token (position pos) uses ks / vs directly: its cache row may be
    // written by another workgroup of the kv group during this dispatch.
    var m = NEG;
    var l = 0.0;
    var acc = vec4<f32>(0.0);
    for (var c0 = span.begin; c0 < span.end; c0 += CHUNK) {
        let cnt = min(CHUNK, span.end - c0);
        var smax = NEG;
        for (var jj = t; jj < cnt; jj += WG) {
            let j = c0 + jj;
            var d = 0.0;
            if (c0 == span.begin && jj == t && key_pref) {
                d = key_row_dot(kp, hd4);
            } else if (j == pos) {
                // The same vec4 grouping as a cache row, so both modes round alike.
                for (var i = 0u; i < hd4; i++) {
                    d += dot(q4(i), vec4<f32>(ks[4u * i], ks[4u * i + 1u], ks[4u * i + 2u], ks[4u * i + 3u]));
                }
            } else {
                let row = kv_at(s, j);
                // Eight cache loads requested before any is used (the same sum order as below):
                // at long contexts the kernel waits on memory round trips, not arithmetic.
                var i = 0u;
                for (; i + 8u <= hd4; i += 8u) {
                    let k0 = k_cache[row + i];
                    let k1 = k_cache[row + i + 1u];
                    let k2 = k_cache[row + i + 2u];
                    let k3 = k_cache[row + i + 3u];
                    let k4 = k_cache[row + i + 4u];
                    let k5 = k_cache[row + i + 5u];
                    let k6 = k_cache[row + i + 6u];
                    let k7 = k_cache[row + i + 7u];
                    d += dot(q4(i), kv_get(k0));
                    d += dot(q4(i + 1u), kv_get(k1));
                    d += dot(q4(i + 2u), kv_get(k2));
                    d += dot(q4(i + 3u), kv_get(k3));
                    d += dot(q4(i + 4u), kv_get(k4));
                    d += dot(q4(i + 5u), kv_get(k5));
                    d += dot(q4(i + 6u), kv_get(k6));
                    d += dot(q4(i + 7u), kv_get(k7));
                }
                for (; i < hd4; i++) { d += dot(q4(i), kv_get(k_cache[row + i])); }
            }
            let sc = d * p.scale;
            probs[jj] = sc;
            smax = max(smax, sc);
        }
        let m_new = max(m, reduce_max(t, smax));
        var psum = 0.0;
        for (var jj = t; jj < cnt; jj += WG) {
            let e = exp(probs[jj] - m_new);
            probs[jj] = e;
            psum += e;
        }
        let alpha = exp(m - m_new);
        // reduce_sum's barriers also publish every thread's probabilities.
        l = l * alpha + reduce_sum(t, psum);
        if (sl < slices) {
            var a = acc * alpha;
            var jj = sl;
            if (c0 == span.begin) {
                // The slice's first eight positions from the prefetched rows.
                for (var i = 0u; i < 8u; i++) {
                    if (jj < cnt) { a += probs[jj] * value_pref(vp, i, c0 + jj, pos, c); }
                    jj += slices;
                }
            }
            // Eight value rows requested before any is used.
            for (; jj + 7u * slices < cnt; jj += 8u * slices) {
                let v0 = value_word_at(c0 + jj, pos, c, s);
                let v1 = value_word_at(c0 + jj + slices, pos, c, s);
                let v2 = value_word_at(c0 + jj + 2u * slices, pos, c, s);
                let v3 = value_word_at(c0 + jj + 3u * slices, pos, c, s);
                let v4 = value_word_at(c0 + jj + 4u * slices, pos, c, s);
                let v5 = value_word_at(c0 + jj + 5u * slices, pos, c, s);
                let v6 = value_word_at(c0 + jj + 6u * slices, pos, c, s);
                let v7 = value_word_at(c0 + jj + 7u * slices, pos, c, s);
                a += probs[jj] * kv_get(v0);
                a += probs[jj + slices] * kv_get(v1);
                a += probs[jj + 2u * slices] * kv_get(v2);
                a += probs[jj + 3u * slices] * kv_get(v3);
                a += probs[jj + 4u * slices] * kv_get(v4);
                a += probs[jj + 5u * slices] * kv_get(v5);
                a += probs[jj + 6u * slices] * kv_get(v6);
                a += probs[jj + 7u * slices] * kv_get(v7);
            }
            for (; jj < cnt; jj += slices) { a += probs[jj] * value_at(c0 + jj, pos, c, s); }
            acc = a;
        }
        m = m_new;
        workgroupBarrier();
    }
    if (sl < slices) { slice_acc[t] = acc; } else { slice_acc[t] = vec4<f32>(0.0); }
    workgroupBarrier();
    if (t < hd4) {
        var o = vec4<f32>(0.0);
        for (var i = 0u; i < slices; i++) { o += slice_acc[i * hd4 + t]; }
        head_out[t] = o;
    }
    return vec2<f32>(m, l);
}

// Lane t (< head_dim / 4) of head h's final output o: into head_out (o_partials reads it) and out.
fn write_head(h: u32, t: u32, row: u32, o: vec4<f32>) {
    head_out[t] = o;
    store_head(row * p.n_heads * p.head_dim + h * p.head_dim + 4u * t, o);
}

// The output of an attend over every position: its sum over l (the same thread that summed it).
fn attend_finish(h: u32, t: u32, row: u32, l: f32) {
    if (t < p.head_dim / 4u) { write_head(h, t, row, head_out[t] / l); }
}


// This head's slice of o_proj after the attention: o_proj's K is the heads' outputs side by
// side, so head h owns its words h * hd / 32 .. (h + 1) * hd / 32, and
//   o_part[word][quad] = word_dot(head output, o_proj columns 4 quad .. 4 quad + 4 at word)
// for every output column quad: one word of o_proj's K per row, which the next matvec's
// PARTIALS_IN prologue adds to the residual in the plain matvec's order. The o_proj
// matvec then costs no dispatch of its own.

// Columns 4 quad .. 4 quad + 4 of o_proj at word `word` of its K.
fn o_words(quad: u32, word: u32) -> Chunk {
    return quad_words(O_MAT, quad, word, p.n_heads * p.head_dim, o_group());
}

// Task i of a head: word i % (hd / 32) of column quad i / (hd / 32), so neighbouring threads
// read neighbouring words of one column. A thread's first two tasks' weights are requested
// before the attention, so their latency hides in it (SmolLM2: 288 tasks on 256 threads).
struct OPrefetch { first: Chunk, second: Chunk }

fn o_prefetch(h: u32, t: u32) -> OPrefetch {
    let wph = p.head_dim / 32u;
    let tasks = wph * o_quads();
    var r: OPrefetch;
    if (t < tasks) { r.first = o_words(t / wph, h * wph + t % wph); }
    if (t + WG < tasks) { r.second = o_words((t + WG) / wph, h * wph + (t + WG) % wph); }
    return r;
}

// After attend and a barrier (head_out complete).
fn o_partials(h: u32, t: u32, pf: OPrefetch) {
    let wph = p.head_dim / 32u;
    let tasks = wph * o_quads();
    for (var i = t; i < tasks; i += WG) {
        let quad = i / wph;
        let w = i % wph;
        var c = pf.first;
        if (i == t + WG) { c = pf.second; } else if (i != t) { c = o_words(quad, h * wph + w); }
        let x = 8u * w;
        store_o_part((h * wph + w) * o_quads() + quad, chunk_dot(
            head_out[x], head_out[x + 1u], head_out[x + 2u], head_out[x + 3u],
            head_out[x + 4u], head_out[x + 5u], head_out[x + 6u], head_out[x + 7u], c));
    }
}
