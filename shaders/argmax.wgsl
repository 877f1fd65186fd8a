// Greedy sampling on the GPU: the index of the largest logit of one row, so a
// decode step reads back 4 bytes instead of the vocabulary. Ties pick the
// lowest index, like torch.argmax. Row: 0, or the step's last token with
// flags & 2 (logits computed for every prompt row). With flags & 4 (batched
// decode) every row gets its own workgroup (grid y = row) and token[row].

struct Params { n: u32, flags: u32, pad0: u32, pad1: u32 }
struct Step { n_tokens: u32, pos0: u32, kv_len: u32, pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<uniform> step: Step;
@group(0) @binding(2) var<storage, read> logits: array<f32>;
@group(0) @binding(3) var<storage, read_write> token: array<u32>;

const WG: u32 = 256u;
var<workgroup> best_v: array<f32, WG>;
var<workgroup> best_i: array<u32, WG>;

fn better(v: f32, i: u32, bv: f32, bi: u32) -> bool {
    // NaN never wins; equal values prefer the lower index.
    return v > bv || (v == bv && i < bi);
}

// grid: (1, 1, 1), or (1, rows, 1) with flags & 4
@compute @workgroup_size(256)
fn argmax(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
    var row = 0u;
    if ((p.flags & 2u) != 0u) { row = step.n_tokens - 1u; }
    if ((p.flags & 4u) != 0u) { row = wg.y; }
    let base = row * p.n;
    var bv = -3.4028235e38;
    var bi = 0xffffffffu;
    for (var i = lid.x; i < p.n; i += WG) {
        let v = logits[base + i];
        if (better(v, i, bv, bi)) { bv = v; bi = i; }
    }
    best_v[lid.x] = bv;
    best_i[lid.x] = bi;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid.x < s) {
            let ov = best_v[lid.x + s];
            let oi = best_i[lid.x + s];
            if (better(ov, oi, best_v[lid.x], best_i[lid.x])) {
                best_v[lid.x] = ov;
                best_i[lid.x] = oi;
            }
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        var dst = 0u;
        if ((p.flags & 4u) != 0u) { dst = row; }
        token[dst] = min(best_i[0], p.n - 1u);
    }
}
