// Moves a plan's Step on by the tokens the step just ran (pos0 and kv_len += n_tokens), on the
// GPU, as the last dispatch of a decode step's pass: the next step then finds its position
// already there and needs no queue.write_buffer (a staging copy and a barrier ahead of its
// pass: 8-27 us a step on the H200). Not a registry kernel: it binds the Step buffer as
// storage, where every other kernel reads it as the uniform at binding 1.

struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<storage, read_write> step: Step;

@compute @workgroup_size(1)
fn step_advance() {
    step.pos0 += step.n_tokens;
    step.kv_len += step.n_tokens;
}
