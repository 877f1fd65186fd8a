// Greedy sampling on the GPU: the index of the largest logit of a row, so a
// decode step reads back 4 bytes instead of the vocabulary. Ties pick the
// lowest index and NaN never wins (an all-NaN row gives 0), like the CPU
// sampler. Row: 0, or the step's last token with flags & 2 (logits computed
// for every prompt row); with flags & 4 (batched decode) each row y of the grid
// is a logits row and gets token[y].
//
// Three entry points over the same bindings (src read as raw u32 bits):
//   argmax         one workgroup per row scans the whole row (src = logits).
//   argmax_blocks  stage 1: workgroup (b, y) scans block b of BLOCK logits and
//                  writes (value bits, index) to dst[y * 2 * blocks + 2 b ..].
//   argmax_reduce  stage 2: one workgroup per row reduces the `blocks` pairs
//                  (src = stage 1's dst) to the token. A 248k vocabulary is 122
//                  blocks: the scan runs on 122 workgroups instead of one.
//   argmax_reduce_advance  stage 2 of a one-token decode plan, which then logs the token
//                  by position (token_log[pos0 % TOKEN_LOG]) and moves the step on by one
//                  position (step_rw, the plan's Step buffer; binding 1 then holds a
//                  one-token copy, as one buffer cannot be bound both ways). The next
//                  decode step then needs no Step write from the CPU (a staging copy ahead
//                  of its pass), so several steps can run in one pass and submission, their
//                  tokens read back from the log afterwards.

struct Params { n: u32, flags: u32, blocks: u32, pad1: u32 }

@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;
// argmax_reduce_advance only: [n_tokens, pos0, kv_len, probe].
@group(0) @binding(4) var<storage, read_write> step_rw: array<u32, 4>;
// argmax_reduce_advance only: the tokens of the last TOKEN_LOG steps, by position.
@group(0) @binding(5) var<storage, read_write> token_log: array<u32>;
const TOKEN_LOG: u32 = 256u;

const WG: u32 = 256u;
const BLOCK: u32 = 2048u;
const NONE: u32 = 0xffffffffu;
var<workgroup> best_v: array<f32, WG>;
var<workgroup> best_i: array<u32, WG>;

fn better(v: f32, i: u32, bv: f32, bi: u32) -> bool {
    // NaN never wins; equal values prefer the lower index.
    return v > bv || (v == bv && i < bi);
}

fn logits_row(wg_y: u32) -> u32 {
    if ((p.flags & 2u) != 0u) { return step.n_tokens - 1u; }
    if ((p.flags & 4u) != 0u) { return wg_y; }
    return 0u;
}

// Reduces every invocation's (bv, bi) to best_v[0], best_i[0].
fn reduce(t: u32, bv: f32, bi: u32) {
    best_v[t] = bv;
    best_i[t] = bi;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (t < s) {
            let ov = best_v[t + s];
            let oi = best_i[t + s];
            if (better(ov, oi, best_v[t], best_i[t])) {
                best_v[t] = ov;
                best_i[t] = oi;
            }
        }
        workgroupBarrier();
    }
}

fn token_of(bi: u32) -> u32 {
    if (bi == NONE) { return 0u; }
    return bi;
}

// grid: (1, 1), or (1, rows) with flags & 4
@compute @workgroup_size(256)
fn argmax(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
    let row = logits_row(wg.y);
    let base = row * p.n;
    var bv = bitcast<f32>(0xff800000u);
    var bi = NONE;
    for (var i = lid.x; i < p.n; i += WG) {
        let v = bitcast<f32>(src[base + i]);
        if (better(v, i, bv, bi)) { bv = v; bi = i; }
    }
    reduce(lid.x, bv, bi);
    if (lid.x == 0u) {
        var d = 0u;
        if ((p.flags & 4u) != 0u) { d = row; }
        dst[d] = token_of(best_i[0]);
    }
}

// grid: (blocks, 1), or (blocks, rows) with flags & 4; blocks = ceil(n / BLOCK)
@compute @workgroup_size(256)
fn argmax_blocks(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
    let row = logits_row(wg.y);
    let base = row * p.n;
    let end = min(p.n, (wg.x + 1u) * BLOCK);
    var bv = bitcast<f32>(0xff800000u);
    var bi = NONE;
    // Consecutive invocations read consecutive logits (coalesced).
    for (var i = wg.x * BLOCK + lid.x; i < end; i += WG) {
        let v = bitcast<f32>(src[base + i]);
        if (better(v, i, bv, bi)) { bv = v; bi = i; }
    }
    reduce(lid.x, bv, bi);
    if (lid.x == 0u) {
        var prow = 0u;
        if ((p.flags & 4u) != 0u) { prow = wg.y; }
        let o = (prow * p.blocks + wg.x) * 2u;
        dst[o] = bitcast<u32>(best_v[0]);
        dst[o + 1u] = best_i[0];
    }
}

// Stage 2 for logits row `prow` (every invocation calls it: barriers).
fn reduce_row(t: u32, prow: u32) {
    // (Rows past the step are never dispatched; the check also keeps `step` in the bind group layout.)
    if (prow >= step.n_tokens) { return; }
    var bv = bitcast<f32>(0xff800000u);
    var bi = NONE;
    for (var b = t; b < p.blocks; b += WG) {
        let o = (prow * p.blocks + b) * 2u;
        let v = bitcast<f32>(src[o]);
        let i = src[o + 1u];
        if (better(v, i, bv, bi)) { bv = v; bi = i; }
    }
    reduce(t, bv, bi);
    if (t == 0u) {
        dst[prow] = token_of(best_i[0]);
    }
}

// grid: (1, 1), or (1, rows) with flags & 4
@compute @workgroup_size(256)
fn argmax_reduce(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
    var prow = 0u;
    if ((p.flags & 4u) != 0u) { prow = wg.y; }
    reduce_row(lid.x, prow);
}

// grid: (1, 1)
@compute @workgroup_size(256)
fn argmax_reduce_advance(@builtin(local_invocation_id) lid: vec3<u32>) {
    reduce_row(lid.x, 0u);
    if (lid.x == 0u) {
        token_log[step_rw[1] % TOKEN_LOG] = token_of(best_i[0]);
        step_rw[1] += 1u;
        step_rw[2] += 1u;
    }
}
