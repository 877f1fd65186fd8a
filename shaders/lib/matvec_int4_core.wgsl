// The INT4 decode matvec shared by matvec_int4.wgsl (plain: 5 storage bindings,
// for adapters with few storage buffers per stage) and matvec_fused_int4.wgsl
// (norm prologue, up to three matrices, residual / SwiGLU epilogues). The kernel
// file declares Params `p` (FusedMatvecParams), Step `step`, x, and the hooks
//   load_q(m, i) -> vec4<u32>, load_sm(m, i) -> vec2<f32>, norm_weight(i) -> vec4<f32>,
//   resid_at(i) -> f32, bias_at(m, c) -> f32, store(m, i, v)
// and calls matvec_core from its entry point. Layout and arithmetic: see
// matvec_fused_int4.wgsl.

// Flag bits, compiled in as a pipeline constant: bits 0-7 as below, bits 8-9
// the number of matrices.
override FLAGS: u32 = 0u;
const NORM: u32 = 1u;
const ADD_UNIT: u32 = 2u;
const RESID: u32 = 4u;
const SWIGLU: u32 = 8u;
const BIAS0: u32 = 16u;
const BIAS1: u32 = 32u;
const BIAS2: u32 = 64u;
const LAST_ROW: u32 = 128u;

const WG: u32 = 256u;
const LANES: u32 = 32u;
const GROUPS: u32 = 8u;
const CPG: u32 = 4u;
const ROWS: u32 = 4u;
var<workgroup> partial: array<f32, 256>;
var<workgroup> inv_rms: array<f32, ROWS>;

fn nib4(word: u32, shift: u32) -> vec4<f32> {
    return vec4<f32>(f32((word >> shift) & 15u), f32((word >> (shift + 4u)) & 15u),
                     f32((word >> (shift + 8u)) & 15u), f32((word >> (shift + 12u)) & 15u));
}

// x' of input row `row`, vec4 index i; `r` is the row's slot in this workgroup.
fn xin(row: u32, r: u32, i: u32) -> vec4<f32> {
    let xv = x[row * (p.k / 4u) + i];
    if ((FLAGS & NORM) != 0u) {
        var g = norm_weight(i);
        if ((FLAGS & ADD_UNIT) != 0u) { g = vec4<f32>(1.0) + g; }
        return (xv * inv_rms[r]) * g;
    }
    return xv;
}

fn height(m: u32) -> u32 {
    if (m == 0u) { return p.n0; }
    if (m == 1u) { return p.n1; }
    return p.n2;
}

// Which matrix and column slot j of lane group `lg` in workgroup `wgx` computes.
// SWIGLU: slots 0..CPG/2 are gate columns, the rest the matching up columns.
fn slot_col(wgx: u32, lg: u32, j: u32) -> vec2<u32> {
    if ((FLAGS & SWIGLU) != 0u) {
        let half = CPG / 2u;
        let c = (wgx * GROUPS + lg) * half + j % half;
        return vec2<u32>(j / half, c);
    }
    var c = (wgx * GROUPS + lg) * CPG + j;
    var m = 0u;
    let n_mats = (FLAGS >> 8u) & 3u;
    if (n_mats > 1u && c >= p.n0) {
        c -= p.n0;
        m = 1u;
        if (n_mats > 2u && c >= p.n1) { c -= p.n1; m = 2u; }
    }
    return vec2<u32>(m, c);
}

// input row of workgroup row slot r (>= n_tokens: none)
fn in_row(wgy: u32, r: u32) -> u32 {
    if ((FLAGS & LAST_ROW) != 0u) {
        if (r == 0u) { return step.n_tokens - 1u; }
        return 0xffffffffu;
    }
    return wgy * ROWS + r;
}

// grid: (ceil(cols / (GROUPS * CPG)), ceil(rows / ROWS))   cols = n0 + n1 + n2,
// or n0 * 2 with SWIGLU; rows = n_tokens, or 1 with LAST_ROW
fn matvec_core(wg: vec3<u32>, lid: vec3<u32>) {
    let t = lid.x;
    let lane = t % LANES;
    let lg = t / LANES;
    var nr = 0u;
    for (var r = 0u; r < ROWS; r++) {
        if (in_row(wg.y, r) < step.n_tokens) { nr = r + 1u; }
    }
    if ((FLAGS & NORM) != 0u) {
        for (var r = 0u; r < ROWS; r++) {
            if (r >= nr) { break; }
            let base = in_row(wg.y, r) * p.k;
            var ss = 0.0;
            for (var i = t; i < p.k; i += WG) {
                let v = x[(base + i) / 4u][i % 4u];
                ss += v * v;
            }
            partial[t] = ss;
            workgroupBarrier();
            for (var s = WG / 2u; s > 0u; s >>= 1u) {
                if (t < s) { partial[t] += partial[t + s]; }
                workgroupBarrier();
            }
            if (t == 0u) { inv_rms[r] = inverseSqrt(partial[0] / f32(p.k) + p.eps); }
            workgroupBarrier();
        }
    }
    let vecs = p.k / 32u;
    let groups = p.k / p.group;
    let vec_per_group = p.group / 32u;
    var cols: array<vec2<u32>, CPG>;
    var live: array<bool, CPG>;
    for (var j = 0u; j < CPG; j++) {
        cols[j] = slot_col(wg.x, lg, j);
        live[j] = cols[j].y < height(cols[j].x);
    }

    var acc: array<f32, 16>; // [slot j][row r] at j * ROWS + r
    for (var i = 0u; i < CPG * ROWS; i++) { acc[i] = 0.0; }
    for (var v = lane; v < vecs; v += LANES) {
        var qs: array<vec4<u32>, CPG>;
        var sms: array<vec2<f32>, CPG>;
        for (var j = 0u; j < CPG; j++) {
            if (live[j]) {
                let c = cols[j].y;
                qs[j] = load_q(cols[j].x, c * vecs + v);
                sms[j] = load_sm(cols[j].x, c * groups + v / vec_per_group);
            }
        }
        for (var r = 0u; r < ROWS; r++) {
            if (r >= nr) { break; }
            let row = in_row(wg.y, r);
            var dq: array<f32, CPG>;
            var sx = 0.0;
            for (var jj = 0u; jj < 4u; jj++) {
                let xa = xin(row, r, 8u * v + 2u * jj);
                let xb = xin(row, r, 8u * v + 2u * jj + 1u);
                sx += dot(xa + xb, vec4<f32>(1.0));
                for (var j = 0u; j < CPG; j++) {
                    dq[j] += dot(nib4(qs[j][jj], 0u), xa) + dot(nib4(qs[j][jj], 16u), xb);
                }
            }
            for (var j = 0u; j < CPG; j++) {
                acc[j * ROWS + r] += sms[j].x * dq[j] + sms[j].y * sx;
            }
        }
    }
    // Sum every (slot, row) over the lane group; lane j keeps slot j's sums
    // (and, with SWIGLU, the matching up column's). Constant indices only, so
    // the arrays stay in registers.
    var mine: array<f32, ROWS>;
    var up: array<f32, ROWS>;
    for (var jj = 0u; jj < CPG; jj++) {
        for (var r = 0u; r < ROWS; r++) {
            let s = group_sum(acc[jj * ROWS + r], t);
            if (jj == lane) { mine[r] = s; }
            if (jj == lane + CPG / 2u) { up[r] = s; }
        }
    }
    let swiglu = (FLAGS & SWIGLU) != 0u;
    let mc = slot_col(wg.x, lg, lane);
    let m = mc.x;
    let c = mc.y;
    if (lane >= CPG || c >= height(m) || (swiglu && m != 0u)) { return; }
    for (var r = 0u; r < ROWS; r++) {
        if (r >= nr) { break; }
        var out_row = in_row(wg.y, r);
        if ((FLAGS & LAST_ROW) != 0u) { out_row = 0u; }
        let d = mine[r];
        if (swiglu) {
            var g = d;
            var u = up[r];
            if ((FLAGS & BIAS0) != 0u) { g += bias_at(0u, c); }
            if ((FLAGS & BIAS1) != 0u) { u += bias_at(1u, c); }
            store(0u, out_row * p.n0 + c, (g / (1.0 + exp(-g))) * u);
        } else {
            var val = d;
            if ((FLAGS & (BIAS0 << m)) != 0u) { val += bias_at(m, c); }
            if (m == 0u && (FLAGS & RESID) != 0u) { val += resid_at(out_row * p.n0 + c); }
            store(m, out_row * height(m) + c, val);
        }
    }
}
