// Flash-decoding splits of decode attention (attention_decode.wgsl, decode_layer.wgsl): several
// workgroups per head each take one span of the positions, and the last of a head's splits to
// finish combines them. Included after attention_decode_core.wgsl; the kernel file binds `scratch`
// (a SplitScratch) and defines split_shift() -> u32 (log2 of the positions a split takes, 0: none)
// and store_head (the core's hook).

// The split scratch: a ticket per (row, head), then per (row, head, split) a record of
// head_dim / 4 + 1 vec4s: (m, l, 0, 0) and the split's unnormalised output. A dispatch that splits
// runs at most 128 workgroups (dispatch_attention.rs), so at most 128 records and tickets are in
// use. The tickets start at zero (a fresh buffer) and the last split puts its ticket back to zero.
// A record is written by one workgroup and read by another in the same dispatch: the scratch and
// its accessors (rec_load / rec_store) come from a prelude chosen per adapter,
// split_records_coherent.wgsl (a @coherent binding) or split_records_atomic.wgsl (atomics).
const MAX_SPLITS: u32 = 64u;
const MAX_TICKETS: u32 = 256u;
var<workgroup> split_ml: array<vec2<f32>, MAX_SPLITS>;
var<workgroup> split_last: u32;

// Split s of the context at `pos`: (begin, end, splits). A context of more than twice the minimum
// (combining costs about what a head's unsplit chain gains over those positions, measured on the
// H200) takes as many splits as it has runs of the minimum, at most grid.y, of equal length;
// workgroups past them (where equal lengths need fewer) return.
fn split_of(pos: u32, s: u32, grid_y: u32) -> vec3<u32> {
    let len = min(pos + 1u, p.max_seq);
    let shift = split_shift();
    if (shift == 0u || grid_y == 1u || len <= (2u << shift)) { return vec3<u32>(0u, len, 1u); }
    let want = min(min(grid_y, MAX_SPLITS), (len + (1u << shift) - 1u) >> shift);
    let per = (len + want - 1u) / want;
    let n = (len + per - 1u) / per;
    return vec3<u32>(min(s * per, len), min(s * per + per, len), n);
}

// After attend over split s of n for head h of activation row `row`: true where this workgroup now
// holds the head's final output in head_out (and out): the only split, or the last of n to finish,
// after combining all n in split order (the same arithmetic whichever finishes last). `key` is the
// (row, head)'s ticket, `head` the index of its first record.
fn finish_split(h: u32, row: u32, key: u32, head: u32, s: u32, n: u32, t: u32, ml: vec2<f32>) -> bool {
    if (n == 1u) {
        attend_finish(h, t, row, ml.y);
        return true;
    }
    let hd4 = p.head_dim / 4u;
    let stride = hd4 + 1u;
    if (t < hd4) { rec_store((head + s) * stride + 1u + t, head_out[t]); }
    if (t == 0u) { rec_store((head + s) * stride, vec4<f32>(ml, 0.0, 0.0)); }
    // Device-scope release: the record is visible before the ticket is taken.
    storageBarrier();
    if (t == 0u) {
        let before = atomicAdd(&scratch.tickets[key], 1u);
        var last = 0u;
        if (before == n - 1u) {
            last = 1u;
            atomicStore(&scratch.tickets[key], 0u);
        }
        split_last = last;
    }
    if (workgroupUniformLoad(&split_last) == 0u) { return false; }
    // Device-scope acquire: every split's record is visible to the loads below.
    storageBarrier();
    // Thread (column c, group g) adds splits g, g + G, ..; then the G groups in order. Its first
    // split's output is requested with the (m, l) pairs: one memory round trip where n <= G.
    let c = t % hd4;
    let g = t / hd4;
    let groups = WG / hd4;
    var first = vec4<f32>(0.0);
    if (g < n) { first = rec_load((head + g) * stride + 1u + c); }
    if (t < n) { split_ml[t] = rec_load((head + t) * stride).xy; }
    workgroupBarrier();
    var m = NEG;
    for (var i = 0u; i < n; i++) { m = max(m, split_ml[i].x); }
    var l = 0.0;
    for (var i = 0u; i < n; i++) { l += exp(split_ml[i].x - m) * split_ml[i].y; }
    var o = vec4<f32>(0.0);
    if (g < n) {
        o = exp(split_ml[g].x - m) * first;
        for (var i = g + groups; i < n; i += groups) {
            o += exp(split_ml[i].x - m) * rec_load((head + i) * stride + 1u + c);
        }
    }
    slice_acc[t] = o;
    workgroupBarrier();
    if (t < hd4) {
        var sum = vec4<f32>(0.0);
        for (var i = 0u; i < groups; i++) { sum += slice_acc[i * hd4 + t]; }
        write_head(h, t, row, sum / l);
    }
    return true;
}
