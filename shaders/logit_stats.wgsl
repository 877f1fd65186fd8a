// What a decoder needs from one row of logits to pick its next token, so a
// step reads back 16 words instead of the vocabulary (Whisper: 51864 floats).
// The vocabulary splits at `split` into group A [0, split) (text and specials)
// and group B [split, vocab) (timestamps). A token is allowed unless
//   - its bit is set in the always-mask (flags & MASK) or the begin-mask
//     (flags & BEGIN: the first sampled position),
//   - it is below `kill_end` (a timestamp pair is open: no text next),
//   - it is in B outside [ts_lo, ts_hi) (monotonic / initial timestamp rules).
// Per group the kernel reports the max allowed logit, its lowest index, and
// the log-sum-exp of the allowed logits; with flags & SAMPLE also the
// Gumbel-max pick argmax(logit * inv_temp - log(-log(u))), u from a hash of
// (seed, index), which samples softmax(logit / T) restricted to the group,
// and the raw logit of that pick. `probe` is any token's raw logit (Whisper:
// <|nospeech|> in the start-of-transcript row).
// out[slot * 16 + ...]: 0 max_a, 1 lse_a, 2 arg_a, 3 max_b, 4 lse_b, 5 arg_b,
// 6 gumbel_a, 7 garg_a, 8 glogit_a, 9 gumbel_b, 10 garg_b, 11 glogit_b,
// 12 logits[probe]; f32 as bits, indices as u32, an empty group reports
// -3.4e38 and index 0xffffffff.

struct Params {
    vocab: u32, split: u32, kill_end: u32, ts_lo: u32,
    ts_hi: u32, mask_words: u32, flags: u32, inv_temp: f32,
    seed: u32, probe: u32, row: u32, slot: u32,
}

@group(0) @binding(2) var<storage, read> logits: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;

const WG: u32 = 256u;
const NEG: f32 = -3.4028235e38;
const NONE: u32 = 0xffffffffu;
const MASK: u32 = 1u;
const BEGIN: u32 = 2u;
const SAMPLE: u32 = 4u;

// Per thread and group: max, argmax, running sum of exp(x - max), gumbel max, its index and raw logit.
var<workgroup> s_max: array<array<f32, WG>, 2>;
var<workgroup> s_arg: array<array<u32, WG>, 2>;
var<workgroup> s_sum: array<array<f32, WG>, 2>;
var<workgroup> s_gv: array<array<f32, WG>, 2>;
var<workgroup> s_gi: array<array<u32, WG>, 2>;
var<workgroup> s_gl: array<array<f32, WG>, 2>;

fn pcg(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// -log(u) for u = (k + 0.5) / 2^24. Near u = 1 it is tiny and f32 log(u)
// keeps few of its digits (the Gumbel value then differs by 1e-3 from the
// exact one); there w = 1 - u is exact and -log(1 - w) = w + w^2/2 + w^3/3 + ...
fn neg_log_uniform(k: u32) -> f32 {
    let w = (f32(16777215u - k) + 0.5) / 16777216.0;
    if (w < 0.01) { return w * (1.0 + w * (0.5 + w / 3.0)); }
    return -log((f32(k) + 0.5) / 16777216.0);
}

fn allowed(i: u32) -> bool {
    let w = i / 32u;
    let bit = 1u << (i % 32u);
    if ((p.flags & MASK) != 0u && (mask[w] & bit) != 0u) { return false; }
    if ((p.flags & BEGIN) != 0u && (mask[p.mask_words + w] & bit) != 0u) { return false; }
    if (i < p.kill_end) { return false; }
    if (i >= p.split && (i < p.ts_lo || i >= p.ts_hi)) { return false; }
    return true;
}

fn better(v: f32, i: u32, bv: f32, bi: u32) -> bool {
    return v > bv || (v == bv && i < bi);
}

// grid: (1, 1): one workgroup reduces row `p.row`.
@compute @workgroup_size(256)
fn logit_stats(@builtin(local_invocation_id) lid: vec3<u32>) {
    if (step.n_tokens == 0u) { return; } // the recorder passes 1
    let t = lid.x;
    let base = p.row * p.vocab;
    var mx = array<f32, 2>(NEG, NEG);
    var am = array<u32, 2>(NONE, NONE);
    var sm = array<f32, 2>(0.0, 0.0);
    var gv = array<f32, 2>(NEG, NEG);
    var gi = array<u32, 2>(NONE, NONE);
    var gl = array<f32, 2>(NEG, NEG);
    for (var i = t; i < p.vocab; i += WG) {
        if (!allowed(i)) { continue; }
        let x = logits[base + i];
        var g = 0u;
        if (i >= p.split) { g = 1u; }
        // Online log-sum-exp: rescale the running sum when the max grows.
        if (x > mx[g]) {
            sm[g] = sm[g] * exp(mx[g] - x) + 1.0;
            mx[g] = x;
            am[g] = i;
        } else {
            sm[g] += exp(x - mx[g]);
        }
        if ((p.flags & SAMPLE) != 0u) {
            let y = x * p.inv_temp - log(neg_log_uniform(pcg(p.seed ^ pcg(i)) >> 8u));
            if (better(y, i, gv[g], gi[g])) { gv[g] = y; gi[g] = i; gl[g] = x; }
        }
    }
    for (var g = 0u; g < 2u; g++) {
        s_max[g][t] = mx[g];
        s_arg[g][t] = am[g];
        s_sum[g][t] = sm[g];
        s_gv[g][t] = gv[g];
        s_gi[g][t] = gi[g];
        s_gl[g][t] = gl[g];
    }
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (t < s) {
            for (var g = 0u; g < 2u; g++) {
                let m1 = s_max[g][t];
                let m2 = s_max[g][t + s];
                let m = max(m1, m2);
                var sum = 0.0;
                if (s_sum[g][t] > 0.0) { sum += s_sum[g][t] * exp(m1 - m); }
                if (s_sum[g][t + s] > 0.0) { sum += s_sum[g][t + s] * exp(m2 - m); }
                s_sum[g][t] = sum;
                if (better(m2, s_arg[g][t + s], m1, s_arg[g][t])) { s_arg[g][t] = s_arg[g][t + s]; }
                s_max[g][t] = m;
                if (better(s_gv[g][t + s], s_gi[g][t + s], s_gv[g][t], s_gi[g][t])) {
                    s_gv[g][t] = s_gv[g][t + s];
                    s_gi[g][t] = s_gi[g][t + s];
                    s_gl[g][t] = s_gl[g][t + s];
                }
            }
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        let o = p.slot * 16u;
        for (var g = 0u; g < 2u; g++) {
            var lse = NEG;
            if (s_sum[g][0] > 0.0) { lse = s_max[g][0] + log(s_sum[g][0]); }
            out[o + g * 3u] = bitcast<u32>(s_max[g][0]);
            out[o + g * 3u + 1u] = bitcast<u32>(lse);
            out[o + g * 3u + 2u] = s_arg[g][0];
            out[o + 6u + g * 3u] = bitcast<u32>(s_gv[g][0]);
            out[o + 6u + g * 3u + 1u] = s_gi[g][0];
            out[o + 6u + g * 3u + 2u] = bitcast<u32>(s_gl[g][0]);
        }
        out[o + 12u] = bitcast<u32>(logits[base + min(p.probe, p.vocab - 1u)]);
        out[o + 13u] = 0u;
        out[o + 14u] = 0u;
        out[o + 15u] = 0u;
    }
}
