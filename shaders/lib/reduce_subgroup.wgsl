// group_sum: the sum of `v` over the 32 consecutive invocations of a lane group,
// returned to all of them. This variant is used where the adapter's subgroups
// are exactly 32 wide, so a lane group is one subgroup and no barrier is needed.
// (naga takes subgroup builtins without `enable subgroups;` when the device has the feature.)

fn group_sum(v: vec4<f32>, t: u32) -> vec4<f32> {
    return subgroupAdd(v);
}

// A 256-wide workgroup-memory tree's last five levels (s = 16, 8, 4, 2, 1) inside the first
// lane group: lane t adds lane t + s as the tree adds partial[t + s] to partial[t], so lane 0
// ends with the tree's total, bit for bit, without the five barriers.
const TREE_TAIL_SHUFFLES: bool = true;
fn tree_tail32(v: f32) -> f32 {
    var r = v;
    r += subgroupShuffleDown(r, 16u);
    r += subgroupShuffleDown(r, 8u);
    r += subgroupShuffleDown(r, 4u);
    r += subgroupShuffleDown(r, 2u);
    r += subgroupShuffleDown(r, 1u);
    return r;
}
