// A decode layer's attention half in one dispatch, one workgroup per q head h:
//   x       = resid + the previous op's partial rows (PARTIALS_IN), or the input row
//   x'      = RMSNorm(x) * g                          (matvec_int4_core.wgsl's prologues)
//   q, k, v = q head h's and kv head kvh's columns of Wq x' (+ b), Wk x', Wv x'
//   attention over the cache (attention_decode_core.wgsl), o_proj's per-word partial rows
// Every number is the unfused plan's: the q / k / v columns are the INT4 matvec core's lane
// layout (lane = word of K, group_sum over the lane group, then the bias), so the qkv
// matvec's dispatch, its round trip of q / k / v through memory and its launch are gone.
// The kv head's columns are computed by each of its q heads (cheap next to one launch).
// Workgroup 0 writes x for the ops after this one (the MLP's residual).

struct Params {
    n0: u32, n1: u32, n2: u32, k: u32,
    group: u32, flags: u32, eps: f32, n3: u32,
    n_heads: u32, n_kv_heads: u32, head_dim: u32, max_seq: u32,
    scale: f32, rotary_dim: u32, pad0: u32, qk_eps: f32,
}
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
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
@group(0) @binding(18) var<storage, read_write> k_cache: array<vec4<f32>>;
@group(0) @binding(19) var<storage, read_write> v_cache: array<vec4<f32>>;
@group(0) @binding(20) var<storage, read_write> out: array<f32>;
@group(0) @binding(21) var<storage, read> o_q: array<vec4<u32>>;
@group(0) @binding(22) var<storage, read> o_sm: array<vec2<f32>>;
@group(0) @binding(23) var<storage, read_write> o_part: array<vec4<f32>>;

// K <= 1024: x and the norm weights fit 256 vec4s each, which keeps this kernel's workgroup
// memory (both libraries' arrays) within 32 KB.
const MAX_K4: u32 = 256u;
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

fn bias_at(m: u32, c: u32) -> f32 {
    if (m == 0u) { return bq[c]; }
    if (m == 1u) { return bk[c]; }
    return bv[c];
}

// Only the PARTIALS_IN sum (matrix 3) is stored through the core; q / k / v go to qs / ks / vs.
fn store(m: u32, i: u32, v: f32) {
    if (m == 3u) { x_out[i] = v; }
}

// The new token's q / k / v lanes, computed by this workgroup.
fn new_q(h: u32, t: u32, row: u32) -> f32 { return qs[t]; }
fn new_k(kvh: u32, t: u32, row: u32) -> f32 { return ks[t]; }
fn new_v(kvh: u32, t: u32, row: u32) -> f32 { return vs[t]; }

// Column slot j (of 3 head_dim / 32 blocks of 32 columns: q head h's, then k and v head kvh's)
// of lane group lg: matrix and first column of its four (columns 4 lg .. 4 lg + 4 of the block).
fn qkv_cols(h: u32, kvh: u32, j: u32, lg: u32) -> vec2<u32> {
    let bph = p.head_dim / 32u;
    let m = j / bph;
    var head = h;
    if (m > 0u) { head = kvh; }
    return vec2<u32>(m, head * p.head_dim + (j % bph) * 32u + lg * CPG);
}

fn slot_live(j: u32) -> bool { return j < 3u * (p.head_dim / 32u); }

// Lane `lane`'s word of slot j's four columns (the core's load_chunk; zeros past K or the slots).
fn slot_load(h: u32, kvh: u32, j: u32, lg: u32, lane: u32) -> Chunk {
    var c: Chunk;
    if (!slot_live(j)) { return c; }
    let mc = qkv_cols(h, kvh, j, lg);
    let vecs = dim_k() / 32u;
    return load_chunk(mc, mc + vec2<u32>(0u, 1u), mc + vec2<u32>(0u, 2u), mc + vec2<u32>(0u, 3u),
                      lane, vecs, vecs, dim_k() / dim_group(), dim_group() / 32u);
}

// The bias lane `lane` (< CPG) adds to its column of slot j (zero without one).
fn slot_bias(h: u32, kvh: u32, j: u32, lg: u32, lane: u32) -> f32 {
    if (!slot_live(j) || lane >= CPG) { return 0.0; }
    let mc = qkv_cols(h, kvh, j, lg);
    if (!has_bias(mc.x)) { return 0.0; }
    return bias_at(mc.x, mc.y + lane);
}

// The lane group's four column sums of slot j: the core's main loop (K <= 1024: one word per
// lane) and group_sum. Every invocation calls it (group_sum may hold barriers).
fn slot_sum(c: Chunk, lane: u32, t: u32) -> vec4<f32> {
    var a = vec4<f32>(0.0);
    if (lane < dim_k() / 32u) {
        a += row_dot(0u, 0u, lane, c.q0, c.q1, c.q2, c.q3, chunk_scales(c), chunk_offsets(c));
    }
    return group_sum(a, t);
}

// Lane `lane` < CPG writes its column of slot j (the core's emit: sum, then bias) into qs / ks / vs.
fn slot_store(h: u32, kvh: u32, j: u32, lg: u32, lane: u32, s: vec4<f32>, b: f32) {
    if (!slot_live(j) || lane >= CPG) { return; }
    let mc = qkv_cols(h, kvh, j, lg);
    var val = s[lane];
    if (has_bias(mc.x)) { val += b; }
    let i = (j % (p.head_dim / 32u)) * 32u + lg * CPG + lane;
    if (mc.x == 0u) { qs[i] = val; } else if (mc.x == 1u) { ks[i] = val; } else { vs[i] = val; }
}

// grid: (n_heads, 1)
@compute @workgroup_size(256)
fn attention_qkv_o(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    let h = wg.x;
    let lane = t % LANES;
    let lg = t / LANES;
    let kvh = h / (p.n_heads / p.n_kv_heads);
    let pos = step.pos0;
    // Everything that does not depend on x is requested before the prologue: the first six
    // column slots' weights and biases, the cache rows, rotary pair and q / k norm weights the
    // attention starts with, o_proj's first tasks and (STAGE) the norm weights.
    var w0 = slot_load(h, kvh, 0u, lg, lane);
    var w1 = slot_load(h, kvh, 1u, lg, lane);
    var w2 = slot_load(h, kvh, 2u, lg, lane);
    var w3 = slot_load(h, kvh, 3u, lg, lane);
    var w4 = slot_load(h, kvh, 4u, lg, lane);
    var w5 = slot_load(h, kvh, 5u, lg, lane);
    var b0 = slot_bias(h, kvh, 0u, lg, lane);
    var b1 = slot_bias(h, kvh, 1u, lg, lane);
    var b2 = slot_bias(h, kvh, 2u, lg, lane);
    var b3 = slot_bias(h, kvh, 3u, lg, lane);
    var b4 = slot_bias(h, kvh, 4u, lg, lane);
    var b5 = slot_bias(h, kvh, 5u, lg, lane);
    let apf = attend_prefetch(h, t, 0u, pos);
    let opf = o_prefetch(h, t);
    let staged = stage_load(t);
    prologues(wg, t, 1u, staged);
    // Six slots at a time (head_dim 64: all of them; 128: two rounds).
    for (var j0 = 0u; j0 < 3u * (p.head_dim / 32u); j0 += 6u) {
        if (j0 > 0u) {
            w0 = slot_load(h, kvh, j0, lg, lane);
            w1 = slot_load(h, kvh, j0 + 1u, lg, lane);
            w2 = slot_load(h, kvh, j0 + 2u, lg, lane);
            w3 = slot_load(h, kvh, j0 + 3u, lg, lane);
            w4 = slot_load(h, kvh, j0 + 4u, lg, lane);
            w5 = slot_load(h, kvh, j0 + 5u, lg, lane);
            b0 = slot_bias(h, kvh, j0, lg, lane);
            b1 = slot_bias(h, kvh, j0 + 1u, lg, lane);
            b2 = slot_bias(h, kvh, j0 + 2u, lg, lane);
            b3 = slot_bias(h, kvh, j0 + 3u, lg, lane);
            b4 = slot_bias(h, kvh, j0 + 4u, lg, lane);
            b5 = slot_bias(h, kvh, j0 + 5u, lg, lane);
        }
        let s0 = slot_sum(w0, lane, t);
        let s1 = slot_sum(w1, lane, t);
        let s2 = slot_sum(w2, lane, t);
        let s3 = slot_sum(w3, lane, t);
        let s4 = slot_sum(w4, lane, t);
        let s5 = slot_sum(w5, lane, t);
        slot_store(h, kvh, j0, lg, lane, s0, b0);
        slot_store(h, kvh, j0 + 1u, lg, lane, s1, b1);
        slot_store(h, kvh, j0 + 2u, lg, lane, s2, b2);
        slot_store(h, kvh, j0 + 3u, lg, lane, s3, b3);
        slot_store(h, kvh, j0 + 4u, lg, lane, s4, b4);
        slot_store(h, kvh, j0 + 5u, lg, lane, s5, b5);
    }
    workgroupBarrier();
    attend(h, t, 0u, 0u, pos, apf);
    workgroupBarrier();
    o_partials(h, t, opf);
}
