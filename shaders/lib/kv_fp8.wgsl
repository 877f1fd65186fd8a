// The KV cache's storage, fp8: a cache word is 4 E4M3 values in one u32, value i in byte i
// (sign, 4 exponent bits of bias 7, 3 mantissa bits; no scaling, as vLLM's `fp8` cache), a quarter
// of f32's bytes. The encoding is exact integer steps (gpu/kv_dtype.rs's fp8_encode, bit for bit):
// round to nearest even, magnitudes past 448 saturating.
alias KvWord = u32;

// An E4M3 code is an f16 with 4 fewer exponent bits: the code's 7 magnitude bits shifted up 7 and its
// sign up 8 make an f16 of the value / 256 (subnormal codes included).
fn kv_get(w: KvWord) -> vec4<f32> {
    let b = vec4<u32>(w, w >> 8u, w >> 16u, w >> 24u) & vec4<u32>(0xffu);
    let h = ((b & vec4<u32>(0x7fu)) << vec4<u32>(7u)) | ((b & vec4<u32>(0x80u)) << vec4<u32>(8u));
    return vec4<f32>(unpack2x16float(h.x | (h.y << 16u)), unpack2x16float(h.z | (h.w << 16u))) * 256.0;
}

fn fp8_code(x: f32) -> u32 {
    let sign = (bitcast<u32>(x) >> 24u) & 0x80u;
    let a = min(abs(x), 448.0);
    var code: u32;
    if (a < 0.015625) {
        // Steps of 2^-9 below the smallest normal (a * 512 is exact; 8 is the smallest normal's code).
        code = u32(round(a * 512.0));
    } else {
        let bits = bitcast<u32>(a);
        let e = (bits >> 23u) - 120u; // the biased exponent: (bits >> 23) - 127 + 7
        let mant = bits & 0x7fffffu;
        var m = mant >> 20u;
        let rest = mant & 0xfffffu;
        if (rest > 0x80000u || (rest == 0x80000u && (m & 1u) == 1u)) { m += 1u; }
        code = (e << 3u) + m;
    }
    // a <= 448 rounds to at most 0x7E (448 itself): NaN's code 0x7F is never written.
    return sign | code;
}

fn kv_put(x: vec4<f32>) -> KvWord {
    return fp8_code(x.x) | (fp8_code(x.y) << 8u) | (fp8_code(x.z) << 16u) | (fp8_code(x.w) << 24u);
}

// A value as the cache will hold it (see kv_f16.wgsl).
fn kv_round(x: f32) -> f32 { return kv_get(fp8_code(x)).x; }
