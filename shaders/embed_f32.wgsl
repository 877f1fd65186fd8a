// Embedding gather: out[row, :] = table[tokens[row], :].
// f32 table.

struct Params { width: u32, vocab: u32, group: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> tokens: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

// grid: (ceil(width / 256), n_tokens)
@compute @workgroup_size(256)
fn embed_f32(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.y;
    let col = wg.x * 256u + lid.x;
    if (row >= step.n_tokens || col >= p.width) { return; }
    let tok = min(tokens[row], p.vocab - 1u);
    out[row * p.width + col] = table[tok * p.width + col];
}
