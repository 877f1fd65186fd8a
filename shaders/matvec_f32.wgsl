// y[r, n] = sum_k x[r, k] * w[n, k] (+ bias[n]) for few rows (decode).
// W is [N, K] row-major: each output column's weights are contiguous, so the
// 32 lanes that share a column read consecutive addresses.

struct Params { n: u32, k: u32, group: u32, flags: u32 }

@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

const LANES: u32 = 32u;
const COLS: u32 = 8u;
var<workgroup> partial: array<f32, 256>;

// grid: (ceil(n / 8), rows)   rows = n_tokens, or 1 with LAST_ROW
@compute @workgroup_size(256)
fn matvec_f32(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let lane = lid.x % LANES;
    let c = lid.x / LANES;
    let n = wg.x * COLS + c;
    var in_row = wg.y;
    if ((p.flags & 2u) != 0u) { in_row = step.n_tokens - 1u; }
    var acc = 0.0;
    if (n < p.n && in_row < step.n_tokens) {
        let xb = in_row * p.k;
        let wb = n * p.k;
        for (var k = lane; k < p.k; k += LANES) {
            acc += x[xb + k] * w[wb + k];
        }
    }
    partial[lid.x] = acc;
    workgroupBarrier();
    for (var s = LANES / 2u; s > 0u; s >>= 1u) {
        if (lane < s) { partial[lid.x] += partial[lid.x + s]; }
        workgroupBarrier();
    }
    if (lane == 0u && n < p.n && in_row < step.n_tokens) {
        var v = partial[lid.x];
        if ((p.flags & 1u) != 0u) { v += bias[n]; }
        y[wg.y * p.n + n] = v;
    }
}
