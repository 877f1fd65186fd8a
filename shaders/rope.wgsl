// Rotary position embedding on q and k of every token in one dispatch.
// cos_sin[pos * rotary_dim/2 + i] = (cos, sin) of pos * inv_freq[i], computed on
// the CPU at load (so rope scaling variants live in Rust, and large angles keep
// full precision on GPUs with approximate sin/cos).
// neox (HF rotate_half): pairs (i, i + rotary_dim/2); interleaved: (2i, 2i + 1).
// Dimensions past rotary_dim (partial rotary) are copied through.

struct Params {
    n_q_heads: u32, n_kv_heads: u32, head_dim: u32, rotary_dim: u32,
    interleaved: u32, max_pos: u32, pad0: u32, pad1: u32,
}

@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k: array<f32>;
@group(0) @binding(4) var<storage, read> cos_sin: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read_write> q_out: array<f32>;
@group(0) @binding(6) var<storage, read_write> k_out: array<f32>;

fn rotate(is_q: bool, base: u32, pos: u32, lid: u32) {
    let half = p.rotary_dim / 2u;
    for (var i = lid; i < half; i += 64u) {
        var a = i;
        var b = i + half;
        if (p.interleaved != 0u) { a = 2u * i; b = 2u * i + 1u; }
        let cs = cos_sin[pos * half + i];
        var xa: f32; var xb: f32;
        if (is_q) { xa = q[base + a]; xb = q[base + b]; } else { xa = k[base + a]; xb = k[base + b]; }
        let ya = xa * cs.x - xb * cs.y;
        let yb = xb * cs.x + xa * cs.y;
        if (is_q) { q_out[base + a] = ya; q_out[base + b] = yb; } else { k_out[base + a] = ya; k_out[base + b] = yb; }
    }
    for (var d = p.rotary_dim + lid; d < p.head_dim; d += 64u) {
        if (is_q) { q_out[base + d] = q[base + d]; } else { k_out[base + d] = k[base + d]; }
    }
}

fn rotate_head(h: u32, row: u32, pos: u32, lid: u32) {
    if (h < p.n_q_heads) {
        rotate(true, (row * p.n_q_heads + h) * p.head_dim, pos, lid);
    } else {
        rotate(false, (row * p.n_kv_heads + (h - p.n_q_heads)) * p.head_dim, pos, lid);
    }
}

// grid: (n_q_heads + n_kv_heads, n_tokens)
@compute @workgroup_size(64)
fn rope(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.y;
    if (row >= step.n_tokens) { return; }
    rotate_head(wg.x, row, min(step.pos0 + row, p.max_pos - 1u), lid.x);
}

// A packed prefill: row r at position rows[2r + 1] (rows[2r] is its KV slot).
@group(0) @binding(7) var<storage, read> rows: array<u32>;

// grid: (n_q_heads + n_kv_heads, n_tokens)
@compute @workgroup_size(64)
fn rope_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.y;
    if (row >= step.n_tokens) { return; }
    rotate_head(wg.x, row, min(rows[2u * row + 1u], p.max_pos - 1u), lid.x);
}
