// Appends this step's K and V rows to the layer's cache at positions pos0 + row
// (kv_append), or each row into its own sequence's region (kv_append_rows).
// Cache layout [kv_head][max_seq][head_dim] (per slot): attention walks one head's
// keys contiguously.

struct Params { kv_width: u32, head_dim: u32, max_seq: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> k: array<f32>;
@group(0) @binding(3) var<storage, read> v: array<f32>;
@group(0) @binding(4) var<storage, read_write> k_cache: array<f32>;
@group(0) @binding(5) var<storage, read_write> v_cache: array<f32>;

// grid: (ceil(kv_width / 256), n_tokens)
@compute @workgroup_size(256)
fn kv_append(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.y;
    let col = wg.x * 256u + lid.x;
    let pos = step.pos0 + row;
    if (row >= step.n_tokens || col >= p.kv_width || pos >= p.max_seq) { return; }
    let h = col / p.head_dim;
    let d = col % p.head_dim;
    let dst = (h * p.max_seq + pos) * p.head_dim + d;
    k_cache[dst] = k[row * p.kv_width + col];
    v_cache[dst] = v[row * p.kv_width + col];
}

// A packed prefill: row r belongs to KV slot rows[2r] at position rows[2r + 1]; the caches hold
// one [n_kv_heads, max_seq, head_dim] region per slot.
@group(0) @binding(6) var<storage, read> rows: array<u32>;

// grid: (ceil(kv_width / 256), n_tokens)
@compute @workgroup_size(256)
fn kv_append_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.y;
    let col = wg.x * 256u + lid.x;
    if (row >= step.n_tokens || col >= p.kv_width) { return; }
    let slot = rows[2u * row];
    let pos = rows[2u * row + 1u];
    if (pos >= p.max_seq) { return; }
    let kv_heads = p.kv_width / p.head_dim;
    let h = col / p.head_dim;
    let d = col % p.head_dim;
    let dst = ((slot * kv_heads + h) * p.max_seq + pos) * p.head_dim + d;
    k_cache[dst] = k[row * p.kv_width + col];
    v_cache[dst] = v[row * p.kv_width + col];
}
