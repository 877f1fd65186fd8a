//! Shared helpers: fixture access, asset lookup, and a tiny GGUF writer for
//! synthetic (often deliberately malformed) files.

use std::path::PathBuf;

use super::super::GgufFile;

pub const FIXTURE: &[u8] = include_bytes!("../testdata/dequant_fixture.gguf");
pub const FIXTURE_EXPECTED: &[u8] = include_bytes!("../testdata/dequant_expected.f32");

pub fn fixture() -> GgufFile {
    GgufFile::from_bytes("dequant_fixture.gguf", FIXTURE.to_vec()).expect("fixture parses")
}

pub fn expected_values() -> Vec<f32> {
    FIXTURE_EXPECTED.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// Directory of downloaded test assets; panics (failing the test) with
/// instructions when `sub` is missing.
pub fn asset(sub: &str) -> PathBuf {
    let p = crate::config::test_assets_dir().join(sub);
    assert!(
        p.exists(),
        "missing test asset {}: run tools/gguf/fetch_test_assets.sh \
         (downloads into $GERBIL_TEST_ASSETS, default ~/.cache/gerbil-test-assets)",
        p.display()
    );
    p
}

/// FNV-1a 64 (same as tools/gguf/make_smollm2_reference.py).
pub fn fnv1a64(values: &[f32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for b in v.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

/// Minimal GGUF writer for synthetic files.
pub struct Builder {
    pub version: u32,
    pub kv: Vec<u8>,
    pub n_kv: u64,
    pub infos: Vec<u8>,
    pub n_tensors: u64,
    pub data: Vec<u8>,
    pub alignment: usize,
}

pub fn gguf_str(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            version: 3,
            kv: Vec::new(),
            n_kv: 0,
            infos: Vec::new(),
            n_tensors: 0,
            data: Vec::new(),
            alignment: 32,
        }
    }

    /// Adds a key with type id `ty` and pre-encoded value bytes.
    pub fn kv_raw(&mut self, key: &str, ty: u32, value: &[u8]) -> &mut Self {
        gguf_str(&mut self.kv, key);
        self.kv.extend(ty.to_le_bytes());
        self.kv.extend(value);
        self.n_kv += 1;
        self
    }

    pub fn kv_u32(&mut self, key: &str, v: u32) -> &mut Self {
        self.kv_raw(key, 4, &v.to_le_bytes())
    }

    pub fn kv_f32(&mut self, key: &str, v: f32) -> &mut Self {
        self.kv_raw(key, 6, &v.to_le_bytes())
    }

    pub fn kv_str(&mut self, key: &str, v: &str) -> &mut Self {
        let mut b = Vec::new();
        gguf_str(&mut b, v);
        self.kv_raw(key, 8, &b)
    }

    pub fn kv_str_array(&mut self, key: &str, v: &[&str]) -> &mut Self {
        let mut b = Vec::new();
        b.extend(8u32.to_le_bytes());
        b.extend((v.len() as u64).to_le_bytes());
        for s in v {
            gguf_str(&mut b, s);
        }
        self.kv_raw(key, 9, &b)
    }

    pub fn kv_i32_array(&mut self, key: &str, v: &[i32]) -> &mut Self {
        let mut b = Vec::new();
        b.extend(5u32.to_le_bytes());
        b.extend((v.len() as u64).to_le_bytes());
        for x in v {
            b.extend(x.to_le_bytes());
        }
        self.kv_raw(key, 9, &b)
    }

    pub fn kv_f32_array(&mut self, key: &str, v: &[f32]) -> &mut Self {
        let mut b = Vec::new();
        b.extend(6u32.to_le_bytes());
        b.extend((v.len() as u64).to_le_bytes());
        for x in v {
            b.extend(x.to_le_bytes());
        }
        self.kv_raw(key, 9, &b)
    }

    /// Adds a tensor info with an explicit offset; `bytes` is appended to the
    /// data section at that offset (padding with zeros as needed).
    pub fn tensor_at(&mut self, name: &str, dims: &[u64], ty: u32, offset: u64, bytes: &[u8]) -> &mut Self {
        gguf_str(&mut self.infos, name);
        self.infos.extend((dims.len() as u32).to_le_bytes());
        for d in dims {
            self.infos.extend(d.to_le_bytes());
        }
        self.infos.extend(ty.to_le_bytes());
        self.infos.extend(offset.to_le_bytes());
        self.n_tensors += 1;
        let end = offset as usize + bytes.len();
        if self.data.len() < end {
            self.data.resize(end, 0);
        }
        self.data[offset as usize..end].copy_from_slice(bytes);
        self
    }

    /// Adds a tensor at the next aligned offset.
    pub fn tensor(&mut self, name: &str, dims: &[u64], ty: u32, bytes: &[u8]) -> &mut Self {
        let off = self.data.len().div_ceil(self.alignment) * self.alignment;
        self.tensor_at(name, dims, ty, off as u64, bytes)
    }

    pub fn build(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend(b"GGUF");
        out.extend(self.version.to_le_bytes());
        out.extend(self.n_tensors.to_le_bytes());
        out.extend(self.n_kv.to_le_bytes());
        out.extend(&self.kv);
        out.extend(&self.infos);
        if self.n_tensors > 0 {
            let pad = out.len().div_ceil(self.alignment) * self.alignment;
            out.resize(pad, 0);
            out.extend(&self.data);
        }
        out
    }
}
