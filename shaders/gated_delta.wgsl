// The gated delta rule on the conv's output rows (shaders/lib/gated_delta_core.wgsl):
// a prefill's recurrent steps, and decode when the conv runs as its own dispatch.

fn conv_in(t: u32, ch: u32, raw: f32) -> f32 { return raw; }
fn conv_keep(t: u32, ch: u32, raw: f32) {}

@compute @workgroup_size(256)
fn gated_delta(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    gated_delta_core(wg, lid, 0u, step.n_tokens, 0u);
}
