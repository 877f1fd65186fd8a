// Decode attention over q / k / v computed by the previous dispatch (the body, with its
// modes, is shaders/lib/attention_decode_core.wgsl): one new token (attention_decode),
// one per batched sequence (attention_rows), or one followed by this head's partial
// rows of o_proj (attention_decode_o).
//
// Decode splits a long context (flash-decoding): several workgroups per head (and row) each
// take one span of the positions, so a head's chain of cache round trips is as short as at
// a small context instead of growing with it. Each split leaves its unnormalised output and
// (max, sum) in `scratch`; the last of a head's splits to finish (an atomic ticket: no
// workgroup ever waits for another, so any adapter runs it) combines them in split order and
// goes on to what follows the attention. A context of at most twice the split size runs as
// one workgroup per head, bit for bit as without splits. The plan sizes grid.y for the
// step's context (Dim::KvSplits, this file's split_of rule).

struct Params {
    n_heads: u32, n_kv_heads: u32, head_dim: u32, max_seq: u32,
    scale: f32, rotary_dim: u32, flags: u32, qk_eps: f32,
}

@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k: array<f32>;
@group(0) @binding(4) var<storage, read> v: array<f32>;
@group(0) @binding(5) var<storage, read> cos_sin: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read> q_norm: array<f32>;
@group(0) @binding(7) var<storage, read> k_norm: array<f32>;
// The caches in words of 4 values (head_dim is a multiple of 4; shaders/lib/kv_*.wgsl): a key
// or value row is head_dim / 4 independent loads.
@group(0) @binding(8) var<storage, read_write> k_cache: array<KvWord>;
@group(0) @binding(9) var<storage, read_write> v_cache: array<KvWord>;
@group(0) @binding(10) var<storage, read_write> out: array<f32>;

// Flag bits, compiled in as a pipeline constant (the same bits are in p.flags): the
// library's QK_NORM, INTERLEAVED, PREPARED in bits 0-2; attention_decode_o only:
// log2(o_proj group / 32) in bits 4-5, o_proj outputs / 4 in bits 8-20; every entry: log2 of
// the positions a split takes in bits 24-27 (0: no splits).
override FLAGS: u32 = 0u;
fn attn_flags() -> u32 { return FLAGS & 7u; }
fn o_group() -> u32 { return 32u << ((FLAGS >> 4u) & 3u); }
fn o_quads() -> u32 { return (FLAGS >> 8u) & 0x1fffu; }
const WG: u32 = 256u;
const O_MAT: u32 = 0u;
const CHUNK: u32 = 1024u;

// Where the head's output and the o_proj partial rows go.
fn store_head(i: u32, o: vec4<f32>) {
    out[i] = o.x;
    out[i + 1u] = o.y;
    out[i + 2u] = o.z;
    out[i + 3u] = o.w;
}
fn store_o_part(i: u32, v: vec4<f32>) { o_part[i] = v; }

fn new_q(h: u32, t: u32, row: u32) -> f32 { return q[(row * p.n_heads + h) * p.head_dim + t]; }
fn new_k(kvh: u32, t: u32, row: u32) -> f32 { return k[(row * p.n_kv_heads + kvh) * p.head_dim + t]; }
fn new_v(kvh: u32, t: u32, row: u32) -> f32 { return v[(row * p.n_kv_heads + kvh) * p.head_dim + t]; }

// The split scratch (shaders/lib/attention_split.wgsl's SplitScratch).
@group(0) @binding(11) @coherent var<storage, read_write> scratch: SplitScratch;
fn split_shift() -> u32 { return (FLAGS >> 24u) & 15u; }

// grid: (n_heads, the step's splits)
@compute @workgroup_size(256)
fn attention_decode(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>) {
    let pos = step.pos0;
    let sp = split_of(pos, wg.y, nwg.y);
    if (wg.y >= sp.z) { return; }
    let span = Span(sp.x, sp.y);
    let ml = attend(wg.x, lid.x, 0u, 0u, pos, span, attend_prefetch(wg.x, lid.x, 0u, pos, span));
    finish_split(wg.x, 0u, wg.x, wg.x * nwg.y, wg.y, sp.z, lid.x, ml);
}

// Batched decode: row r of q/k/v/out belongs to the sequence in KV slot rows[2r] at
// position rows[2r + 1]. The caches hold one [n_kv_heads, max_seq, head_dim] region per
// slot, so every row reads and appends to its own sequence. grid.y is rows x S: row r's
// splits are workgroups r S .. r S + S (S sized by the plan for the batch's longest
// context; each row takes the splits its own context needs, at most S).
@group(0) @binding(12) var<storage, read> rows: array<u32>;
var<workgroup> row_slot: u32;
var<workgroup> row_pos: u32;

// grid: (n_heads, rows x splits)
@compute @workgroup_size(256)
fn attention_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>) {
    let splits = max(nwg.y / step.n_tokens, 1u);
    let r = wg.y / splits;
    let s = wg.y % splits;
    if (r >= step.n_tokens) { return; }
    if (lid.x == 0u) {
        row_slot = rows[2u * r];
        row_pos = rows[2u * r + 1u];
    }
    // Loop bounds and barriers depend on the position: load it as a
    // workgroup-uniform value.
    let slot = workgroupUniformLoad(&row_slot);
    let pos = workgroupUniformLoad(&row_pos);
    let sp = split_of(pos, s, splits);
    if (s >= sp.z) { return; }
    let span = Span(sp.x, sp.y);
    let ml = attend(wg.x, lid.x, r, slot, pos, span, attend_prefetch(wg.x, lid.x, slot, pos, span));
    let key = r * p.n_heads + wg.x;
    finish_split(wg.x, r, key, key * splits, s, sp.z, lid.x, ml);
}

// Attention, then this head's per-word partial rows of o_proj (o_partials; `out` is still
// written, nothing reads it).
@group(0) @binding(12) var<storage, read> o_q: array<vec4<u32>>;
@group(0) @binding(13) var<storage, read> o_sm: array<vec2<f32>>;
@group(0) @binding(14) var<storage, read_write> o_part: array<vec4<f32>>;

fn load_q(m: u32, i: u32) -> vec4<u32> { return o_q[i]; }
fn load_sm(m: u32, i: u32) -> vec2<f32> { return o_sm[i]; }

// grid: (n_heads, the step's splits)
@compute @workgroup_size(256)
fn attention_decode_o(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                      @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = lid.x;
    let h = wg.x;
    let pos = step.pos0;
    let sp = split_of(pos, wg.y, nwg.y);
    if (wg.y >= sp.z) { return; }
    let span = Span(sp.x, sp.y);
    // Every split requests o_proj's weights at its start: which one finishes last is not known.
    let o = o_prefetch(h, t);
    let ml = attend(h, t, 0u, 0u, pos, span, attend_prefetch(h, t, 0u, pos, span));
    if (!finish_split(h, 0u, h, h * nwg.y, wg.y, sp.z, t, ml)) { return; }
    workgroupBarrier();
    o_partials(h, t, o);
}
