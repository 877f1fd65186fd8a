// The inverse of VITS' unconstrained rational-quadratic spline with linear tails
// (`piecewise_rational_quadratic_transform(..., inverse=True, tails="linear")`), applied in
// place to one channel z[t] of the stochastic duration predictor's ConvFlow:
//   h: [3 * bins - 1, t] per time step the unnormalized widths (rows [0, bins)), heights
//   (rows [bins, 2 bins)) -- both divided by sqrt(filter channels) -- and the inner knot
//   derivatives (the rest). Values outside [-TAIL, TAIL] pass unchanged.
// The time length is step.n_tokens. One invocation per time step.

struct Params { bins: u32, pad0: u32, inv_sqrt_filter: f32, pad1: u32 }

@group(0) @binding(2) var<storage, read> h: array<f32>;
@group(0) @binding(3) var<storage, read_write> z: array<f32>;

const TAIL: f32 = 5.0;
const MIN_BIN: f32 = 1e-3;
const MIN_DERIV: f32 = 1e-3;
// The largest bin count the kernel accepts (checked on the host).
const MAX_BINS: u32 = 32u;

fn softplus(x: f32) -> f32 {
    if (x > 20.0) { return x; }
    return log(1.0 + exp(x));
}

// Knot positions on [-TAIL, TAIL] from the unnormalized sizes in rows [row0, row0 + bins).
fn knots(row0: u32, j: u32, t: u32) -> array<f32, 33> {
    let n = p.bins;
    var mx = -3.4e38;
    for (var k = 0u; k < n; k++) { mx = max(mx, h[(row0 + k) * t + j] * p.inv_sqrt_filter); }
    var e: array<f32, 32>;
    var s = 0.0;
    for (var k = 0u; k < n; k++) {
        e[k] = exp(h[(row0 + k) * t + j] * p.inv_sqrt_filter - mx);
        s += e[k];
    }
    var c: array<f32, 33>;
    c[0] = -TAIL;
    var acc = 0.0;
    for (var k = 0u; k < n; k++) {
        acc += MIN_BIN + (1.0 - MIN_BIN * f32(n)) * (e[k] / s);
        c[k + 1u] = 2.0 * TAIL * acc - TAIL;
    }
    c[n] = TAIL;
    return c;
}

// grid: (ceil(t / 64), 1)
@compute @workgroup_size(64)
fn spline_inverse(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = step.n_tokens;
    let j = gid.x;
    if (j >= t) { return; }
    let y = z[j];
    if (y < -TAIL || y > TAIL) { return; }
    let n = p.bins;
    let cw = knots(0u, j, t);
    let ch = knots(n, j, t);
    // searchsorted over the heights, the last knot nudged up as the reference does.
    var bin = 0u;
    for (var k = 0u; k <= n; k++) {
        var kv = ch[k];
        if (k == n) { kv += 1e-6; }
        if (y >= kv) { bin = k; }
    }
    bin = min(bin, n - 1u);
    // Derivatives at the knots; both ends are pinned to 1 (the linear tails).
    let end_d = MIN_DERIV + softplus(log(exp(1.0 - MIN_DERIV) - 1.0));
    var d0 = end_d;
    if (bin > 0u) { d0 = MIN_DERIV + softplus(h[(2u * n + bin - 1u) * t + j]); }
    var d1 = end_d;
    if (bin + 1u < n) { d1 = MIN_DERIV + softplus(h[(2u * n + bin) * t + j]); }
    let x0 = cw[bin];
    let w = cw[bin + 1u] - cw[bin];
    let y0 = ch[bin];
    let hh = ch[bin + 1u] - ch[bin];
    let delta = hh / w;
    let dy = y - y0;
    let a = dy * (d0 + d1 - 2.0 * delta) + hh * (delta - d0);
    let b = hh * d0 - dy * (d0 + d1 - 2.0 * delta);
    let cc = -delta * dy;
    let disc = b * b - 4.0 * a * cc;
    let root = (2.0 * cc) / (-b - sqrt(max(disc, 0.0)));
    z[j] = root * w + x0;
}
