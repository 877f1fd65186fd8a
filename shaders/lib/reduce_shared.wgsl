// group_sum: the sum of `v` over the 32 consecutive invocations of a lane group,
// returned to all of them, through workgroup memory (adapters without 32-wide
// subgroups). Every invocation of the workgroup must call it the same number of
// times (it contains barriers).
var<workgroup> group_red: array<vec4<f32>, 256>;

fn group_sum(v: vec4<f32>, t: u32) -> vec4<f32> {
    let lane = t % 32u;
    group_red[t] = v;
    workgroupBarrier();
    for (var s = 16u; s > 0u; s >>= 1u) {
        if (lane < s) { group_red[t] += group_red[t + s]; }
        workgroupBarrier();
    }
    let r = group_red[t - lane];
    workgroupBarrier();
    return r;
}

// No subgroup tail here: trees run every level through workgroup memory (see reduce_subgroup.wgsl).
const TREE_TAIL_SHUFFLES: bool = false;
fn tree_tail32(v: f32) -> f32 { return v; }
