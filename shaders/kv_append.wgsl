// Appends this step's K and V rows to the layer's cache at positions pos0 + row
// (kv_append), or each row into its own sequence's region (kv_append_rows).
// Cache layout [kv_head][max_seq][head_dim] (per slot): attention walks one head's
// keys contiguously. One thread per 4 values (head_dim % 4 == 0): a cache word
// (shaders/lib/kv_*.wgsl) is written whole.

struct Params { kv_width: u32, head_dim: u32, max_seq: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> k: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> k_cache: array<KvWord>;
@group(0) @binding(5) var<storage, read_write> v_cache: array<KvWord>;

// grid: (ceil(kv_width / 1024), n_tokens)
@compute @workgroup_size(256)
fn kv_append(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.y;
    let c4 = wg.x * 256u + lid.x;
    let w4 = p.kv_width / 4u;
    let pos = step.pos0 + row;
    if (row >= step.n_tokens || c4 >= w4 || pos >= p.max_seq) { return; }
    let hd4 = p.head_dim / 4u;
    let h = c4 / hd4;
    let d4 = c4 % hd4;
    let dst = (h * p.max_seq + pos) * hd4 + d4;
    k_cache[dst] = kv_put(k[row * w4 + c4]);
    v_cache[dst] = kv_put(v[row * w4 + c4]);
}

// A packed prefill or a batched decode step: row r belongs to KV slot rows[2r] at position
// rows[2r + 1]; the caches hold one [n_kv_heads, max_seq, head_dim] region per slot, or blocks
// found through the block table (KV_PAGED, gpu/kv_pages.rs).
@group(0) @binding(6) var<storage, read> rows: array<u32>;

// grid: (ceil(kv_width / 1024), n_tokens)
@compute @workgroup_size(256)
fn kv_append_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.y;
    let c4 = wg.x * 256u + lid.x;
    let w4 = p.kv_width / 4u;
    if (row >= step.n_tokens || c4 >= w4) { return; }
    let slot = rows[2u * row];
    let pos = rows[2u * row + 1u];
    if (pos >= p.max_seq) { return; }
    let kv_heads = p.kv_width / p.head_dim;
    let hd4 = p.head_dim / 4u;
    let h = c4 / hd4;
    let d4 = c4 % hd4;
    var dst = ((slot * kv_heads + h) * p.max_seq + pos) * hd4 + d4;
    if (KV_PAGED) { dst = kv_row_paged(slot, h, pos, hd4) + d4; }
    k_cache[dst] = kv_put(k[row * w4 + c4]);
    v_cache[dst] = kv_put(v[row * w4 + c4]);
}
