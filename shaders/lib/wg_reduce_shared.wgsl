// reduce_max / reduce_sum over a 256-invocation workgroup, returned to all of
// them, through a workgroup-memory tree (adapters without 32-wide subgroups).
// Every invocation must call them the same number of times (they contain barriers).
var<workgroup> red: array<f32, 256>;

fn reduce_max(t: u32, x: f32) -> f32 {
    red[t] = x;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (t < s) { red[t] = max(red[t], red[t + s]); }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

fn reduce_sum(t: u32, x: f32) -> f32 {
    red[t] = x;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (t < s) { red[t] += red[t + s]; }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}
