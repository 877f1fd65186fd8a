// VITS prior sampling at frame rate: every frame f copies its phoneme's prior
// (`idx[f]`, from the durations) and adds scaled noise,
//   out[c, f] = m[ch0 + c, idx[f]] + noise[ch0 + c, f] * exp(logs[ch0 + c, idx[f]])
// stats: [2 * logs_row0, t_text] (m rows, then log-std rows); noise: [2 * .. , frames],
// already multiplied by noise_scale; out: [channels, frames] (one half of z, so the flow
// gets its halves in two buffers). The frame count is step.n_tokens.

struct Params { channels: u32, ch0: u32, t_text: u32, logs_row0: u32 }

@group(0) @binding(2) var<storage, read> stats: array<f32>;
@group(0) @binding(3) var<storage, read> idx: array<u32>;
@group(0) @binding(4) var<storage, read> noise: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

// grid: (ceil(frames / 256), channels)
@compute @workgroup_size(256)
fn expand_prior(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let frames = step.n_tokens;
    let f = wg.x * 256u + lid.x;
    let c = wg.y;
    if (f >= frames || c >= p.channels) { return; }
    let ch = p.ch0 + c;
    let j = idx[f];
    let m = stats[ch * p.t_text + j];
    let logs = stats[(p.logs_row0 + ch) * p.t_text + j];
    out[c * frames + f] = m + noise[ch * frames + f] * exp(logs);
}
