//! CTranslate2 Whisper (`model.bin` + `config.json` + `tokenizer.json`) into the layout
//! the Whisper loader reads: `model.safetensors` with transformers
//! `WhisperForConditionalGeneration` tensor names, `config.json`,
//! `generation_config.json`, `preprocessor_config.json`, `tokenizer.json`.
//!
//! A port of tools/convert_ct2_whisper.py: same tensor names, dtypes (f16 stays f16),
//! shapes and bytes, and the same JSON (as parsed JSON).
//!
//! `model.bin` (CTranslate2 binary versions 5 and 6; `ModelSpec._serialize` in
//! python/ctranslate2/specs/model_spec.py), all little-endian: u32 version, string spec
//! name, u32 revision, u32 variable count, then per variable: string name, u8 rank,
//! u32 dims[rank], u8 dtype (0 f32, 1 i8, 2 i16, 3 i32, 4 f16, 5 bf16), u32 byte count,
//! raw data; then u32 alias count and (alias, target) string pairs. Strings are a u16
//! length (counting the trailing NUL), the bytes, and the NUL.
//!
//! Whisper layout: self-attention `linear_0` is q/k/v fused as [3D, D] (its k bias is
//! an added zero), cross-attention `linear_0` is q and `linear_1` is k/v fused as
//! [2D, D]; ffn `linear_0`/`linear_1` are fc1/fc2; layer norms are gamma/beta.
//!
//! Every length in the file is checked against the buffer: a truncated or corrupt file
//! is an error naming it, never a panic.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use half::f16;
use serde_json::{json, Map, Value};

use super::{write_json, write_safetensors, ConvertError, Dtype, Tensor};

/// Binary versions whose layout is the one above (the reader of CTranslate2 >= 3 writes 6).
const VERSIONS: std::ops::RangeInclusive<u32> = 5..=6;

/// Element types of `model.bin` variables that this converter reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CtType {
    F32,
    I8,
    I16,
    I32,
    F16,
}

impl CtType {
    fn from_id(id: u8) -> Option<Self> {
        Some(match id {
            0 => CtType::F32,
            1 => CtType::I8,
            2 => CtType::I16,
            3 => CtType::I32,
            4 => CtType::F16,
            _ => return None,
        })
    }
    fn size(self) -> usize {
        match self {
            CtType::I8 => 1,
            CtType::I16 | CtType::F16 => 2,
            CtType::F32 | CtType::I32 => 4,
        }
    }
    fn name(self) -> &'static str {
        match self {
            CtType::F32 => "float32",
            CtType::I8 => "int8",
            CtType::I16 => "int16",
            CtType::I32 => "int32",
            CtType::F16 => "float16",
        }
    }
}

/// One variable: its type, shape and where its bytes lie in the file buffer.
#[derive(Clone, Debug)]
struct Var {
    ty: CtType,
    shape: Vec<usize>,
    start: usize,
    len: usize,
}

impl Var {
    fn numel(&self) -> usize {
        // Checked when the variable was read: len == numel * size.
        self.len / self.ty.size()
    }
}

/// A parsed `model.bin`: the whole file and where each variable (or alias) lies in it.
struct Ct2Model<'p> {
    path: &'p Path,
    spec: String,
    buf: Vec<u8>,
    vars: HashMap<String, Var>,
}

/// Bounds-checked little-endian reading of a byte buffer.
struct Reader<'a> {
    path: &'a Path,
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err(&self, msg: impl Into<String>) -> ConvertError {
        ConvertError::format(self.path, msg)
    }

    fn bytes(&mut self, n: usize, what: &dyn std::fmt::Display) -> Result<&'a [u8], ConvertError> {
        let buf: &'a [u8] = self.buf;
        let s = self.pos.checked_add(n).and_then(|end| buf.get(self.pos..end)).ok_or_else(|| {
            self.err(format!(
                "truncated: {what} needs {n} bytes at offset {}, but the file has {} bytes",
                self.pos,
                buf.len()
            ))
        })?;
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &dyn std::fmt::Display) -> Result<[u8; N], ConvertError> {
        let b = self.bytes(N, what)?;
        b.try_into().map_err(|_| self.err(format!("{what}: short read")))
    }

    fn u8(&mut self, what: &dyn std::fmt::Display) -> Result<u8, ConvertError> {
        Ok(u8::from_le_bytes(self.array(what)?))
    }

    fn u16(&mut self, what: &dyn std::fmt::Display) -> Result<u16, ConvertError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    fn u32(&mut self, what: &dyn std::fmt::Display) -> Result<u32, ConvertError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// u16 length (counting the NUL), the bytes, the NUL.
    fn string(&mut self, what: &dyn std::fmt::Display) -> Result<String, ConvertError> {
        let at = self.pos;
        let n = self.u16(what)?;
        let b = self.bytes(usize::from(n), what)?;
        let Some((0, text)) = b.split_last() else {
            return Err(self.err(format!("{what} at offset {at}: not a NUL-terminated string")));
        };
        String::from_utf8(text.to_vec()).map_err(|_| self.err(format!("{what} at offset {at}: not UTF-8")))
    }
}

impl<'p> Ct2Model<'p> {
    fn read(path: &'p Path) -> Result<Self, ConvertError> {
        let buf = std::fs::read(path).map_err(|e| ConvertError::io(path, e))?;
        let (spec, vars) = Self::parse(path, &buf)?;
        Ok(Ct2Model { path, spec, buf, vars })
    }

    fn parse(path: &Path, buf: &[u8]) -> Result<(String, HashMap<String, Var>), ConvertError> {
        let mut r = Reader { path, buf, pos: 0 };
        let version = r.u32(&"the binary version")?;
        if !VERSIONS.contains(&version) {
            return Err(r.err(format!(
                "CTranslate2 binary version {version} is not supported ({}..={}); is this a CTranslate2 model.bin?",
                VERSIONS.start(),
                VERSIONS.end()
            )));
        }
        let spec = r.string(&"the spec name")?;
        r.u32(&"the spec revision")?;
        let count = r.u32(&"the variable count")?;
        let mut vars = HashMap::new();
        for i in 0..count {
            let name = r.string(&format_args!("the name of variable {i} of {count}"))?;
            let rank = r.u8(&format_args!("the rank of {name}"))?;
            let mut shape = Vec::with_capacity(usize::from(rank));
            for _ in 0..rank {
                shape.push(r.u32(&format_args!("the shape of {name}"))? as usize);
            }
            let type_id = r.u8(&format_args!("the dtype of {name}"))?;
            let nbytes = r.u32(&format_args!("the byte count of {name}"))? as usize;
            let ty = CtType::from_id(type_id).ok_or_else(|| {
                r.err(match type_id {
                    5 => format!("{name}: bfloat16 weights are not supported"),
                    _ => format!("{name}: unsupported dtype id {type_id}"),
                })
            })?;
            let expect = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).and_then(|n| n.checked_mul(ty.size()));
            if expect != Some(nbytes) {
                return Err(
                    r.err(format!("{name}: {nbytes} bytes do not hold a {} tensor of shape {shape:?}", ty.name()))
                );
            }
            let start = r.pos;
            r.bytes(nbytes, &format_args!("the data of {name}"))?;
            vars.insert(name, Var { ty, shape, start, len: nbytes });
        }
        let aliases = r.u32(&"the alias count")?;
        for i in 0..aliases {
            let alias = r.string(&format_args!("alias {i} of {aliases}"))?;
            let target = r.string(&format_args!("the target of alias {alias}"))?;
            let var = vars
                .get(&target)
                .cloned()
                .ok_or_else(|| r.err(format!("alias {alias} names a missing variable {target}")))?;
            vars.insert(alias, var);
        }
        if r.pos != buf.len() {
            return Err(r.err(format!("{} trailing bytes", buf.len() - r.pos)));
        }
        Ok((spec, vars))
    }

    fn err(&self, msg: impl Into<String>) -> ConvertError {
        ConvertError::format(self.path, msg)
    }

    fn var(&self, name: &str) -> Result<&Var, ConvertError> {
        self.vars.get(name).ok_or_else(|| self.err(format!("missing variable {name}")))
    }

    fn data(&self, name: &str, var: &Var) -> Result<&[u8], ConvertError> {
        var.start
            .checked_add(var.len)
            .and_then(|end| self.buf.get(var.start..end))
            .ok_or_else(|| self.err(format!("{name}: data out of bounds")))
    }

    /// `shape[axis]` of a variable, an error if it has fewer dimensions.
    fn dim(&self, name: &str, axis: usize) -> Result<usize, ConvertError> {
        let v = self.var(name)?;
        v.shape
            .get(axis)
            .copied()
            .ok_or_else(|| self.err(format!("{name}: shape {:?} has no dimension {axis}", v.shape)))
    }

    fn out_dtype(&self, name: &str, var: &Var) -> Result<Dtype, ConvertError> {
        match var.ty {
            CtType::F16 => Ok(Dtype::F16),
            CtType::F32 => Ok(Dtype::F32),
            t => Err(self.err(format!(
                "{name} is {}: only float16/float32 weights are supported (a quantized model?)",
                t.name()
            ))),
        }
    }

    /// The whole variable as an output tensor (a copy of its bytes).
    fn tensor(&self, name: &str) -> Result<Tensor, ConvertError> {
        let v = self.var(name)?;
        Ok(Tensor { dtype: self.out_dtype(name, v)?, shape: v.shape.clone(), data: self.data(name, v)?.to_vec() })
    }

    /// Rows `part * rows .. (part + 1) * rows` of a variable whose first dimension is
    /// `parts * rows`, as an output tensor.
    fn rows(&self, name: &str, part: usize, parts: usize, rows: usize) -> Result<(Tensor, &[u8]), ConvertError> {
        let v = self.var(name)?;
        let dtype = self.out_dtype(name, v)?;
        let first = v.shape.first().copied();
        if first != parts.checked_mul(rows) {
            return Err(self.err(format!("{name}: shape {:?} is not {parts} fused blocks of {rows} rows", v.shape)));
        }
        let data = self.data(name, v)?;
        // first == parts * rows > part * rows, so these divide and fit (checked anyway).
        let block = data.len().checked_div(parts).unwrap_or(0);
        let bytes = part
            .checked_mul(block)
            .and_then(|s| data.get(s..s.checked_add(block)?))
            .ok_or_else(|| self.err(format!("{name}: block {part} out of bounds")))?;
        let mut shape = v.shape.clone();
        if let Some(s) = shape.first_mut() {
            *s = rows;
        }
        Ok((Tensor { dtype, shape, data: bytes.to_vec() }, bytes))
    }

    /// The elements of a variable as f64 (what numpy compares by value), one at a time.
    fn values<'s>(&'s self, name: &str) -> Result<impl Iterator<Item = f64> + 's, ConvertError> {
        let v = self.var(name)?;
        let ty = v.ty;
        Ok(self.data(name, v)?.chunks_exact(ty.size()).map(move |c| value(ty, c)))
    }

    /// Python's `int(v[name])`: a one-element variable, floats truncated toward zero.
    fn int(&self, name: &str) -> Result<i64, ConvertError> {
        let v = self.var(name)?;
        if v.numel() != 1 {
            return Err(self.err(format!("{name}: shape {:?} is not a scalar", v.shape)));
        }
        let x = self.values(name)?.next().unwrap_or(f64::NAN);
        if !x.is_finite() || x.abs() >= 9.2e18 {
            return Err(self.err(format!("{name}: {x} is not an integer")));
        }
        Ok(x.trunc() as i64)
    }

    /// Whether two variables have the same shape and equal values (`np.array_equal`:
    /// NaN is unequal to itself, -0 equals 0).
    fn array_equal(&self, a: &str, b: &str) -> Result<bool, ConvertError> {
        if self.var(a)?.shape != self.var(b)?.shape {
            return Ok(false);
        }
        let (x, y) = (self.values(a)?, self.values(b)?);
        // Same shape, so the same number of elements.
        Ok(x.zip(y).all(|(p, q)| p == q))
    }
}

/// One element (`ty.size()` little-endian bytes) as f64; NaN if `c` is too short.
fn value(ty: CtType, c: &[u8]) -> f64 {
    fn arr<const N: usize>(c: &[u8]) -> Option<[u8; N]> {
        c.get(..N)?.try_into().ok()
    }
    let v = match ty {
        CtType::F32 => arr(c).map(|b| f64::from(f32::from_le_bytes(b))),
        CtType::F16 => arr(c).map(|b| f16::from_le_bytes(b).to_f64()),
        CtType::I8 => arr(c).map(|b| f64::from(i8::from_le_bytes(b))),
        CtType::I16 => arr(c).map(|b| f64::from(i16::from_le_bytes(b))),
        CtType::I32 => arr(c).map(|b| f64::from(i32::from_le_bytes(b))),
    };
    v.unwrap_or(f64::NAN)
}

/// Whether every element of `bytes` (of type `ty`) compares equal to zero (-0.0 does).
fn all_zero(ty: CtType, bytes: &[u8]) -> bool {
    match ty {
        // Little-endian: the sign bit is the top bit of the last byte.
        CtType::F16 => bytes.chunks_exact(2).all(|c| matches!(c, [0, b] if b & 0x7f == 0)),
        CtType::F32 => bytes.chunks_exact(4).all(|c| matches!(c, [0, 0, 0, b] if b & 0x7f == 0)),
        CtType::I8 | CtType::I16 | CtType::I32 => bytes.iter().all(|&b| b == 0),
    }
}

/// The number of distinct `{side}/layer_N/` prefixes among the variable names.
fn count_layers(m: &Ct2Model, side: &str) -> usize {
    let mut seen = BTreeSet::new();
    for k in m.vars.keys() {
        let Some(rest) = k.strip_prefix(side).and_then(|r| r.strip_prefix("/layer_")) else { continue };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest.get(digits..).is_some_and(|r| r.starts_with('/')) {
            seen.insert(rest.get(..digits).unwrap_or_default().to_string());
        }
    }
    seen.len()
}

fn read_json(path: &Path) -> Result<(Vec<u8>, Value), ConvertError> {
    let bytes = std::fs::read(path).map_err(|e| ConvertError::io(path, e))?;
    let value = serde_json::from_slice(&bytes).map_err(|e| ConvertError::format(path, format!("not JSON: {e}")))?;
    Ok((bytes, value))
}

/// Builds the transformers tensors from the CTranslate2 variables.
struct Builder<'m, 'p> {
    m: &'m Ct2Model<'p>,
    d: usize,
    t: BTreeMap<String, Tensor>,
}

impl Builder<'_, '_> {
    fn put(&mut self, dst: String, src: &str) -> Result<(), ConvertError> {
        let tensor = self.m.tensor(src)?;
        self.t.insert(dst, tensor);
        Ok(())
    }

    fn ln(&mut self, dst: &str, src: &str) -> Result<(), ConvertError> {
        self.put(format!("{dst}.weight"), &format!("{src}/gamma"))?;
        self.put(format!("{dst}.bias"), &format!("{src}/beta"))
    }

    fn lin(&mut self, dst: &str, src: &str) -> Result<(), ConvertError> {
        self.put(format!("{dst}.weight"), &format!("{src}/weight"))?;
        self.put(format!("{dst}.bias"), &format!("{src}/bias"))
    }

    /// A fused projection split into `names`, `d` rows each; the key bias must be zero
    /// (Whisper's key projection has no bias; CTranslate2 stores a zero) and is dropped.
    fn split(&mut self, prefix: &str, src: &str, names: &[&str]) -> Result<(), ConvertError> {
        let (wn, bn) = (format!("{src}/weight"), format!("{src}/bias"));
        for (i, n) in names.iter().enumerate() {
            let (w, _) = self.m.rows(&wn, i, names.len(), self.d)?;
            self.t.insert(format!("{prefix}.{n}.weight"), w);
            let (b, bytes) = self.m.rows(&bn, i, names.len(), self.d)?;
            if *n == "k_proj" {
                if !all_zero(self.m.var(&bn)?.ty, bytes) {
                    return Err(self.m.err(format!("{src}: non-zero key bias")));
                }
            } else {
                self.t.insert(format!("{prefix}.{n}.bias"), b);
            }
        }
        Ok(())
    }
}

fn field<'v>(path: &Path, v: &'v Value, key: &str) -> Result<&'v Value, ConvertError> {
    v.get(key).ok_or_else(|| ConvertError::format(path, format!("missing \"{key}\"")))
}

/// Converts the CTranslate2 Whisper model in `ct2_dir` into `out_dir` (created if
/// needed). Everything is read and checked before anything is written; the JSON and
/// tokenizer files are written first and `model.safetensors` last, each through a
/// `.part` file, so a present `model.safetensors` means a complete folder.
pub fn convert(ct2_dir: &Path, out_dir: &Path) -> Result<(), ConvertError> {
    let bin_path = ct2_dir.join("model.bin");
    let m = Ct2Model::read(&bin_path)?;
    if m.spec != "WhisperSpec" {
        return Err(m.err(format!("not a Whisper model: {}", m.spec)));
    }
    let cfg_path = ct2_dir.join("config.json");
    let (_, ct2cfg) = read_json(&cfg_path)?;
    if !ct2cfg.is_object() {
        return Err(ConvertError::format(&cfg_path, "not a JSON object"));
    }
    for flag in ["decoder/scale_embeddings"] {
        if m.vars.contains_key(flag) && m.int(flag)? != 0 {
            return Err(m.err(format!("{flag} is set: unsupported")));
        }
    }
    let d = m.dim("encoder/conv1/weight", 0)?;
    let n_mels = m.dim("encoder/conv1/weight", 1)?;
    let enc_layers = count_layers(&m, "encoder");
    let dec_layers = count_layers(&m, "decoder");
    let vocab = m.dim("decoder/embeddings/weight", 0)?;

    let mut b = Builder { m: &m, d, t: BTreeMap::new() };
    let e = "model.encoder";
    for c in ["conv1", "conv2"] {
        b.lin(&format!("{e}.{c}"), &format!("encoder/{c}"))?;
    }
    b.put(format!("{e}.embed_positions.weight"), "encoder/position_encodings/encodings")?;
    for i in 0..enc_layers {
        let (p, s) = (format!("{e}.layers.{i}"), format!("encoder/layer_{i}"));
        b.ln(&format!("{p}.self_attn_layer_norm"), &format!("{s}/self_attention/layer_norm"))?;
        b.split(&format!("{p}.self_attn"), &format!("{s}/self_attention/linear_0"), &["q_proj", "k_proj", "v_proj"])?;
        b.lin(&format!("{p}.self_attn.out_proj"), &format!("{s}/self_attention/linear_1"))?;
        b.ln(&format!("{p}.final_layer_norm"), &format!("{s}/ffn/layer_norm"))?;
        b.lin(&format!("{p}.fc1"), &format!("{s}/ffn/linear_0"))?;
        b.lin(&format!("{p}.fc2"), &format!("{s}/ffn/linear_1"))?;
    }
    b.ln(&format!("{e}.layer_norm"), "encoder/layer_norm")?;
    let dd = "model.decoder";
    b.put(format!("{dd}.embed_tokens.weight"), "decoder/embeddings/weight")?;
    b.put(format!("{dd}.embed_positions.weight"), "decoder/position_encodings/encodings")?;
    for i in 0..dec_layers {
        let (p, s) = (format!("{dd}.layers.{i}"), format!("decoder/layer_{i}"));
        b.ln(&format!("{p}.self_attn_layer_norm"), &format!("{s}/self_attention/layer_norm"))?;
        b.split(&format!("{p}.self_attn"), &format!("{s}/self_attention/linear_0"), &["q_proj", "k_proj", "v_proj"])?;
        b.lin(&format!("{p}.self_attn.out_proj"), &format!("{s}/self_attention/linear_1"))?;
        b.ln(&format!("{p}.encoder_attn_layer_norm"), &format!("{s}/attention/layer_norm"))?;
        b.lin(&format!("{p}.encoder_attn.q_proj"), &format!("{s}/attention/linear_0"))?;
        b.split(&format!("{p}.encoder_attn"), &format!("{s}/attention/linear_1"), &["k_proj", "v_proj"])?;
        b.lin(&format!("{p}.encoder_attn.out_proj"), &format!("{s}/attention/linear_2"))?;
        b.ln(&format!("{p}.final_layer_norm"), &format!("{s}/ffn/layer_norm"))?;
        b.lin(&format!("{p}.fc1"), &format!("{s}/ffn/linear_0"))?;
        b.lin(&format!("{p}.fc2"), &format!("{s}/ffn/linear_1"))?;
    }
    b.ln(&format!("{dd}.layer_norm"), "decoder/layer_norm")?;
    if m.vars.contains_key("decoder/projection/weight")
        && !m.array_equal("decoder/projection/weight", "decoder/embeddings/weight")?
    {
        b.put("proj_out.weight".into(), "decoder/projection/weight")?;
    }
    let tensors = b.t;

    let tok_path = ct2_dir.join("tokenizer.json");
    let (tok_bytes, tok) = read_json(&tok_path)?;
    let added = field(&tok_path, &tok, "added_tokens")?
        .as_array()
        .ok_or_else(|| ConvertError::format(&tok_path, "\"added_tokens\" is not a list"))?;
    // content -> id, in first-seen order with later duplicates overriding (a Python dict).
    let mut ids: Vec<(String, Value)> = Vec::new();
    for a in added {
        let content = field(&tok_path, a, "content")?
            .as_str()
            .ok_or_else(|| ConvertError::format(&tok_path, "an added token's \"content\" is not a string"))?;
        let id = field(&tok_path, a, "id")?.clone();
        match ids.iter_mut().find(|(k, _)| k == content) {
            Some(slot) => slot.1 = id,
            None => ids.push((content.to_string(), id)),
        }
    }
    let id = |content: &str| {
        ids.iter()
            .find(|(k, _)| k == content)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| ConvertError::format(&tok_path, format!("no added token {content}")))
    };
    let get = |key: &str| ct2cfg.get(key).cloned().unwrap_or_else(|| json!([]));
    let multilingual = vocab >= 51865;
    let cfg = json!({
        "architectures": ["WhisperForConditionalGeneration"],
        "model_type": "whisper",
        "d_model": d,
        "encoder_layers": enc_layers,
        "decoder_layers": dec_layers,
        "encoder_attention_heads": m.int("encoder/num_heads")?,
        "decoder_attention_heads": m.int("decoder/num_heads")?,
        "encoder_ffn_dim": m.dim("encoder/layer_0/ffn/linear_0/weight", 0)?,
        "decoder_ffn_dim": m.dim("decoder/layer_0/ffn/linear_0/weight", 0)?,
        "vocab_size": vocab,
        "num_mel_bins": n_mels,
        "max_source_positions": m.dim("encoder/position_encodings/encodings", 0)?,
        "max_target_positions": m.dim("decoder/position_encodings/encodings", 0)?,
        "decoder_start_token_id": id("<|startoftranscript|>")?,
        "bos_token_id": id("<|endoftext|>")?,
        "eos_token_id": id("<|endoftext|>")?,
        "pad_token_id": id("<|endoftext|>")?,
        "activation_function": "gelu",
        "scale_embedding": false,
        "tie_word_embeddings": !tensors.contains_key("proj_out.weight"),
        "suppress_tokens": get("suppress_ids"),
        "begin_suppress_tokens": get("suppress_ids_begin"),
        "torch_dtype": "float16",
    });
    let mut gen = json!({
        "decoder_start_token_id": cfg["decoder_start_token_id"],
        "eos_token_id": cfg["eos_token_id"],
        "no_timestamps_token_id": id("<|notimestamps|>")?,
        "is_multilingual": multilingual,
        "max_initial_timestamp_index": 50,
        "suppress_tokens": cfg["suppress_tokens"],
        "begin_suppress_tokens": cfg["begin_suppress_tokens"],
        "alignment_heads": get("alignment_heads"),
    });
    if multilingual {
        let lang_ids = get("lang_ids");
        let lang_ids =
            lang_ids.as_array().ok_or_else(|| ConvertError::format(&cfg_path, "\"lang_ids\" is not a list"))?;
        let lang_to_id: Map<String, Value> =
            ids.iter().filter(|(_, i)| lang_ids.contains(i)).map(|(k, i)| (k.clone(), i.clone())).collect();
        if let Some(g) = gen.as_object_mut() {
            g.insert("lang_to_id".into(), Value::Object(lang_to_id));
        }
    }
    let pre = json!({
        "feature_extractor_type": "WhisperFeatureExtractor",
        "feature_size": n_mels,
        "hop_length": 160,
        "n_fft": 400,
        "chunk_length": 30,
        "n_samples": 480000,
        "nb_max_frames": 3000,
        "sampling_rate": 16000,
        "padding_value": 0.0,
    });

    std::fs::create_dir_all(out_dir).map_err(|e| ConvertError::io(out_dir, e))?;
    write_json(&out_dir.join("config.json"), &cfg)?;
    write_json(&out_dir.join("generation_config.json"), &gen)?;
    write_json(&out_dir.join("preprocessor_config.json"), &pre)?;
    let tok_out = out_dir.join("tokenizer.json");
    let tok_part = tok_out.with_extension("json.part");
    std::fs::write(&tok_part, &tok_bytes).map_err(|e| ConvertError::io(&tok_part, e))?;
    std::fs::rename(&tok_part, &tok_out).map_err(|e| ConvertError::io(&tok_out, e))?;
    write_safetensors(&out_dir.join("model.safetensors"), &tensors, None)?;
    tracing::info!(
        "{}: {} tensors, d_model {d}, {enc_layers}+{dec_layers} layers, vocab {vocab}",
        out_dir.display(),
        tensors.len()
    );
    Ok(())
}
