// VITS text-encoder self-attention (batch 1, no mask) with windowed relative
// positions shared by the heads, over channel-major tensors:
//   qkv: [3 * channels, t] (q rows, then k, then v; heads of head_dim rows each)
//   s[i, j] = (q_i / sqrt(d)) . (k_j + rel_k[j - i + w])    rel term only for |j - i| <= w
//   out[:, i] = sum_j softmax(s[i, :])_j * (v_j + rel_v[j - i + w])   (rel_v likewise)
// rel_k / rel_v: [2w + 1, head_dim]. `scores` is scratch of [heads, t, t].
// The time length is step.n_tokens. One workgroup per (query i, head).

struct Params { channels: u32, head_dim: u32, window: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> qkv: array<f32>;
@group(0) @binding(3) var<storage, read> rel_k: array<f32>;
@group(0) @binding(4) var<storage, read> rel_v: array<f32>;
@group(0) @binding(5) var<storage, read_write> scores: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;

const WG: u32 = 64u;
// The largest head_dim the kernel accepts (checked on the host).
const MAX_D: u32 = 256u;
var<workgroup> q: array<f32, 256>;
var<workgroup> red: array<f32, 64>;

fn reduce(lid: u32, v: f32, is_max: bool) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            if (is_max) { red[lid] = max(red[lid], red[lid + s]); } else { red[lid] += red[lid + s]; }
        }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

// grid: (t, heads)
@compute @workgroup_size(64)
fn rel_attention(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let t = step.n_tokens;
    let i = wg.x;
    let h = wg.y;
    let lid = lid3.x;
    let d = p.head_dim;
    let w = i32(p.window);
    let q0 = h * d;
    let k0 = p.channels + h * d;
    let v0 = 2u * p.channels + h * d;
    let scale = 1.0 / sqrt(f32(d));
    for (var c = lid; c < d; c += WG) { q[c] = qkv[(q0 + c) * t + i] * scale; }
    workgroupBarrier();
    let row = (h * t + i) * t;
    var m = -3.4e38;
    for (var j = lid; j < t; j += WG) {
        var s = 0.0;
        for (var c = 0u; c < d; c++) { s += q[c] * qkv[(k0 + c) * t + j]; }
        let rel = i32(j) - i32(i);
        if (abs(rel) <= w) {
            let r = u32(rel + w) * d;
            var rk = 0.0;
            for (var c = 0u; c < d; c++) { rk += q[c] * rel_k[r + c]; }
            s += rk;
        }
        scores[row + j] = s;
        m = max(m, s);
    }
    m = reduce(lid, m, true);
    var sum = 0.0;
    for (var j = lid; j < t; j += WG) {
        let e = exp(scores[row + j] - m);
        scores[row + j] = e;
        sum += e;
    }
    sum = reduce(lid, sum, false);
    // The probabilities written above by other invocations are read below.
    storageBarrier();
    workgroupBarrier();
    let inv = 1.0 / sum;
    let lo = u32(max(i32(i) - w, 0));
    let hi = u32(min(i32(i) + w, i32(t) - 1));
    for (var c = lid; c < d; c += WG) {
        var acc = 0.0;
        let vr = (v0 + c) * t;
        for (var j = 0u; j < t; j++) { acc += scores[row + j] * qkv[vr + j]; }
        var racc = 0.0;
        for (var j = lo; j <= hi; j++) {
            racc += scores[row + j] * rel_v[u32(i32(j) - i32(i) + w) * d + c];
        }
        out[(q0 + c) * t + i] = (acc + racc) * inv;
    }
}
