// The KV cache's storage, f32: a cache word is 4 floats as they are (the exact mode, used
// where outputs are compared with a reference implementation). kv_f16.wgsl is the other
// mode; the kernels that read or write a cache see only these names.
alias KvWord = vec4<f32>;
fn kv_get(w: KvWord) -> vec4<f32> { return w; }
fn kv_put(x: vec4<f32>) -> KvWord { return x; }
// A value as the cache will hold it.
fn kv_round(x: f32) -> f32 { return x; }
