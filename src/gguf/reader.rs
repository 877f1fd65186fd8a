//! GGUF v2/v3 header parser over a byte slice.
//!
//! Layout (little-endian): magic "GGUF", u32 version, u64 tensor_count,
//! u64 kv_count, kv pairs, tensor infos, padding to `general.alignment`,
//! then the tensor data section. Every count read from the file is checked
//! against the bytes that remain before anything is allocated for it.

use super::error::{GgufError, Result, VersionHint};
use super::metadata::{MetaArray, MetaValue, Metadata};
use super::types::GgmlType;

/// Default `general.alignment`.
pub const DEFAULT_ALIGNMENT: u64 = 32;
/// ggml's `GGML_MAX_DIMS`.
pub const MAX_DIMS: usize = 4;
/// Nesting limit for arrays of arrays (ggml itself supports none).
const MAX_ARRAY_DEPTH: usize = 8;

/// One tensor's header entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    pub name: String,
    /// ggml `ne`: innermost (contiguous) dimension first.
    pub dims: Vec<u64>,
    pub ty: GgmlType,
    /// Byte offset relative to the start of the data section.
    pub offset: u64,
    /// Total element count (product of `dims`).
    pub n_elements: u64,
    /// Size in bytes of the tensor data.
    pub n_bytes: u64,
}

impl TensorInfo {
    /// Shape in row-major (numpy / PyTorch) order: outermost dimension first,
    /// i.e. `dims` reversed. A weight with `dims = [cols, rows]` has shape `[rows, cols]`.
    pub fn shape(&self) -> Vec<usize> {
        // dims were validated to fit in usize at parse time.
        self.dims.iter().rev().map(|&d| d as usize).collect()
    }
}

/// Everything before the tensor data.
#[derive(Debug, Clone)]
pub struct GgufHeader {
    pub version: u32,
    pub metadata: Metadata,
    pub tensors: Vec<TensorInfo>,
    pub alignment: u64,
    /// Absolute file offset of the data section.
    pub data_offset: u64,
}

struct Cursor<'a> {
    file: &'a str,
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn truncated(&self, need: u64, what: &dyn Fn() -> String) -> GgufError {
        GgufError::Truncated {
            file: self.file.to_string(),
            what: what(),
            offset: self.pos as u64,
            need,
            len: self.buf.len() as u64,
        }
    }

    fn malformed(&self, msg: String) -> GgufError {
        GgufError::Malformed { file: self.file.to_string(), msg }
    }

    fn take(&mut self, n: u64, what: &dyn Fn() -> String) -> Result<&'a [u8]> {
        if n > self.remaining() as u64 {
            return Err(self.truncated(n, what));
        }
        let n = n as usize;
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &dyn Fn() -> String) -> Result<[u8; N]> {
        let s = self.take(N as u64, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn u32(&mut self, what: &dyn Fn() -> String) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn u64(&mut self, what: &dyn Fn() -> String) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    fn string(&mut self, what: &dyn Fn() -> String) -> Result<String> {
        let len = self.u64(&|| format!("{} (string length)", what()))?;
        let bytes = self.take(len, what)?;
        Ok(match std::str::from_utf8(bytes) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        })
    }

    /// Checks that `count` items of at least `min_size` bytes each can still
    /// fit, so that counts from the file never drive allocations.
    fn check_count(&self, count: u64, min_size: u64, what: &dyn Fn() -> String) -> Result<usize> {
        match count.checked_mul(min_size) {
            Some(n) if n <= self.remaining() as u64 => Ok(count as usize),
            _ => Err(self.malformed(format!(
                "{}: count {count} needs at least {} bytes but only {} remain",
                what(),
                count as u128 * min_size as u128,
                self.remaining()
            ))),
        }
    }
}

/// Minimum encoded size of one value of GGUF type `ty` (None for unknown types).
fn min_value_size(ty: u32) -> Option<u64> {
    Some(match ty {
        0 | 1 | 7 => 1,
        2 | 3 => 2,
        4..=6 => 4,
        8 | 10..=12 => 8,
        9 => 12,
        _ => return None,
    })
}

fn read_value(c: &mut Cursor, ty: u32, key: &str, depth: usize) -> Result<MetaValue> {
    let what = || format!("value of metadata key '{key}'");
    Ok(match ty {
        0 => MetaValue::U8(c.array::<1>(&what)?[0]),
        1 => MetaValue::I8(c.array::<1>(&what)?[0] as i8),
        2 => MetaValue::U16(u16::from_le_bytes(c.array(&what)?)),
        3 => MetaValue::I16(i16::from_le_bytes(c.array(&what)?)),
        4 => MetaValue::U32(u32::from_le_bytes(c.array(&what)?)),
        5 => MetaValue::I32(i32::from_le_bytes(c.array(&what)?)),
        6 => MetaValue::F32(f32::from_le_bytes(c.array(&what)?)),
        7 => MetaValue::Bool(c.array::<1>(&what)?[0] != 0),
        8 => MetaValue::Str(c.string(&what)?),
        9 => MetaValue::Array(read_array(c, key, depth)?),
        10 => MetaValue::U64(u64::from_le_bytes(c.array(&what)?)),
        11 => MetaValue::I64(i64::from_le_bytes(c.array(&what)?)),
        12 => MetaValue::F64(f64::from_le_bytes(c.array(&what)?)),
        _ => return Err(c.malformed(format!("metadata key '{key}' has unknown value type {ty}"))),
    })
}

fn read_array(c: &mut Cursor, key: &str, depth: usize) -> Result<MetaArray> {
    if depth >= MAX_ARRAY_DEPTH {
        return Err(c.malformed(format!("metadata key '{key}': arrays nested deeper than {MAX_ARRAY_DEPTH}")));
    }
    let what = || format!("array header of metadata key '{key}'");
    let ety = c.u32(&what)?;
    let count = c.u64(&what)?;
    let min = min_value_size(ety)
        .ok_or_else(|| c.malformed(format!("metadata key '{key}' is an array of unknown value type {ety}")))?;
    let n = c.check_count(count, min, &|| format!("array of metadata key '{key}'"))?;
    let ewhat = || format!("array element of metadata key '{key}'");
    macro_rules! fixed {
        ($variant:ident, $t:ty, $conv:expr) => {{
            const SZ: usize = std::mem::size_of::<$t>();
            let bytes = c.take((n * SZ) as u64, &ewhat)?;
            MetaArray::$variant(
                bytes.chunks_exact(SZ).map(|b| $conv(<[u8; SZ]>::try_from(b).unwrap_or([0; SZ]))).collect(),
            )
        }};
    }
    Ok(match ety {
        0 => fixed!(U8, u8, |b: [u8; 1]| b[0]),
        1 => fixed!(I8, i8, |b: [u8; 1]| b[0] as i8),
        2 => fixed!(U16, u16, u16::from_le_bytes),
        3 => fixed!(I16, i16, i16::from_le_bytes),
        4 => fixed!(U32, u32, u32::from_le_bytes),
        5 => fixed!(I32, i32, i32::from_le_bytes),
        6 => fixed!(F32, f32, f32::from_le_bytes),
        7 => fixed!(Bool, u8, |b: [u8; 1]| b[0] != 0),
        10 => fixed!(U64, u64, u64::from_le_bytes),
        11 => fixed!(I64, i64, i64::from_le_bytes),
        12 => fixed!(F64, f64, f64::from_le_bytes),
        8 => {
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(c.string(&ewhat)?);
            }
            MetaArray::Str(v)
        }
        9 => {
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(read_array(c, key, depth + 1)?);
            }
            MetaArray::Array(v)
        }
        _ => unreachable!("min_value_size accepted an unknown type"),
    })
}

fn read_tensor_info(c: &mut Cursor, idx: usize) -> Result<TensorInfo> {
    let name = c.string(&|| format!("name of tensor #{idx}"))?;
    let file = c.file;
    let bad = |msg: String| GgufError::BadTensor { file: file.to_string(), tensor: name.clone(), msg };
    let what = || format!("info of tensor '{name}'");
    let n_dims = c.u32(&what)?;
    if n_dims as usize > MAX_DIMS {
        return Err(bad(format!("has {n_dims} dimensions, at most {MAX_DIMS} are allowed")));
    }
    let mut dims = Vec::with_capacity(n_dims as usize);
    for _ in 0..n_dims {
        dims.push(c.u64(&what)?);
    }
    let type_id = c.u32(&what)?;
    let offset = c.u64(&what)?;
    let ty = GgmlType::from_id(type_id).ok_or_else(|| bad(format!("unknown ggml type id {type_id}")))?;
    // The product of the non-zero dims must fit in i64, so that every partial
    // product (e.g. rows = ne1*ne2*ne3 of an empty tensor) fits too.
    let mut nonzero_product: u64 = 1;
    for &d in &dims {
        if d > i64::MAX as u64 || usize::try_from(d).is_err() {
            return Err(bad(format!("dimension {d} is out of range")));
        }
        nonzero_product = nonzero_product
            .checked_mul(d.max(1))
            .filter(|&n| n <= i64::MAX as u64)
            .ok_or_else(|| bad(format!("element count of dims {dims:?} overflows")))?;
    }
    let n_elements = if dims.contains(&0) { 0 } else { nonzero_product };
    let (blck, tsize) = ty.block_geometry();
    let ne0 = dims.first().copied().unwrap_or(1);
    if !ne0.is_multiple_of(blck as u64) {
        return Err(bad(format!("innermost dimension {ne0} is not a multiple of the {ty} block size {blck}")));
    }
    let n_bytes = (n_elements / blck as u64)
        .checked_mul(tsize as u64)
        .ok_or_else(|| bad(format!("byte size of dims {dims:?} overflows")))?;
    Ok(TensorInfo { name, dims, ty, offset, n_elements, n_bytes })
}

/// Parses the header of a GGUF file held in `bytes`. `file` labels errors.
pub fn parse_header(file: &str, bytes: &[u8]) -> Result<GgufHeader> {
    let mut c = Cursor { file, buf: bytes, pos: 0 };
    let magic: [u8; 4] = c.array(&|| "magic".to_string())?;
    if &magic != b"GGUF" {
        return Err(GgufError::BadMagic { file: file.to_string(), magic });
    }
    let version = c.u32(&|| "version".to_string())?;
    if version != 2 && version != 3 {
        let hint = if version == 1 {
            VersionHint::V1
        } else if version.swap_bytes() <= 3 {
            VersionHint::BigEndian
        } else {
            VersionHint::None
        };
        return Err(GgufError::UnsupportedVersion { file: file.to_string(), version, hint });
    }
    let tensor_count = c.u64(&|| "tensor count".to_string())?;
    let kv_count = c.u64(&|| "metadata count".to_string())?;
    // key (8-byte length) + type (4) + smallest value (1)
    let n_kv = c.check_count(kv_count, 13, &|| "metadata key/value pairs".to_string())?;
    let mut entries = Vec::with_capacity(n_kv);
    for i in 0..n_kv {
        let key = c.string(&|| format!("key of metadata entry #{i}"))?;
        let ty = c.u32(&|| format!("type of metadata key '{key}'"))?;
        let value = read_value(&mut c, ty, &key, 0)?;
        entries.push((key, value));
    }
    let metadata = Metadata::new(file.to_string(), entries)?;
    let alignment = match metadata.get("general.alignment") {
        None => DEFAULT_ALIGNMENT,
        Some(MetaValue::U32(a)) if *a != 0 && a.is_power_of_two() => *a as u64,
        Some(v) => return Err(c.malformed(format!("general.alignment must be a non-zero power of two u32, got {v:?}"))),
    };

    // name (8) + n_dims (4) + type (4) + offset (8)
    let n_tensors = c.check_count(tensor_count, 24, &|| "tensor infos".to_string())?;
    let mut tensors = Vec::with_capacity(n_tensors);
    let mut names = std::collections::HashSet::with_capacity(n_tensors);
    for i in 0..n_tensors {
        let t = read_tensor_info(&mut c, i)?;
        if !names.insert(t.name.clone()) {
            return Err(GgufError::BadTensor {
                file: file.to_string(),
                tensor: t.name,
                msg: "duplicate tensor name".to_string(),
            });
        }
        tensors.push(t);
    }
    let data_offset = (c.pos as u64).div_ceil(alignment) * alignment;
    let file_len = bytes.len() as u64;
    for t in &tensors {
        let bad = |msg: String| GgufError::BadTensor { file: file.to_string(), tensor: t.name.clone(), msg };
        if !t.offset.is_multiple_of(alignment) {
            return Err(bad(format!("data offset {} is not a multiple of the alignment {alignment}", t.offset)));
        }
        let end = data_offset.checked_add(t.offset).and_then(|s| s.checked_add(t.n_bytes));
        match end {
            Some(end) if end <= file_len => {}
            _ => {
                return Err(bad(format!(
                    "data [{} + {}, {} bytes) extends past the end of the file ({file_len} bytes)",
                    data_offset, t.offset, t.n_bytes
                )))
            }
        }
    }
    Ok(GgufHeader { version, metadata, tensors, alignment, data_offset })
}
