// group_sum: the sum of `v` over the 32 consecutive invocations of a lane group,
// returned to all of them. This variant is used where the adapter's subgroups
// are exactly 32 wide, so a lane group is one subgroup and no barrier is needed.
// (naga takes subgroup builtins without `enable subgroups;` when the device has the feature.)

fn group_sum(v: vec4<f32>, t: u32) -> vec4<f32> {
    return subgroupAdd(v);
}
