// The KV cache's storage, f16: a cache word is 4 halves packed in two u32s (half the bytes
// of f32, and half the bytes attention reads per position). Packed u32s rather than
// `array<f16>`: every adapter has pack2x16float, not every one has shader-f16.
alias KvWord = vec2<u32>;
fn kv_get(w: KvWord) -> vec4<f32> { return vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y)); }
fn kv_put(x: vec4<f32>) -> KvWord { return vec2<u32>(pack2x16float(x.xy), pack2x16float(x.zw)); }
// A value as the cache will hold it: the new token's k and v are used at this precision in
// its own step too, so a position attends alike whether its row came from this step or
// from the cache (a prefix reused or a sequence moved gives the same logits).
fn kv_round(x: f32) -> f32 { return unpack2x16float(pack2x16float(vec2<f32>(x, 0.0))).x; }
