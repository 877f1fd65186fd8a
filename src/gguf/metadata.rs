//! GGUF metadata values and typed accessors.

use std::collections::HashMap;

use super::error::{GgufError, Result};

/// One metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    /// GGUF strings should be UTF-8; invalid sequences are replaced by U+FFFD.
    Str(String),
    Array(MetaArray),
    U64(u64),
    I64(i64),
    F64(f64),
}

/// A homogeneous metadata array.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaArray {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    Bool(Vec<bool>),
    Str(Vec<String>),
    Array(Vec<MetaArray>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl MetaArray {
    pub fn len(&self) -> usize {
        match self {
            MetaArray::U8(v) => v.len(),
            MetaArray::I8(v) => v.len(),
            MetaArray::U16(v) => v.len(),
            MetaArray::I16(v) => v.len(),
            MetaArray::U32(v) => v.len(),
            MetaArray::I32(v) => v.len(),
            MetaArray::F32(v) => v.len(),
            MetaArray::Bool(v) => v.len(),
            MetaArray::Str(v) => v.len(),
            MetaArray::Array(v) => v.len(),
            MetaArray::U64(v) => v.len(),
            MetaArray::I64(v) => v.len(),
            MetaArray::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element type name, e.g. `"string"`.
    pub fn elem_type_name(&self) -> &'static str {
        match self {
            MetaArray::U8(_) => "u8",
            MetaArray::I8(_) => "i8",
            MetaArray::U16(_) => "u16",
            MetaArray::I16(_) => "i16",
            MetaArray::U32(_) => "u32",
            MetaArray::I32(_) => "i32",
            MetaArray::F32(_) => "f32",
            MetaArray::Bool(_) => "bool",
            MetaArray::Str(_) => "string",
            MetaArray::Array(_) => "array",
            MetaArray::U64(_) => "u64",
            MetaArray::I64(_) => "i64",
            MetaArray::F64(_) => "f64",
        }
    }

    /// Integer elements widened to i64 (None for non-integer arrays or u64 > i64::MAX).
    fn to_i64_vec(&self) -> Option<Vec<i64>> {
        Some(match self {
            MetaArray::U8(v) => v.iter().map(|&x| x as i64).collect(),
            MetaArray::I8(v) => v.iter().map(|&x| x as i64).collect(),
            MetaArray::U16(v) => v.iter().map(|&x| x as i64).collect(),
            MetaArray::I16(v) => v.iter().map(|&x| x as i64).collect(),
            MetaArray::U32(v) => v.iter().map(|&x| x as i64).collect(),
            MetaArray::I32(v) => v.iter().map(|&x| x as i64).collect(),
            MetaArray::U64(v) => v.iter().map(|&x| i64::try_from(x).ok()).collect::<Option<Vec<_>>>()?,
            MetaArray::I64(v) => v.clone(),
            _ => return None,
        })
    }
}

impl MetaValue {
    /// Type name, e.g. `"u32"` or `"array<string>"`.
    pub fn type_name(&self) -> String {
        match self {
            MetaValue::U8(_) => "u8".into(),
            MetaValue::I8(_) => "i8".into(),
            MetaValue::U16(_) => "u16".into(),
            MetaValue::I16(_) => "i16".into(),
            MetaValue::U32(_) => "u32".into(),
            MetaValue::I32(_) => "i32".into(),
            MetaValue::F32(_) => "f32".into(),
            MetaValue::Bool(_) => "bool".into(),
            MetaValue::Str(_) => "string".into(),
            MetaValue::Array(a) => format!("array<{}>", a.elem_type_name()),
            MetaValue::U64(_) => "u64".into(),
            MetaValue::I64(_) => "i64".into(),
            MetaValue::F64(_) => "f64".into(),
        }
    }

    /// Any integer value widened to i128 (None for non-integers).
    pub fn as_int(&self) -> Option<i128> {
        Some(match *self {
            MetaValue::U8(x) => x as i128,
            MetaValue::I8(x) => x as i128,
            MetaValue::U16(x) => x as i128,
            MetaValue::I16(x) => x as i128,
            MetaValue::U32(x) => x as i128,
            MetaValue::I32(x) => x as i128,
            MetaValue::U64(x) => x as i128,
            MetaValue::I64(x) => x as i128,
            _ => return None,
        })
    }
}

/// All key/value pairs of a GGUF file, in file order, with typed accessors.
///
/// Integer accessors accept any stored integer type whose value fits the
/// requested type (converters are not consistent about u32 vs i32 etc.);
/// float accessors accept f32 and f64. A key that is present with an
/// incompatible type is an error, never silently ignored.
#[derive(Debug, Clone)]
pub struct Metadata {
    file: String,
    entries: Vec<(String, MetaValue)>,
    index: HashMap<String, usize>,
}

macro_rules! int_getters {
    ($($get:ident, $opt:ident, $t:ty, $name:literal;)*) => {$(
        #[doc = concat!("The value of `key` as ", $name, "; error if missing, non-integer or out of range.")]
        pub fn $get(&self, key: &str) -> Result<$t> {
            self.$opt(key)?.ok_or_else(|| self.missing(key))
        }
        #[doc = concat!("Like [`Self::", stringify!($get), "`] but `Ok(None)` when the key is absent.")]
        pub fn $opt(&self, key: &str) -> Result<Option<$t>> {
            let Some(v) = self.get(key) else { return Ok(None) };
            let i = v.as_int().ok_or_else(|| self.wrong(key, v, $name))?;
            <$t>::try_from(i).map(Some).map_err(|_| GgufError::BadValue {
                file: self.file.clone(),
                key: key.to_string(),
                msg: format!("value {i} does not fit in {}", $name),
            })
        }
    )*};
}

impl Metadata {
    pub(crate) fn new(file: String, entries: Vec<(String, MetaValue)>) -> Result<Metadata> {
        let mut index = HashMap::with_capacity(entries.len());
        for (i, (k, _)) in entries.iter().enumerate() {
            if index.insert(k.clone(), i).is_some() {
                return Err(GgufError::Malformed { file, msg: format!("duplicate metadata key '{k}'") });
            }
        }
        Ok(Metadata { file, entries, index })
    }

    /// The file label used in error messages.
    pub fn file_label(&self) -> &str {
        &self.file
    }

    /// All entries in file order.
    pub fn entries(&self) -> &[(String, MetaValue)] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn contains(&self, key: &str) -> bool {
        self.index.contains_key(key)
    }

    /// Raw value lookup.
    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.index.get(key).map(|&i| &self.entries[i].1)
    }

    fn missing(&self, key: &str) -> GgufError {
        GgufError::MissingKey { file: self.file.clone(), key: key.to_string() }
    }

    fn wrong(&self, key: &str, v: &MetaValue, expected: &'static str) -> GgufError {
        GgufError::WrongType { file: self.file.clone(), key: key.to_string(), found: v.type_name(), expected }
    }

    int_getters! {
        get_u8, opt_u8, u8, "u8";
        get_u32, opt_u32, u32, "u32";
        get_i32, opt_i32, i32, "i32";
        get_u64, opt_u64, u64, "u64";
        get_i64, opt_i64, i64, "i64";
        get_usize, opt_usize, usize, "usize";
    }

    /// f32 (or f64 narrowed to f32).
    pub fn get_f32(&self, key: &str) -> Result<f32> {
        self.opt_f32(key)?.ok_or_else(|| self.missing(key))
    }

    pub fn opt_f32(&self, key: &str) -> Result<Option<f32>> {
        match self.get(key) {
            None => Ok(None),
            Some(MetaValue::F32(x)) => Ok(Some(*x)),
            Some(MetaValue::F64(x)) => Ok(Some(*x as f32)),
            Some(v) => Err(self.wrong(key, v, "f32")),
        }
    }

    /// f64 (or f32 widened).
    pub fn get_f64(&self, key: &str) -> Result<f64> {
        match self.get(key) {
            None => Err(self.missing(key)),
            Some(MetaValue::F32(x)) => Ok(*x as f64),
            Some(MetaValue::F64(x)) => Ok(*x),
            Some(v) => Err(self.wrong(key, v, "f64")),
        }
    }

    pub fn get_bool(&self, key: &str) -> Result<bool> {
        self.opt_bool(key)?.ok_or_else(|| self.missing(key))
    }

    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(MetaValue::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.wrong(key, v, "bool")),
        }
    }

    pub fn get_str(&self, key: &str) -> Result<&str> {
        self.opt_str(key)?.ok_or_else(|| self.missing(key))
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<&str>> {
        match self.get(key) {
            None => Ok(None),
            Some(MetaValue::Str(s)) => Ok(Some(s)),
            Some(v) => Err(self.wrong(key, v, "string")),
        }
    }

    /// Raw array lookup.
    pub fn get_array(&self, key: &str) -> Result<&MetaArray> {
        match self.get(key) {
            None => Err(self.missing(key)),
            Some(MetaValue::Array(a)) => Ok(a),
            Some(v) => Err(self.wrong(key, v, "array")),
        }
    }

    pub fn get_str_array(&self, key: &str) -> Result<&[String]> {
        self.opt_str_array(key)?.ok_or_else(|| self.missing(key))
    }

    pub fn opt_str_array(&self, key: &str) -> Result<Option<&[String]>> {
        match self.get(key) {
            None => Ok(None),
            Some(MetaValue::Array(MetaArray::Str(v))) => Ok(Some(v)),
            Some(v) => Err(self.wrong(key, v, "array<string>")),
        }
    }

    /// An f32 array (an f64 array is narrowed, an i32 array converted).
    pub fn get_f32_array(&self, key: &str) -> Result<Vec<f32>> {
        self.opt_f32_array(key)?.ok_or_else(|| self.missing(key))
    }

    pub fn opt_f32_array(&self, key: &str) -> Result<Option<Vec<f32>>> {
        match self.get(key) {
            None => Ok(None),
            Some(MetaValue::Array(MetaArray::F32(v))) => Ok(Some(v.clone())),
            Some(MetaValue::Array(MetaArray::F64(v))) => Ok(Some(v.iter().map(|&x| x as f32).collect())),
            Some(MetaValue::Array(MetaArray::I32(v))) => Ok(Some(v.iter().map(|&x| x as f32).collect())),
            Some(v) => Err(self.wrong(key, v, "array<f32>")),
        }
    }

    /// An integer array with every element converted to i64.
    pub fn get_int_array(&self, key: &str) -> Result<Vec<i64>> {
        self.opt_int_array(key)?.ok_or_else(|| self.missing(key))
    }

    pub fn opt_int_array(&self, key: &str) -> Result<Option<Vec<i64>>> {
        match self.get(key) {
            None => Ok(None),
            Some(v @ MetaValue::Array(a)) => a.to_i64_vec().map(Some).ok_or_else(|| self.wrong(key, v, "array<int>")),
            Some(v) => Err(self.wrong(key, v, "array<int>")),
        }
    }
}
