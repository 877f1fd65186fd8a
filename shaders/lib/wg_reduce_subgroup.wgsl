// reduce_max / reduce_sum over a 256-invocation workgroup, returned to all of
// them: a subgroup reduction, then the 8 subgroup results through workgroup
// memory. Used where subgroups are exactly 32 wide: 2 barriers instead of the
// tree's 9 (decode attention is a chain of such reductions, latency-bound).
// Every invocation must call them the same number of times (they contain barriers).
var<workgroup> red: array<f32, 8>;

fn reduce_max(t: u32, x: f32) -> f32 {
    let s = subgroupMax(x);
    if (t % 32u == 0u) { red[t / 32u] = s; }
    workgroupBarrier();
    var r = red[0];
    for (var i = 1u; i < 8u; i++) { r = max(r, red[i]); }
    workgroupBarrier();
    return r;
}

fn reduce_sum(t: u32, x: f32) -> f32 {
    let s = subgroupAdd(x);
    if (t % 32u == 0u) { red[t / 32u] = s; }
    workgroupBarrier();
    var r = red[0];
    for (var i = 1u; i < 8u; i++) { r += red[i]; }
    workgroupBarrier();
    return r;
}
