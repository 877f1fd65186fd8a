// Embedding gather from an INT4 table: out[row, :] = dequant(table[tokens[row], :]).
// Tied embeddings share the lm_head's INT4 copy, so no f32 copy is kept.

struct Params { width: u32, vocab: u32, group: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> tokens: array<u32>;
@group(0) @binding(3) var<storage, read> wq: array<u32>;
@group(0) @binding(4) var<storage, read> wsm: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

// grid: (ceil(width / 256), n_tokens); width % 8 == 0, width % group == 0
@compute @workgroup_size(256)
fn embed_int4(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.y;
    let col = wg.x * 256u + lid.x;
    if (row >= step.n_tokens || col >= p.width) { return; }
    let tok = min(tokens[row], p.vocab - 1u);
    let word = wq[(tok * p.width + col) / 8u];
    let nib = f32((word >> (4u * (col % 8u))) & 15u);
    let sm = wsm[(tok * p.width + col) / p.group];
    out[row * p.width + col] = sm.x * nib + sm.y;
}
