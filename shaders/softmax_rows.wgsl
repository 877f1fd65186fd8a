// In-place softmax over each row of x [rows, width] (attention scores).
// One workgroup per row: max, then sum of exp, then normalise.

struct Params { width: u32, pad0: u32, pad1: u32, pad2: u32 }

@group(0) @binding(2) var<storage, read_write> x: array<f32>;

const WG: u32 = 256u;
var<workgroup> red: array<f32, 256>;

// grid: (rows, 1)
@compute @workgroup_size(256)
fn softmax_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if (wg.x >= step.n_tokens) { return; } // n_tokens = rows
    let t = lid.x;
    let base = wg.x * p.width;
    var m = -3.4028235e38;
    for (var i = t; i < p.width; i += WG) { m = max(m, x[base + i]); }
    red[t] = m;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (t < s) { red[t] = max(red[t], red[t + s]); }
        workgroupBarrier();
    }
    m = red[0];
    workgroupBarrier();
    var sum = 0.0;
    for (var i = t; i < p.width; i += WG) {
        let e = exp(x[base + i] - m);
        x[base + i] = e;
        sum += e;
    }
    red[t] = sum;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (t < s) { red[t] += red[t + s]; }
        workgroupBarrier();
    }
    let inv = 1.0 / red[0];
    for (var i = t; i < p.width; i += WG) { x[base + i] *= inv; }
}
