// A dense decoder layer's decode step (one token) in one dispatch: three phases, each ended by a
// barrier over the whole grid instead of a dispatch boundary.
//   1. q / k / v, on workgroups < qkv_wgs: x = resid + the previous layer's down-projection
//      partial rows (or the input row), x' = RMSNorm(x) * g, the q | k | v columns (+ biases).
//      Workgroup w computes columns 32 w .. 32 w + 32 of the three side by side, in the matvec
//      core's layout (lane = word, group_sum, then the bias), so the bits are the FusedMatvec's.
//   2. attention + o_proj partial rows, on the last heads x splits workgroups: attention_decode_o's
//      body (attention_decode_core.wgsl, attention_split.wgsl), reading q / k / v from phase 1.
//   3. the MLP, on workgroups < mlp_wgs: matvec_mlp_int4.wgsl's body on h = x + the o_proj rows.
// q / k / v, the o_proj partial rows and h never leave this dispatch, so they live in the split
// scratch (its `stash`, past the split records) or, for h, in the one buffer bound read_write.
// A grid barrier costs ~1 us on the H200 where a dependent dispatch costs ~2 us, and a workgroup
// requests the next phase's weights and cache rows before it waits (BENCHMARKS.md).
// Every workgroup must be resident at once and the barrier must order memory across workgroups,
// which neither Vulkan nor WGSL promises: the pass runs only where gpu/grid_probe.rs found both on
// the adapter (the H200 passes; Mesa 22.3's lavapipe does not) and where this pipeline's largest
// grid proved resident (graph/residency.rs, through `step.probe`). Opt-in (FusionConfig::decode_layer).
// grid: (max(qkv_wgs, mlp_wgs) + n_heads x splits, 1) where that fits in 128 workgroups, else
// (max(qkv_wgs, mlp_wgs, n_heads x splits), 1) (graph/dispatch.rs, Dim::LayerGrid). Apart, the
// attention workgroups run no MLP, and every MLP workgroup requests its weights before the first
// barrier: SmolLM2 on the H200 went from 1104-1273 tok/s (two modes, run to run) to 1361-1462.

struct Params {
    n0: u32, n1: u32, n2: u32, k: u32,
    group: u32, flags: u32, eps: f32, n3: u32,
    n_heads: u32, n_kv_heads: u32, head_dim: u32, max_seq: u32,
    scale: f32, rotary_dim: u32, split_cap: u32, qk_eps: f32,
}

// Phase 1's partial rows [P, k], P in FLAGS (dummy where the layer's input is a plain row).
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> norm1: array<vec4<f32>>;
// Phase 1's residual (dummy without partial rows).
@group(0) @binding(4) var<storage, read> resid1: array<f32>;
@group(0) @binding(5) var<storage, read> wq_q: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> wq_sm: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read> wk_q: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> wk_sm: array<vec2<f32>>;
@group(0) @binding(9) var<storage, read> wv_q: array<vec4<u32>>;
@group(0) @binding(10) var<storage, read> wv_sm: array<vec2<f32>>;
@group(0) @binding(11) var<storage, read> bq: array<f32>;
@group(0) @binding(12) var<storage, read> bk: array<f32>;
@group(0) @binding(13) var<storage, read> bv: array<f32>;
// The layer's input x: phase 1 writes it (the partial rows' sum) or reads it (a plain row), and
// phase 3 adds it as the residual.
// @coherent: workgroup 0 writes it in phase 1 and every workgroup reads it in phase 3
// (split_records_coherent.wgsl says why; without the decoration plain loads read stale values on
// the H200 in one buffer placement and not another). The kernel runs only where the adapter can
// declare it (gpu/grid_probe.rs).
@group(0) @binding(14) @coherent var<storage, read_write> hsum: array<f32>;
@group(0) @binding(15) var<storage, read> cos_sin: array<vec2<f32>>;
@group(0) @binding(16) var<storage, read> q_norm: array<f32>;
@group(0) @binding(17) var<storage, read> k_norm: array<f32>;
@group(0) @binding(18) var<storage, read_write> k_cache: array<KvWord>;
@group(0) @binding(19) var<storage, read_write> v_cache: array<KvWord>;
@group(0) @binding(20) @coherent var<storage, read_write> scratch: SplitScratch;
@group(0) @binding(21) var<storage, read> o_q: array<vec4<u32>>;
@group(0) @binding(22) var<storage, read> o_sm: array<vec2<f32>>;
@group(0) @binding(23) var<storage, read> norm2: array<vec4<f32>>;
@group(0) @binding(24) var<storage, read> gate_q: array<vec4<u32>>;
@group(0) @binding(25) var<storage, read> gate_sm: array<vec2<f32>>;
@group(0) @binding(26) var<storage, read> up_q: array<vec4<u32>>;
@group(0) @binding(27) var<storage, read> up_sm: array<vec2<f32>>;
@group(0) @binding(28) var<storage, read> down_q: array<vec4<u32>>;
@group(0) @binding(29) var<storage, read> down_sm: array<vec2<f32>>;
// [mlp_wgs, k / 4] vec4s: word w of the down projection's K per row (the next layer's input).
@group(0) @binding(30) var<storage, read_write> partials: array<vec4<f32>>;
// h + the MLP's output is the next layer's residual: phase 3's partial-row sum of h and o_proj.
@group(0) @binding(31) var<storage, read_write> x_out: array<f32>;

// K <= 1024: x' in 256 vec4s of workgroup memory (xsum), so the kernel stays within 32 KB.
const MAX_K4: u32 = 256u;
const CHUNK: u32 = 512u;
// Matrices: q, k, v, o_proj, gate, up, down.
const O_MAT: u32 = 3u;
const GATE_MAT: u32 = 4u;
const UP_MAT: u32 = 5u;
const DOWN_MAT: u32 = 6u;
// The attention library's flags in bits 26-27, the log2 of a split's positions in bits 28-31
// (the matvec core's use bits 0-25).
fn attn_flags() -> u32 { return (FLAGS >> 26u) & 3u; }
fn split_shift() -> u32 { return (FLAGS >> 28u) & 15u; }
fn o_group() -> u32 { return dim_group(); }
fn o_quads() -> u32 { return dim_k() / 4u; }

fn load_q(m: u32, i: u32) -> vec4<u32> {
    switch m {
        case 0u: { return wq_q[i]; }
        case 1u: { return wk_q[i]; }
        case 2u: { return wv_q[i]; }
        case 3u: { return o_q[i]; }
        case 4u: { return gate_q[i]; }
        case 5u: { return up_q[i]; }
        default: { return down_q[i]; }
    }
}

fn load_sm(m: u32, i: u32) -> vec2<f32> {
    switch m {
        case 0u: { return wq_sm[i]; }
        case 1u: { return wk_sm[i]; }
        case 2u: { return wv_sm[i]; }
        case 3u: { return o_sm[i]; }
        case 4u: { return gate_sm[i]; }
        case 5u: { return up_sm[i]; }
        default: { return down_sm[i]; }
    }
}


// Which phase the matvec core's PARTIALS_IN hooks serve: 0 (q / k / v) or 2 (the MLP).
var<private> phase: u32;

fn norm_weight(i: u32) -> vec4<f32> {
    if (phase == 0u) { return norm1[i]; }
    return norm2[i];
}
fn gate_at(i: u32) -> vec4<f32> { return vec4<f32>(0.0); }
fn resid_at(i: u32) -> f32 {
    if (phase == 0u) { return resid1[i]; }
    return hsum_at(i);
}
fn bias_at(m: u32, c: u32) -> f32 {
    if (m == 0u) { return bq[c]; }
    if (m == 1u) { return bk[c]; }
    return bv[c];
}
// The core stores only the PARTIALS_IN sum (matrix slot 3), from workgroup 0.
fn store(m: u32, i: u32, v: f32) {
    if (phase == 0u) { hsum[i] = v; } else { x_out[i] = v; }
}
// Compile-time counts (FLAGS, the shape constants): a count read from the uniform leaves every
// load of the partial-row tree conditional at run time (SmolLM2 on the H200: 1141 against 1224
// tok/s).
fn partial_rows() -> u32 {
    if (phase == 0u) { return partials_count(); }
    return dim_n0() / 32u;
}
fn partial_at(i: u32) -> vec4<f32> {
    if (phase == 0u) { return x[i]; }
    return rec_load(o_base() + i);
}

// The stash: q | k | v (n0 + n1 + n2 floats), then the o_proj partial rows [n0 / 32, k / 4] vec4s.
// It starts past the split records of the largest head (128 records of 256 / 4 + 1 vec4s), at a
// compile-time offset.
const STASH: u32 = 8320u;
fn stash_at(i: u32) -> f32 { return rec_load1(4u * STASH + i); }
fn hsum_at(i: u32) -> f32 { return hsum[i]; }
fn o_base() -> u32 { return STASH + (dim_n0() + dim_n1() + dim_n2()) / 4u; }
// The workgroups of phase 1 (32 columns each) and phase 3 (32 intermediates each).
fn qkv_wgs() -> u32 { return (dim_n0() + dim_n1() + dim_n2()) / 32u; }
fn mlp_wgs() -> u32 { return dim_n3() / 32u; }

fn new_q(h: u32, t: u32, row: u32) -> f32 { return stash_at(h * p.head_dim + t); }
fn new_k(kvh: u32, t: u32, row: u32) -> f32 { return stash_at(dim_n0() + kvh * p.head_dim + t); }
fn new_v(kvh: u32, t: u32, row: u32) -> f32 { return stash_at(dim_n0() + dim_n1() + kvh * p.head_dim + t); }
// The head's output stays in head_out: only o_partials reads it.
fn store_head(i: u32, o: vec4<f32>) {}
fn store_o_part(i: u32, v: vec4<f32>) { rec_store(o_base() + i, v); }

// The grid barrier (shaders/lib/grid_sync.wgsl) on one word of the scratch's tickets (the splits
// use the first n_heads). Every value one phase leaves for another (the stash, hsum) is read after
// the barrier that publishes it, through @coherent bindings.
const BARRIER_WORD: u32 = MAX_TICKETS - 1u;
const FAILED_WORD: u32 = MAX_TICKETS - 2u;
fn barrier_add(v: u32) -> u32 { return atomicAdd(&scratch.tickets[BARRIER_WORD], v); }
fn barrier_load() -> u32 { return atomicLoad(&scratch.tickets[BARRIER_WORD]); }
fn failed_load() -> u32 { return atomicLoad(&scratch.tickets[FAILED_WORD]); }
fn failed_set() { atomicStore(&scratch.tickets[FAILED_WORD], 1u); }

// word_dot of x' word v and a chunk (the core's row_dot on the normed x).
fn xs_dot(v: u32, c: Chunk) -> vec4<f32> {
    let b = 8u * v;
    return chunk_dot(xsum[b], xsum[b + 1u], xsum[b + 2u], xsum[b + 3u],
                     xsum[b + 4u], xsum[b + 5u], xsum[b + 6u], xsum[b + 7u], c);
}

// Matrix and column of column c of q | k | v.
fn qkv_col(c: u32) -> vec2<u32> {
    if (c < dim_n0()) { return vec2<u32>(0u, c); }
    if (c < dim_n0() + dim_n1()) { return vec2<u32>(1u, c - dim_n0()); }
    return vec2<u32>(2u, c - dim_n0() - dim_n1());
}

// Word v of columns (ma, ca), (ma, ca + 1), (mb, cb), (mb, cb + 1) (matrix, column); zeros past K.
fn chunk4(ma: u32, ca: u32, mb: u32, cb: u32, v: u32) -> Chunk {
    var r: Chunk;
    let vecs = dim_k() / 32u;
    if (v >= vecs) { return r; }
    let groups = dim_k() / dim_group();
    let gv = v / (dim_group() / 32u);
    r.q0 = load_q(ma, ca * vecs + v);
    r.q1 = load_q(ma, (ca + 1u) * vecs + v);
    r.q2 = load_q(mb, cb * vecs + v);
    r.q3 = load_q(mb, (cb + 1u) * vecs + v);
    r.sm0 = load_sm(ma, ca * groups + gv);
    r.sm1 = load_sm(ma, (ca + 1u) * groups + gv);
    r.sm2 = load_sm(mb, cb * groups + gv);
    r.sm3 = load_sm(mb, (cb + 1u) * groups + gv);
    return r;
}

// Word v of q | k | v columns c0 .. c0 + 4 (one matrix: its width is a multiple of 32).
fn qkv_chunk(c0: u32, v: u32) -> Chunk {
    var r: Chunk;
    if (c0 >= dim_n0() + dim_n1() + dim_n2()) { return r; }
    let mc = qkv_col(c0);
    return chunk4(mc.x, mc.y, mc.x, mc.y + 2u, v);
}

// Phase 1 on workgroup w: lane group lg's four columns 4 (8 w + lg) .., into the stash.
fn qkv_phase(w: u32, t: u32) {
    let lane = t % LANES;
    let c0 = (w * GROUPS + t / LANES) * CPG;
    let vecs = dim_k() / 32u;
    let part = (vecs + LANES - 1u) / LANES * LANES;
    var wt = qkv_chunk(c0, lane);
    let kq = dim_k() / 4u;
    let from_partials = partials_count() > 0u;
    var g = vec4<f32>(0.0);
    var xv = vec4<f32>(0.0);
    if (t < kq) {
        g = norm1[t];
        if (!from_partials) { xv = vec4<f32>(hsum_at(4u * t), hsum_at(4u * t + 1u), hsum_at(4u * t + 2u), hsum_at(4u * t + 3u)); }
    }
    // Lane j < 4 writes column c0 + j: its bias now.
    let c = c0 + min(lane, CPG - 1u);
    let live = lane < CPG && c < dim_n0() + dim_n1() + dim_n2();
    let mc = qkv_col(c);
    var b = 0.0;
    let biased = has_bias(mc.x);
    if (live && biased) { b = bias_at(mc.x, mc.y); }
    normed_x(vec3<u32>(w, 0u, 0u), t, from_partials, xv, g);
    var acc = vec4<f32>(0.0);
    for (var v0 = 0u; v0 < part; v0 += LANES) {
        let v = v0 + lane;
        let cur = wt;
        if (v0 + LANES < part) { wt = qkv_chunk(c0, v + LANES); }
        if (v < vecs) { acc += xs_dot(v, cur); }
    }
    let s = group_sum(acc, t);
    if (live) {
        var val = s[lane];
        if (biased) { val += b; }
        rec_store1(4u * STASH + c, val);
    }
}

// What phase 3 reads first, requested ahead of the barrier before it: gate / up columns
// 32 w + 2 lg + {0, 1} (a) and 32 w + 16 + 2 lg + {0, 1} (b) at word `lane`, thread t's down
// quad at word w, and thread t's norm weights.
struct MlpPrefetch { a: Chunk, b: Chunk, d: Chunk, g: vec4<f32> }

// Word v of gate and up columns c, c + 1 (the core's SWIGLU layout: gate in components 0-1).
fn pair_chunk(c: u32, v: u32) -> Chunk { return chunk4(GATE_MAT, c, UP_MAT, c, v); }

fn mlp_prefetch(w: u32, t: u32) -> MlpPrefetch {
    var r: MlpPrefetch;
    let lane = t % LANES;
    let ca = w * 32u + 2u * (t / LANES);
    r.a = pair_chunk(ca, lane);
    r.b = pair_chunk(ca + 16u, lane);
    if (t < dim_k() / 4u) {
        r.d = quad_words(DOWN_MAT, t, w, dim_n3(), dim_group());
        r.g = norm2[t];
    }
    return r;
}

// The 32 SwiGLU values of this workgroup's word.
var<workgroup> act: array<vec4<f32>, 8>;

// Phase 3 on workgroup w: matvec_mlp_int4.wgsl's body (K <= 1024: one down quad a thread).
fn mlp_phase(w: u32, t: u32, pf: MlpPrefetch) {
    phase = 2u;
    let lane = t % LANES;
    let lg = t / LANES;
    let vecs = dim_k() / 32u;
    let part = (vecs + LANES - 1u) / LANES * LANES;
    let ca = w * 32u + 2u * lg;
    var wa = pf.a;
    var wb = pf.b;
    normed_x(vec3<u32>(w, 0u, 0u), t, true, vec4<f32>(0.0), pf.g);
    var acc_a = vec4<f32>(0.0);
    var acc_b = vec4<f32>(0.0);
    for (var v0 = 0u; v0 < part; v0 += LANES) {
        let v = v0 + lane;
        let cur_a = wa;
        let cur_b = wb;
        if (v0 + LANES < part) {
            wa = pair_chunk(ca, v + LANES);
            wb = pair_chunk(ca + 16u, v + LANES);
        }
        if (v < vecs) {
            acc_a += xs_dot(v, cur_a);
            acc_b += xs_dot(v, cur_b);
        }
    }
    let sa = group_sum(acc_a, t);
    let sb = group_sum(acc_b, t);
    if (lane < 2u) {
        let i = 2u * lg + lane;
        act[i / 4u][i % 4u] = silu_mul(sa[lane], sa[lane + 2u]);
        act[(i + 16u) / 4u][i % 4u] = silu_mul(sb[lane], sb[lane + 2u]);
    }
    workgroupBarrier();
    let nq = dim_k() / 4u;
    if (t < nq) {
        partials[w * nq + t] = chunk_dot(act[0], act[1], act[2], act[3], act[4], act[5], act[6], act[7], pf.d);
    }
}

@compute @workgroup_size(256)
fn decode_layer(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = lid.x;
    let w = wg.x;
    let groups = nwg.x;
    if (step.probe != 0u) {
        grid_resident(t, groups);
        return;
    }
    let pos = step.pos0;
    // The attention workgroups are the grid's last heads x splits, past the q / k / v ones where
    // the grid allows.
    let n = split_of(pos, 0u, p.split_cap).z;
    let attn_wgs = p.n_heads * n;
    let is_attn = w + attn_wgs >= groups;
    phase = 0u;
    if (w < qkv_wgs()) { qkv_phase(w, t); }
    if (is_attn) {
        // Their cache rows and o_proj weights are requested here, after phase 1's code: requested
        // in phase 1's place (for the workgroups without q / k / v columns) they cost registers
        // across it (SmolLM2 on the H200: 1224 tok/s here, 1141 with them and the MLP's weights
        // requested after both barriers, 927 with both requested early).
        let a = w + attn_wgs - groups;
        let h = a % p.n_heads;
        let s = a / p.n_heads;
        let sp = split_of(pos, s, p.split_cap);
        let span = Span(sp.x, sp.y);
        let pf = attend_prefetch(h, t, 0u, pos, span);
        let opf = o_prefetch(h, t);
        grid_sync(t, groups);
        let ml = attend(h, t, 0u, 0u, pos, span, pf);
        if (finish_split(h, 0u, h, h * p.split_cap, s, n, t, ml)) {
            workgroupBarrier();
            o_partials(h, t, opf);
        }
        grid_sync(t, groups);
        if (w < mlp_wgs()) { mlp_phase(w, t, mlp_prefetch(w, t)); }
    } else {
        // Not attending: this workgroup's MLP weights are requested before the first barrier.
        var mp: MlpPrefetch;
        if (w < mlp_wgs()) { mp = mlp_prefetch(w, t); }
        grid_sync(t, groups);
        grid_sync(t, groups);
        if (w < mlp_wgs()) { mlp_phase(w, t, mp); }
    }
}
