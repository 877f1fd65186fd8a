//! How a KV cache stores its values: the one choice a cache's kernels are compiled for
//! (`PipelineKey::kv`, shaders/lib/kv_*.wgsl), and the host's encoding of each type (uploads, read-backs,
//! and the reference the kernels' fp8 encoding is checked against bit for bit).

use std::fmt;

/// The element type of a model's KV caches (`kv_dtype` in the config).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KvDtype {
    /// Half the memory of f32 at the same decode speed; the server's default (the error it adds, at
    /// most 2^-11 of each value, is below the INT4 weights').
    F16,
    /// Exact: the mode outputs are compared with reference implementations in (the type's default, as
    /// the library loads models).
    #[default]
    F32,
    /// 8-bit floats, E4M3 as vLLM's `fp8` KV cache (no NaN code, largest 448, no scaling): a quarter
    /// of f32's memory. 3 mantissa bits: each value within 2^-4 of itself (relative), and magnitudes
    /// past 448 saturate.
    Fp8,
}

/// The largest E4M3 value (0x7E; 0x7F is NaN's code, never written).
pub const FP8_MAX: f32 = 448.0;

impl KvDtype {
    /// Bytes of one cached value.
    pub fn bytes(self) -> usize {
        match self {
            KvDtype::F16 => 2,
            KvDtype::F32 => 4,
            KvDtype::Fp8 => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            KvDtype::F16 => "f16",
            KvDtype::F32 => "f32",
            KvDtype::Fp8 => "fp8",
        }
    }

    /// `values` as the cache stores them, little-endian (f16: round to nearest even).
    pub fn encode(self, values: &[f32]) -> Vec<u8> {
        match self {
            KvDtype::F32 => values.iter().flat_map(|x| x.to_le_bytes()).collect(),
            KvDtype::F16 => values.iter().flat_map(|&x| half::f16::from_f32(x).to_le_bytes()).collect(),
            KvDtype::Fp8 => values.iter().map(|&x| fp8_encode(x)).collect(),
        }
    }

    /// Stored bytes back to values (exact: every stored value is an f32).
    pub fn decode(self, bytes: &[u8]) -> Vec<f32> {
        match self {
            KvDtype::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            KvDtype::F16 => bytes.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            KvDtype::Fp8 => bytes.iter().map(|&b| fp8_decode(b)).collect(),
        }
    }
}

/// `x` as E4M3 (sign, 4 exponent bits of bias 7, 3 mantissa bits), rounded to nearest even, magnitudes
/// past 448 saturating (shaders/lib/kv_fp8.wgsl's `fp8_code`, the same steps).
pub fn fp8_encode(x: f32) -> u8 {
    let sign = ((x.to_bits() >> 24) & 0x80) as u8;
    let a = x.abs().min(FP8_MAX);
    if a.is_nan() {
        return sign;
    }
    let code = if a < 2f32.powi(-6) {
        // Subnormal steps of 2^-9: a * 512 is exact; rounding up from below 2^-6 lands on code 8, the
        // smallest normal, as the codes are contiguous.
        (a * 512.0).round_ties_even() as u32
    } else {
        let bits = a.to_bits();
        let exp = (bits >> 23) as i32 - 127;
        let mant = bits & 0x7f_ffff;
        let mut m = mant >> 20;
        let rest = mant & 0xf_ffff;
        if rest > 0x8_0000 || (rest == 0x8_0000 && m & 1 == 1) {
            m += 1; // a carry into the exponent is the next code up
        }
        (((exp + 7) as u32) << 3) + m
    };
    // a <= 448 rounds to at most 0x7E (448 itself): NaN's code 0x7F is never written.
    sign | code as u8
}

/// An E4M3 code's value (0x7F and 0xFF, never written, read as 480).
pub fn fp8_decode(c: u8) -> f32 {
    let e = ((c >> 3) & 0xf) as i32;
    let m = (c & 7) as f32;
    let v = if e == 0 { m * 2f32.powi(-9) } else { (8.0 + m) * 2f32.powi(e - 10) };
    if c & 0x80 != 0 {
        -v
    } else {
        v
    }
}

impl fmt::Display for KvDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for KvDtype {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "f16" => Ok(KvDtype::F16),
            "f32" => Ok(KvDtype::F32),
            "fp8" => Ok(KvDtype::Fp8),
            _ => Err(format!("unknown KV cache type '{s}' (f16, f32 or fp8)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp8_codes_round_trip_and_round_to_nearest_even() {
        // Every finite code decodes to a value that encodes back to it (-0 to +0's sign kept).
        for c in (0u8..=0xff).filter(|c| c & 0x7f != 0x7f) {
            assert_eq!(fp8_encode(fp8_decode(c)), c, "code {c:#x}");
        }
        assert_eq!(fp8_decode(0x7e), FP8_MAX);
        assert_eq!(fp8_decode(0x08), 2f32.powi(-6), "smallest normal");
        assert_eq!(fp8_decode(0x01), 2f32.powi(-9), "smallest subnormal");
        assert_eq!(fp8_decode(0x38), 1.0);
        assert_eq!(fp8_decode(0xb8), -1.0);
        // Halfway between 1.0 (0x38) and 1.125 (0x39): to the even code; just past it: up.
        assert_eq!(fp8_encode(1.0625), 0x38);
        assert_eq!(fp8_encode(1.0625f32.next_up()), 0x39);
        // Halfway between 1.125 and 1.25: up to the even 0x3a.
        assert_eq!(fp8_encode(1.1875), 0x3a);
        // A mantissa carry into the exponent: 1.9375 is halfway between 1.875 (0x3f) and 2.0 (0x40).
        assert_eq!(fp8_encode(1.9375), 0x40);
        // Subnormal halfway cases: 1.5 and 2.5 steps of 2^-9.
        assert_eq!(fp8_encode(1.5 * 2f32.powi(-9)), 0x02);
        assert_eq!(fp8_encode(2.5 * 2f32.powi(-9)), 0x02);
        // From just below the smallest normal up into it.
        assert_eq!(fp8_encode(2f32.powi(-6) - 2f32.powi(-12)), 0x08);
        // Saturation, and signs.
        assert_eq!(fp8_encode(1e6), 0x7e);
        assert_eq!(fp8_encode(-1e6), 0xfe);
        assert_eq!(fp8_encode(464.0), 0x7e, "past 448 (halfway to 480) saturates");
        assert_eq!(fp8_encode(-0.0), 0x80);
        assert_eq!(fp8_encode(2f32.powi(-11)), 0x00, "below half the smallest subnormal");
    }

    #[test]
    fn fp8_error_is_within_half_a_step() {
        let mut x = 1e-4f32;
        while x < 400.0 {
            let y = fp8_decode(fp8_encode(x));
            let step = if x < 2f32.powi(-6) { 2f32.powi(-9) } else { 2f32.powi(x.log2().floor() as i32 - 3) };
            assert!((y - x).abs() <= step / 2.0, "{x} -> {y}");
            x *= 1.013;
        }
    }

    #[test]
    fn bytes_per_value_are_the_encodings() {
        let values = [0.5f32, -3.0, 7.25, 1e-3];
        for (d, b) in [(KvDtype::F16, 2), (KvDtype::F32, 4), (KvDtype::Fp8, 1)] {
            assert_eq!(d.bytes(), b, "{d}");
            assert_eq!(d.encode(&values).len(), values.len() * d.bytes(), "{d}");
        }
    }

    #[test]
    fn names_parse_back() {
        for d in [KvDtype::F16, KvDtype::F32, KvDtype::Fp8] {
            assert_eq!(d.name().parse::<KvDtype>().unwrap(), d);
            assert_eq!(d.decode(&d.encode(&[1.5, -2.0])), vec![1.5, -2.0]);
        }
        assert!("int8".parse::<KvDtype>().unwrap_err().contains("f16, f32 or fp8"));
    }
}
