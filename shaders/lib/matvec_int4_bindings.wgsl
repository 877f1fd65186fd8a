// What the INT4 matvec kernels whose uniform is FusedMatvecParams (matvec_int4, matvec_fused_int4,
// matvec_fused_split_int4, matvec_mlp_int4 and partials_norm.wgsl) declare alike for
// matvec_int4_core.wgsl, put in front of them by gpu/kernels.rs: Params, the input x at binding 2,
// MAX_K4 and the PARTIALS_IN hooks. attention_qkv_o.wgsl and decode_layer.wgsl declare their own
// (a longer Params, K <= 1024; decode_layer's partial rows also come from its scratch).

struct Params {
    n0: u32, n1: u32, n2: u32, k: u32,
    group: u32, flags: u32, eps: f32, n3: u32,
}

// x, or with PARTIALS_IN the partial rows [P, k] (P in FLAGS).
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;

// K <= 2048 for the staged / summed x (matvec_int4_core.wgsl's xsum).
const MAX_K4: u32 = 512u;

// The PARTIALS_IN rows are bound as x (their count in FLAGS).
fn partial_rows() -> u32 { return partials_count(); }
fn partial_at(i: u32) -> vec4<f32> { return x[i]; }
