// The INT4 decode matvec shared by matvec_int4.wgsl (plain: 5 storage bindings,
// for adapters with few storage buffers per stage) and matvec_fused_int4.wgsl
// (norm prologue, up to three matrices, residual / SwiGLU epilogues) and by
// matvec_mlp_int4.wgsl and attention_qkv_o.wgsl (its prologues, lane order and word
// arithmetic). The kernel declares Params (FusedMatvecParams' fields first; `p` and `step` are
// bound by uniforms.wgsl), x, and the hooks
//   load_q(m, i) -> vec4<u32>, load_sm(m, i) -> vec2<f32>, norm_weight(i) -> vec4<f32>,
//   gate_at(i) -> vec4<f32>, resid_at(i) -> f32, bias_at(m, c) -> f32, store(m, i, v),
//   partial_rows() -> u32, partial_at(i) -> vec4<f32>   (the PARTIALS_IN rows: count, vec4 i)
// (store(3, i, v) also receives the PARTIALS_IN sum) and the constant MAX_K4 (see xsum), and
// calls matvec_core from its entry point (matvec_int4_bindings.wgsl declares Params, x, MAX_K4
// and the PARTIALS_IN hooks for the kernels whose Params is FusedMatvecParams). Layout and
// arithmetic: see matvec_fused_int4.wgsl; the word arithmetic is shaders/lib/int4_word.wgsl.

// Flag bits, compiled in as a pipeline constant: bits 0-7 and 12 as below, bits
// 8-10 the number of matrices (or output segments of one matrix: 1-4).
override FLAGS: u32 = 0u;
const NORM: u32 = 1u;
const ADD_UNIT: u32 = 2u;
const RESID: u32 = 4u;
const SWIGLU: u32 = 8u;
const BIAS0: u32 = 16u;
const BIAS1: u32 = 32u;
const BIAS2: u32 = 64u;
const LAST_ROW: u32 = 128u;
// Prologue x' = x * sigmoid(gate) with gate rows as wide as x (Qwen3.5's attention
// output gate feeding o_proj), in sigmoid_gate.wgsl's arithmetic.
const GATE: u32 = 4096u;
// The plan never runs more than one token (a single sequence's decode plan):
// n_tokens is 1 without reading the step uniform.
const ONE_TOKEN: u32 = 8192u;
// Bits 14-15: log2 S, the lane groups sharing each column's K (dispatch_matvec::k_split_layout): lane
// group lg computes columns of slot lg / S over the K part lg % S, and the S partial sums
// meet in workgroup memory. A workgroup then covers GROUPS / S * CPG columns.
fn ksplit() -> u32 { return 1u << ((FLAGS >> 14u) & 3u); }
// x = resid + the sum of P per-word partial rows bound as x ([P, K / 4] vec4s; P in bits 17-23): the
// previous op's o_proj or down_proj, computed one 32-wide word of its K at a time by the
// kernels that produced its input (attention, the MLP), summed here in the plain matvec's
// order (lane l: words l, l + 32, ...; then group_sum's tree; see partials_tree), so the bits
// are the plain matvec + residual add's. The sum is also written out (store(3, ..)) by workgroup 0 for the
// ops after this one. One token, K <= 2048, at most three matrices (y3 carries the sum).
const PARTIALS_IN: u32 = 65536u;
fn partials_count() -> u32 { return (FLAGS >> 17u) & 127u; }
// Two column slots per lane group (one input row, no SwiGLU): both slots' weights are requested
// at once, so a workgroup has twice the bytes in flight for the same fixed costs (launch,
// reduction, store). For wide matrices whose K is one step of the lanes (lm_head: K <= 1024;
// four slots measured slower on the H200). See matvec_core.
const WIDE: u32 = 16777216u;
// One input row with a NORM prologue and K <= 2048: x (unless PARTIALS_IN puts the sum there)
// and the norm weights are loaded into workgroup memory when the kernel starts, so their
// memory round trip overlaps the weights' instead of following the norm's barriers.
const STAGE: u32 = 33554432u;

// The shape, compiled in as pipeline constants (PipelineKey::dims) so that no
// address of the first loads waits on a uniform read; K_DIM == 0: read them
// from `p` (a pipeline shared by several shapes).
override K_DIM: u32 = 0u;
override N0_DIM: u32 = 0u;
override N1_DIM: u32 = 0u;
override N2_DIM: u32 = 0u;
override N3_DIM: u32 = 0u;
override GROUP_DIM: u32 = 0u;

fn dim_k() -> u32 { if (K_DIM != 0u) { return K_DIM; } return p.k; }
fn dim_group() -> u32 { if (K_DIM != 0u) { return GROUP_DIM; } return p.group; }
fn dim_n0() -> u32 { if (K_DIM != 0u) { return N0_DIM; } return p.n0; }
fn dim_n1() -> u32 { if (K_DIM != 0u) { return N1_DIM; } return p.n1; }
fn dim_n2() -> u32 { if (K_DIM != 0u) { return N2_DIM; } return p.n2; }
fn dim_n3() -> u32 { if (K_DIM != 0u) { return N3_DIM; } return p.n3; }
fn n_tokens() -> u32 { if ((FLAGS & ONE_TOKEN) != 0u) { return 1u; } return step.n_tokens; }

const WG: u32 = 256u;
const LANES: u32 = 32u;
const GROUPS: u32 = 8u;
const CPG: u32 = 4u; // columns per lane group: the four components of the vec4s below
const ROWS: u32 = 4u;
var<workgroup> partial: array<f32, 256>;
var<workgroup> inv_rms: array<f32, ROWS>;
var<workgroup> kpart: array<vec4<f32>, 32>; // [ROWS][GROUPS] lane group sums (K split)
// The PARTIALS_IN input or x with STAGE, and the norm weights with STAGE: MAX_K4 vec4s each,
// declared by the kernel file (512: K <= 2048).
var<workgroup> xsum: array<vec4<f32>, MAX_K4>;
var<workgroup> norm_ws: array<vec4<f32>, MAX_K4>;

// x and norm weight vec4s t and t + WG, requested at kernel start (STAGE).
struct Staged { x0: vec4<f32>, x1: vec4<f32>, g0: vec4<f32>, g1: vec4<f32> }

fn stage_load(t: u32) -> Staged {
    var s: Staged;
    if ((FLAGS & STAGE) == 0u) { return s; }
    let kq = dim_k() / 4u;
    let row = in_row(0u, 0u) * kq;
    if (t < kq) {
        s.g0 = norm_weight(t);
        if ((FLAGS & PARTIALS_IN) == 0u) { s.x0 = x[row + t]; }
    }
    if (t + WG < kq) {
        s.g1 = norm_weight(t + WG);
        if ((FLAGS & PARTIALS_IN) == 0u) { s.x1 = x[row + t + WG]; }
    }
    return s;
}

// Writes the staged values to workgroup memory; the norm prologue's first barrier publishes them.
fn stage_store(t: u32, s: Staged) {
    if ((FLAGS & STAGE) == 0u) { return; }
    let kq = dim_k() / 4u;
    if (t < kq) {
        norm_ws[t] = s.g0;
        if ((FLAGS & PARTIALS_IN) == 0u) { xsum[t] = s.x0; }
    }
    if (t + WG < kq) {
        norm_ws[t + WG] = s.g1;
        if ((FLAGS & PARTIALS_IN) == 0u) { xsum[t + WG] = s.x1; }
    }
}

// x' of input row `row`, vec4 index i; `r` is the row's slot in this workgroup.
fn x_raw(row: u32, i: u32) -> vec4<f32> {
    if ((FLAGS & (PARTIALS_IN | STAGE)) != 0u) { return xsum[i]; }
    return x[row * (dim_k() / 4u) + i];
}

fn xin(row: u32, r: u32, i: u32) -> vec4<f32> {
    let xv = x_raw(row, i);
    if ((FLAGS & NORM) != 0u) {
        var g: vec4<f32>;
        if ((FLAGS & STAGE) != 0u) { g = norm_ws[i]; } else { g = norm_weight(i); }
        if ((FLAGS & ADD_UNIT) != 0u) { g = vec4<f32>(1.0) + g; }
        return (xv * inv_rms[r]) * g;
    }
    if ((FLAGS & GATE) != 0u) {
        return xv / (vec4<f32>(1.0) + exp(-gate_at(row * (dim_k() / 4u) + i)));
    }
    return xv;
}

fn height(m: u32) -> u32 {
    if (m == 0u) { return dim_n0(); }
    if (m == 1u) { return dim_n1(); }
    if (m == 2u) { return dim_n2(); }
    return dim_n3();
}

// Which matrix and column slot j of lane group `lg` in workgroup `wgx` computes.
// SWIGLU: slots 0, 1 are gate columns c, c + 1; slots 2, 3 the matching up columns.
fn slot_col(wgx: u32, lg: u32, j: u32) -> vec2<u32> {
    let slot = wgx * (GROUPS / ksplit()) + lg / ksplit();
    if ((FLAGS & SWIGLU) != 0u) {
        let c = slot * 2u + j % 2u;
        return vec2<u32>(j / 2u, c);
    }
    var c = slot * CPG + j;
    var m = 0u;
    let n_mats = (FLAGS >> 8u) & 7u;
    if (n_mats > 1u && c >= dim_n0()) {
        c -= dim_n0();
        m = 1u;
        if (n_mats > 2u && c >= dim_n1()) {
            c -= dim_n1();
            m = 2u;
            if (n_mats > 3u && c >= dim_n2()) { c -= dim_n2(); m = 3u; }
        }
    }
    return vec2<u32>(m, c);
}

// input row of workgroup row slot r (>= n_tokens: none)
fn in_row(wgy: u32, r: u32) -> u32 {
    if ((FLAGS & LAST_ROW) != 0u) {
        if (r == 0u) { return n_tokens() - 1u; }
        return 0xffffffffu;
    }
    if ((FLAGS & ONE_TOKEN) != 0u) {
        // grid.y is 1: row slot 0 only, known at compile time, so the other slots'
        // accumulators and sums are dead code (fewer registers, more workgroups per SM).
        if (r == 0u) { return 0u; }
        return 0xffffffffu;
    }
    return wgy * ROWS + r;
}

// Whether matrix m has a bias: only the first three can (BIAS0 << 3 would be LAST_ROW).
fn has_bias(m: u32) -> bool {
    return m < 3u && (FLAGS & (BIAS0 << m)) != 0u;
}

fn live(mc: vec2<u32>) -> bool {
    return mc.y < height(mc.x);
}

// One lane's 32 weights of each of the four columns against x'[32 v .. 32 v + 32] of one row
// (int4_word.wgsl's word_dot), the columns in the vec4's components.
fn row_dot(row: u32, r: u32, v: u32, q0: vec4<u32>, q1: vec4<u32>, q2: vec4<u32>, q3: vec4<u32>,
           sc: vec4<f32>, ofs: vec4<f32>) -> vec4<f32> {
    let b = 8u * v;
    return word_dot(xin(row, r, b), xin(row, r, b + 1u), xin(row, r, b + 2u), xin(row, r, b + 3u),
                    xin(row, r, b + 4u), xin(row, r, b + 5u), xin(row, r, b + 6u), xin(row, r, b + 7u),
                    q0, q1, q2, q3, sc, ofs);
}

// SwiGLU of one gate / up pair (eltwise.wgsl's swiglu arithmetic).
fn silu_mul(g: f32, u: f32) -> f32 { return (g / (1.0 + exp(-g))) * u; }

// Output row of row slot r.
fn out_row_of(wgy: u32, r: u32) -> u32 {
    if ((FLAGS & LAST_ROW) != 0u) { return 0u; }
    return in_row(wgy, r);
}

// The bias (x) and residual (y) a non-SwiGLU epilogue adds to column mc of row slot r
// (zero where absent). Row slot 0's are loaded before the main loop, so their latency
// overlaps it instead of following the reduction.
fn addends(wgy: u32, r: u32, mc: vec2<u32>) -> vec2<f32> {
    var a = vec2<f32>(0.0);
    if ((FLAGS & SWIGLU) != 0u) { return a; }
    if (has_bias(mc.x)) { a.x = bias_at(mc.x, mc.y); }
    if (mc.x == 0u && (FLAGS & RESID) != 0u) { a.y = resid_at(out_row_of(wgy, r) * dim_n0() + mc.y); }
    return a;
}

// Writes lane j's column of row slot r from the lane group's sums `sr` (columns in
// components); `add` is addends(wgy, r, mc).
fn emit(wgy: u32, r: u32, j: u32, mc: vec2<u32>, sr: vec4<f32>, add: vec2<f32>) {
    let out_row = out_row_of(wgy, r);
    let m = mc.x;
    let c = mc.y;
    let d = sr[j];
    if ((FLAGS & SWIGLU) != 0u) {
        var g = d;
        var u = sr[j + 2u];
        if ((FLAGS & BIAS0) != 0u) { g += bias_at(0u, c); }
        if ((FLAGS & BIAS1) != 0u) { u += bias_at(1u, c); }
        store(0u, out_row * dim_n0() + c, silu_mul(g, u));
    } else {
        var val = d;
        if (has_bias(m)) { val += add.x; }
        if (m == 0u && (FLAGS & RESID) != 0u) { val += add.y; }
        store(m, out_row * height(m) + c, val);
    }
}

// One lane's weights of its four columns for vec index v (zeros past the end or for absent columns).
fn load_chunk(mc0: vec2<u32>, mc1: vec2<u32>, mc2: vec2<u32>, mc3: vec2<u32>, v: u32, v_end: u32, vecs: u32,
              groups: u32, vec_per_group: u32) -> Chunk {
    var c: Chunk;
    if (v >= v_end) { return c; }
    let gv = v / vec_per_group;
    if (live(mc0)) { c.q0 = load_q(mc0.x, mc0.y * vecs + v); c.sm0 = load_sm(mc0.x, mc0.y * groups + gv); }
    if (live(mc1)) { c.q1 = load_q(mc1.x, mc1.y * vecs + v); c.sm1 = load_sm(mc1.x, mc1.y * groups + gv); }
    if (live(mc2)) { c.q2 = load_q(mc2.x, mc2.y * vecs + v); c.sm2 = load_sm(mc2.x, mc2.y * groups + gv); }
    if (live(mc3)) { c.q3 = load_q(mc3.x, mc3.y * vecs + v); c.sm3 = load_sm(mc3.x, mc3.y * groups + gv); }
    return c;
}


// The NORM prologue: inv_rms of each row slot, in rmsnorm.wgsl's exact order (so fusing
// changes no bits). Every invocation calls it (barriers).
fn norm_rows(wgy: u32, t: u32, nr: u32) {
    for (var r = 0u; r < nr; r++) {
        let base = in_row(wgy, r) * dim_k();
        var ss = 0.0;
        for (var i = t; i < dim_k(); i += WG) {
            let v = x_raw(0u, (base + i) / 4u)[i % 4u];
            ss += v * v;
        }
        partial[t] = ss;
        workgroupBarrier();
        // rmsnorm.wgsl's tree; where subgroups are 32 wide its last five levels are shuffles
        // in the first lane group (the same adds: 5 barriers instead of 10).
        var stop = 0u;
        if (TREE_TAIL_SHUFFLES) { stop = 16u; }
        for (var s = WG / 2u; s > stop; s >>= 1u) {
            if (t < s) { partial[t] += partial[t + s]; }
            workgroupBarrier();
        }
        if (TREE_TAIL_SHUFFLES) {
            if (t < LANES) {
                let total = tree_tail32(partial[t]);
                if (t == 0u) { inv_rms[r] = inverseSqrt(total / f32(dim_k()) + p.eps); }
            }
        } else if (t == 0u) {
            inv_rms[r] = inverseSqrt(partial[0] / f32(dim_k()) + p.eps);
        }
        workgroupBarrier();
    }
}

// Lane l's value for column quad q of the PARTIALS_IN sum: what the plain matvec's lane l
// holds before group_sum (0 + word l, + word l + 32); zero where it has no word.
fn lane_partial(q: u32, l: u32) -> vec4<f32> {
    let kq = dim_k() / 4u;
    let np = partial_rows();
    var a = vec4<f32>(0.0);
    if (l < np) { a += partial_at(l * kq + q); }
    if (l + 32u < np) { a += partial_at((l + 32u) * kq + q); }
    return a;
}

// Lane l's value in a butterfly that adds lanes l and l ^ s for s = 16, 8, 4, 2, 1 (reduce_shared.wgsl's
// tree, and subgroupAdd where the start-up probe found that order): l itself. Where subgroupAdd adds
// neighbours first (s = 1, 2, .., 16; SUBGROUP_ADD_NEIGHBOURS, from gpu/subgroup_order.rs), the same
// tree over the bit-reversed lanes is that butterfly (level s meets lane l ^ reverse(s)).
fn tree_lane(l: u32) -> u32 {
    if (SUBGROUP_ADD_NEIGHBOURS) { return reverseBits(l) >> 27u; }
    return l;
}

fn tree_partial(q: u32, l: u32) -> vec4<f32> { return lane_partial(q, tree_lane(l)); }

// The 32 lane values of quad q summed inside one invocation in the order the plain matvec's
// group_sum adds them: the workgroup-memory tree (lavapipe: CI's fused-vs-unfused tests) or the
// driver's subgroupAdd butterfly as probed at start-up, so fused and unfused sums agree to the
// bit (where the probe recognises no order, to rounding). Written out, so every load is
// independent and in flight at once and nothing is indexed dynamically (a loop over a local
// array, or subgroupAdd over lane groups in a loop, cost 8 us more per dispatch on the H200).
fn partials_tree(q: u32) -> vec4<f32> {
    let c0 = tree_partial(q, 0u) + tree_partial(q, 16u);
    let c1 = tree_partial(q, 1u) + tree_partial(q, 17u);
    let c2 = tree_partial(q, 2u) + tree_partial(q, 18u);
    let c3 = tree_partial(q, 3u) + tree_partial(q, 19u);
    let c4 = tree_partial(q, 4u) + tree_partial(q, 20u);
    let c5 = tree_partial(q, 5u) + tree_partial(q, 21u);
    let c6 = tree_partial(q, 6u) + tree_partial(q, 22u);
    let c7 = tree_partial(q, 7u) + tree_partial(q, 23u);
    let c8 = tree_partial(q, 8u) + tree_partial(q, 24u);
    let c9 = tree_partial(q, 9u) + tree_partial(q, 25u);
    let c10 = tree_partial(q, 10u) + tree_partial(q, 26u);
    let c11 = tree_partial(q, 11u) + tree_partial(q, 27u);
    let c12 = tree_partial(q, 12u) + tree_partial(q, 28u);
    let c13 = tree_partial(q, 13u) + tree_partial(q, 29u);
    let c14 = tree_partial(q, 14u) + tree_partial(q, 30u);
    let c15 = tree_partial(q, 15u) + tree_partial(q, 31u);
    let d0 = c0 + c8;
    let d1 = c1 + c9;
    let d2 = c2 + c10;
    let d3 = c3 + c11;
    let d4 = c4 + c12;
    let d5 = c5 + c13;
    let d6 = c6 + c14;
    let d7 = c7 + c15;
    let e0 = d0 + d4;
    let e1 = d1 + d5;
    let e2 = d2 + d6;
    let e3 = d3 + d7;
    return (e0 + e2) + (e1 + e3);
}

// The PARTIALS_IN prologue: xsum = partials_tree + resid (the plain matvec's group_sum, then
// its residual epilogue), written out by workgroup 0. Every invocation calls it (a barrier).
fn sum_partials(wg: vec3<u32>, t: u32) {
    let kq = dim_k() / 4u;
    for (var q = t; q < kq; q += WG) {
        let r = vec4<f32>(resid_at(4u * q), resid_at(4u * q + 1u), resid_at(4u * q + 2u), resid_at(4u * q + 3u));
        let h = partials_tree(q) + r;
        xsum[q] = h;
        if (wg.x == 0u && wg.y == 0u) {
            store(3u, 4u * q, h.x);
            store(3u, 4u * q + 1u, h.y);
            store(3u, 4u * q + 2u, h.z);
            store(3u, 4u * q + 3u, h.w);
        }
    }
    workgroupBarrier();
}

// x' = RMSNorm(x) * g of one row into xsum, once per element (the kernels that then dot words of
// xsum directly: attention_qkv_o.wgsl, decode_layer.wgsl): x summed from the partial rows
// (sum_partials, whose workgroup 0 also writes x out) or the row `xv`; `g` is thread t's norm
// weights. xin's arithmetic, so the bits are the NORM prologue's. K <= 4 WG. Every invocation calls
// it (barriers).
fn normed_x(wg: vec3<u32>, t: u32, from_partials: bool, xv: vec4<f32>, g: vec4<f32>) {
    let kq = dim_k() / 4u;
    if (from_partials) {
        sum_partials(wg, t);
    } else {
        if (t < kq) { xsum[t] = xv; }
        workgroupBarrier();
    }
    norm_rows(wg.y, t, 1u);
    if (t < kq) {
        var w = g;
        if ((FLAGS & ADD_UNIT) != 0u) { w = vec4<f32>(1.0) + w; }
        xsum[t] = (xsum[t] * inv_rms[0]) * w;
    }
    workgroupBarrier();
}

// The prologues in order (every invocation calls this: barriers); `staged` is stage_load's.
fn prologues(wg: vec3<u32>, t: u32, nr: u32, staged: Staged) {
    if ((FLAGS & PARTIALS_IN) != 0u) { sum_partials(wg, t); }
    stage_store(t, staged);
    if ((FLAGS & (STAGE | PARTIALS_IN)) == STAGE) { workgroupBarrier(); }
    if ((FLAGS & NORM) != 0u) { norm_rows(wg.y, t, nr); }
}

// grid: (ceil(cols / (GROUPS / S * CPG)), ceil(rows / ROWS))   cols = n0 + n1 + n2 (+ n3),
// or n0 * 2 with SWIGLU; rows = n_tokens, or 1 with LAST_ROW; WIDE: twice the columns a workgroup
fn matvec_core(wg: vec3<u32>, lid: vec3<u32>) {
    let t = lid.x;
    let lane = t % LANES;
    let lg = t / LANES;
    var nr = 0u;
    for (var r = 0u; r < ROWS; r++) {
        if (in_row(wg.y, r) < n_tokens()) { nr = r + 1u; }
    }
    let vecs = dim_k() / 32u;
    let groups = dim_k() / dim_group();
    let vec_per_group = dim_group() / 32u;
    // WIDE: this workgroup is workgroups 2 wg.x (slot a) and 2 wg.x + 1 (slot b) of the plain
    // layout. It runs one row, so slot b's sums take row 1's accumulator a1 and s1; every column's
    // arithmetic (lane = word, group_sum, K parts in order) is the plain layout's.
    let wide = (FLAGS & WIDE) != 0u;
    var xa = wg.x;
    if (wide) { xa = 2u * wg.x; }
    let mc0 = slot_col(xa, lg, 0u);
    let mc1 = slot_col(xa, lg, 1u);
    let mc2 = slot_col(xa, lg, 2u);
    let mc3 = slot_col(xa, lg, 3u);
    let mb0 = slot_col(xa + 1u, lg, 0u);
    let mb1 = slot_col(xa + 1u, lg, 1u);
    let mb2 = slot_col(xa + 1u, lg, 2u);
    let mb3 = slot_col(xa + 1u, lg, 3u);
    // This lane group's part of K: vec4 words [v_begin, v_end), walked in steps of LANES.
    let kp = lg % ksplit();
    let part = (vecs + ksplit() * LANES - 1u) / (ksplit() * LANES) * LANES;
    let v_begin = kp * part;
    let v_end = min(v_begin + part, vecs);
    // The first chunk's weights are requested before the norm so their latency
    // overlaps it; each later chunk is requested while the previous one computes.
    var w = load_chunk(mc0, mc1, mc2, mc3, v_begin + lane, v_end, vecs, groups, vec_per_group);
    var wb: Chunk;
    if (wide) { wb = load_chunk(mb0, mb1, mb2, mb3, v_begin + lane, v_end, vecs, groups, vec_per_group); }
    let staged = stage_load(t);
    // Lane j < CPG writes column slot j at the end: its first row's bias and residual now.
    var writers = CPG;
    if ((FLAGS & SWIGLU) != 0u) { writers = 2u; }
    let my_mc = slot_col(xa, lg, min(lane, CPG - 1u));
    let my_b = slot_col(xa + 1u, lg, min(lane, CPG - 1u));
    var add0 = vec2<f32>(0.0);
    var add_b = vec2<f32>(0.0);
    if (lane < writers && nr > 0u && live(my_mc)) { add0 = addends(wg.y, 0u, my_mc); }
    if (wide && lane < writers && nr > 0u && live(my_b)) { add_b = addends(wg.y, 0u, my_b); }
    prologues(wg, t, nr, staged);
    // Plain variables and vec4s only (no indexed arrays), so everything stays in registers.
    var a0 = vec4<f32>(0.0);
    var a1 = vec4<f32>(0.0);
    var a2 = vec4<f32>(0.0);
    var a3 = vec4<f32>(0.0);
    // Every lane runs the same number of steps (v >= vecs idles), so the lane
    // group is converged again at the subgroup reductions below.
    for (var v0 = v_begin; v0 < v_begin + part; v0 += LANES) {
        let v = v0 + lane;
        let cur = w;
        let cur_b = wb;
        if (v0 + LANES < v_begin + part) {
            w = load_chunk(mc0, mc1, mc2, mc3, v + LANES, v_end, vecs, groups, vec_per_group);
            if (wide) { wb = load_chunk(mb0, mb1, mb2, mb3, v + LANES, v_end, vecs, groups, vec_per_group); }
        }
        if (v < v_end) {
            let sc = chunk_scales(cur);
            let ofs = chunk_offsets(cur);
            if (nr > 0u) { a0 += row_dot(in_row(wg.y, 0u), 0u, v, cur.q0, cur.q1, cur.q2, cur.q3, sc, ofs); }
            if (nr > 1u) { a1 += row_dot(in_row(wg.y, 1u), 1u, v, cur.q0, cur.q1, cur.q2, cur.q3, sc, ofs); }
            if (nr > 2u) { a2 += row_dot(in_row(wg.y, 2u), 2u, v, cur.q0, cur.q1, cur.q2, cur.q3, sc, ofs); }
            if (nr > 3u) { a3 += row_dot(in_row(wg.y, 3u), 3u, v, cur.q0, cur.q1, cur.q2, cur.q3, sc, ofs); }
            if (wide && nr > 0u) {
                a1 += row_dot(in_row(wg.y, 0u), 0u, v, cur_b.q0, cur_b.q1, cur_b.q2, cur_b.q3,
                              chunk_scales(cur_b), chunk_offsets(cur_b));
            }
        }
    }
    // nr is uniform over the workgroup, so skipping the sums of absent rows keeps every
    // invocation's sequence of group_sum calls (and barriers) the same.
    let sum1 = nr > 1u || wide;
    var s0 = group_sum(a0, t);
    var s1 = vec4<f32>(0.0);
    var s2 = vec4<f32>(0.0);
    var s3 = vec4<f32>(0.0);
    if (sum1) { s1 = group_sum(a1, t); }
    if (nr > 2u) { s2 = group_sum(a2, t); }
    if (nr > 3u) { s3 = group_sum(a3, t); }
    if (ksplit() > 1u) {
        // The K parts' sums, added in part order by the first lane group of each slot.
        if (lane == 0u) {
            kpart[lg] = s0;
            if (sum1) { kpart[GROUPS + lg] = s1; }
            if (nr > 2u) { kpart[2u * GROUPS + lg] = s2; }
            if (nr > 3u) { kpart[3u * GROUPS + lg] = s3; }
        }
        workgroupBarrier();
        if (kp == 0u) {
            for (var i = 1u; i < ksplit(); i++) {
                s0 += kpart[lg + i];
                if (sum1) { s1 += kpart[GROUPS + lg + i]; }
                if (nr > 2u) { s2 += kpart[2u * GROUPS + lg + i]; }
                if (nr > 3u) { s3 += kpart[3u * GROUPS + lg + i]; }
            }
        }
    }
    // Lane j of a slot's first lane group writes column slot j (SWIGLU: lanes 0, 1 write gate * up).
    if (lane >= writers || nr == 0u || kp != 0u) { return; }
    let mc = my_mc;
    if (!live(mc)) { return; }
    emit(wg.y, 0u, lane, mc, s0, add0);
    // Slot b's columns follow slot a's: live only where slot a's are.
    if (wide && live(my_b)) { emit(wg.y, 0u, lane, my_b, s1, add_b); }
    if (nr > 1u) { emit(wg.y, 1u, lane, mc, s1, addends(wg.y, 1u, mc)); }
    if (nr > 2u) { emit(wg.y, 2u, lane, mc, s2, addends(wg.y, 2u, mc)); }
    if (nr > 3u) { emit(wg.y, 3u, lane, mc, s3, addends(wg.y, 3u, mc)); }
}
