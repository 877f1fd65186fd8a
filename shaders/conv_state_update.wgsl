// Shifts this step's B*x rows into the rolling conv state [L-1][dim]:
// new state row j = window row n + j, window = [old state rows, B*x rows].
// One thread per channel walks j upwards, so an old row (n + j > j) is read
// before the same thread overwrites it.

struct Params { dim: u32, kernel: u32, flags: u32, pad0: u32 }

@group(0) @binding(2) var<storage, read> bcx: array<f32>;
@group(0) @binding(3) var<storage, read_write> state: array<f32>;

// grid: (ceil(dim / 256), 1)
@compute @workgroup_size(256)
fn conv_state_update(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let c = wg.x * 256u + lid.x;
    if (c >= p.dim) { return; }
    let s = p.kernel - 1u;
    let n = step.n_tokens;
    for (var j = 0u; j < s; j++) {
        let src = n + j;
        var v: f32;
        if (src < s) {
            v = state[src * p.dim + c];
        } else {
            let base = (src - s) * 3u * p.dim;
            v = bcx[base + c] * bcx[base + 2u * p.dim + c];
        }
        state[j * p.dim + c] = v;
    }
}
