//! Moonshine as moonshine-cpp ships it: ONNX Runtime's ORT flatbuffer format
//! (`encoder_model.ort` + `decoder_model_merged.ort`, int8 weights) → the HF layout
//! (`model.safetensors` with transformers `MoonshineForConditionalGeneration` names,
//! `config.json`, `tokenizer.json`).
//!
//! A port of tools/moonshine/convert_ort.py that gives the same tensors bit for bit and
//! the same config.json. The weights are int8 with one f32 scale and one f32 offset per
//! tensor; the graph dequantizes them as `Cast(q) * scale + offset` (checked node by
//! node), which is computed here in the same f32 order as numpy does. Anonymous MatMul
//! weights (`onnx::MatMul_NNN`) are named from the node that consumes them
//! (`/model/decoder/layers.3/mlp/up_proj/MatMul` → `model.decoder.layers.3.mlp.fc1.weight`)
//! and transposed from ONNX's `[in, out]` to torch's `[out, in]`. The decoder MLP's
//! `up_proj` holds fc1 whole: the graph takes `silu(second half) * first half`, as
//! transformers' `chunk(2)` does (checked on the Slice bounds).
//!
//! The flatbuffer is read through the `flatbuffers` crate's verifier (every table, vector
//! and string read below is declared to it first), so a truncated or corrupt file is an
//! error naming the file, never a panic.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use super::{write_json, write_safetensors, ConvertError, Tensor};

/// The subset of onnxruntime/core/flatbuffers/schema/ort.fbs that the converter reads.
/// Field offsets are the vtable slots `4 + 2 * field_index` (as in ort_flatbuffers_py).
mod fbs {
    use flatbuffers::{Follow, ForwardsUOffset, InvalidFlatbuffer, Table, VOffsetT, Vector, Verifiable, Verifier};

    macro_rules! table {
        ($name:ident) => {
            #[derive(Clone, Copy)]
            pub struct $name<'a>(Table<'a>);
            impl<'a> Follow<'a> for $name<'a> {
                type Inner = $name<'a>;
                unsafe fn follow(buf: &'a [u8], loc: usize) -> Self::Inner {
                    // SAFETY: forwarded from the caller (a verified buffer).
                    $name(unsafe { Table::new(buf, loc) })
                }
            }
        };
    }

    table!(InferenceSession);
    table!(Model);
    table!(Graph);
    table!(Node);
    table!(Attribute);
    table!(Tensor);

    /// A `[long]` vector, checked for bounds but not for 8-byte alignment: ORT writes some
    /// (empty `dims`) only 4-aligned, which flatbuffers' `Vector<i64>` verifier rejects.
    /// Read with unaligned little-endian loads.
    #[derive(Clone, Copy)]
    pub struct I64s<'a>(&'a [u8]);

    impl<'a> Follow<'a> for I64s<'a> {
        type Inner = I64s<'a>;
        unsafe fn follow(buf: &'a [u8], loc: usize) -> Self::Inner {
            let len = buf.get(loc..loc.saturating_add(4)).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes);
            let start = loc.saturating_add(4);
            let body = len.and_then(|n| buf.get(start..start.saturating_add((n as usize).saturating_mul(8))));
            I64s(body.unwrap_or_default())
        }
    }

    impl Verifiable for I64s<'_> {
        fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
            let len = v.get_uoffset(pos)? as usize;
            v.range_in_buffer(pos.saturating_add(4), len.saturating_mul(8))
        }
    }

    impl I64s<'_> {
        pub fn to_vec(self) -> Vec<i64> {
            self.0.chunks_exact(8).map(|c| c.try_into().map(i64::from_le_bytes).unwrap_or_default()).collect()
        }
    }

    type Str<'a> = ForwardsUOffset<&'a str>;
    type Strs<'a> = ForwardsUOffset<Vector<'a, ForwardsUOffset<&'a str>>>;
    type Tables<'a, T> = ForwardsUOffset<Vector<'a, ForwardsUOffset<T>>>;

    // InferenceSession { ort_version: string; model: Model; ... }
    const SESSION_ORT_VERSION: VOffsetT = 4;
    const SESSION_MODEL: VOffsetT = 6;
    // Model { ir_version, opset_import, producer_name, producer_version, domain,
    //         model_version, doc_string, graph: Graph; ... }
    const MODEL_GRAPH: VOffsetT = 18;
    // Graph { initializers: [Tensor]; node_args; nodes: [Node]; ... }
    const GRAPH_INITIALIZERS: VOffsetT = 4;
    const GRAPH_NODES: VOffsetT = 8;
    // Node { name; doc_string; domain; since_version; index; op_type; type;
    //        execution_provider_type; inputs: [string]; outputs: [string]; attributes: [Attribute]; ... }
    const NODE_NAME: VOffsetT = 4;
    const NODE_OP_TYPE: VOffsetT = 14;
    const NODE_INPUTS: VOffsetT = 20;
    const NODE_OUTPUTS: VOffsetT = 22;
    const NODE_ATTRIBUTES: VOffsetT = 24;
    // Attribute { name; doc_string; type; f: float; i; s; t; g: Graph; ... }
    const ATTR_NAME: VOffsetT = 4;
    const ATTR_F: VOffsetT = 10;
    const ATTR_G: VOffsetT = 18;
    // Tensor { name; doc_string; dims: [int64]; data_type: TensorDataType (int32); raw_data: [ubyte]; ... }
    const TENSOR_NAME: VOffsetT = 4;
    const TENSOR_DIMS: VOffsetT = 8;
    const TENSOR_DATA_TYPE: VOffsetT = 10;
    const TENSOR_RAW_DATA: VOffsetT = 12;

    impl Verifiable for InferenceSession<'_> {
        fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
            // ort_version is not read, but verified: it is the first object written, so it
            // ends the buffer, and a cut there shows.
            v.visit_table(pos)?
                .visit_field::<Str>("ort_version", SESSION_ORT_VERSION, false)?
                .visit_field::<ForwardsUOffset<Model>>("model", SESSION_MODEL, false)?
                .finish();
            Ok(())
        }
    }
    impl Verifiable for Model<'_> {
        fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
            v.visit_table(pos)?.visit_field::<ForwardsUOffset<Graph>>("graph", MODEL_GRAPH, false)?.finish();
            Ok(())
        }
    }
    impl Verifiable for Graph<'_> {
        fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
            v.visit_table(pos)?
                .visit_field::<Tables<Tensor>>("initializers", GRAPH_INITIALIZERS, false)?
                .visit_field::<Tables<Node>>("nodes", GRAPH_NODES, false)?
                .finish();
            Ok(())
        }
    }
    impl Verifiable for Node<'_> {
        fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
            v.visit_table(pos)?
                .visit_field::<Str>("name", NODE_NAME, false)?
                .visit_field::<Str>("op_type", NODE_OP_TYPE, false)?
                .visit_field::<Strs>("inputs", NODE_INPUTS, false)?
                .visit_field::<Strs>("outputs", NODE_OUTPUTS, false)?
                .visit_field::<Tables<Attribute>>("attributes", NODE_ATTRIBUTES, false)?
                .finish();
            Ok(())
        }
    }
    impl Verifiable for Attribute<'_> {
        fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
            v.visit_table(pos)?
                .visit_field::<Str>("name", ATTR_NAME, false)?
                .visit_field::<f32>("f", ATTR_F, false)?
                .visit_field::<ForwardsUOffset<Graph>>("g", ATTR_G, false)?
                .finish();
            Ok(())
        }
    }
    impl Verifiable for Tensor<'_> {
        fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
            v.visit_table(pos)?
                .visit_field::<Str>("name", TENSOR_NAME, false)?
                .visit_field::<ForwardsUOffset<I64s>>("dims", TENSOR_DIMS, false)?
                .visit_field::<i32>("data_type", TENSOR_DATA_TYPE, false)?
                .visit_field::<ForwardsUOffset<Vector<u8>>>("raw_data", TENSOR_RAW_DATA, false)?
                .finish();
            Ok(())
        }
    }

    /// The verified root. Every accessor below reads only fields that the `Verifiable` impls
    /// above declare with the same type, which is what makes the `unsafe` reads sound.
    /// flatbuffers' default limits (depth 64, 1M tables, 2 GiB apparent size) bound what a
    /// hostile file can make the reader do; the base decoder has a few thousand tables.
    pub fn root(buf: &[u8]) -> Result<InferenceSession<'_>, InvalidFlatbuffer> {
        flatbuffers::root::<InferenceSession>(buf)
    }

    fn strings<'a>(t: &Table<'a>, slot: VOffsetT) -> Vec<&'a str> {
        // SAFETY: `slot` is verified as a vector of strings.
        unsafe { t.get::<Strs>(slot, None) }.map(|v| v.iter().collect()).unwrap_or_default()
    }

    impl<'a> InferenceSession<'a> {
        pub fn model(&self) -> Option<Model<'a>> {
            // SAFETY: verified as ForwardsUOffset<Model>.
            unsafe { self.0.get::<ForwardsUOffset<Model>>(SESSION_MODEL, None) }
        }
    }
    impl<'a> Model<'a> {
        pub fn graph(&self) -> Option<Graph<'a>> {
            // SAFETY: verified as ForwardsUOffset<Graph>.
            unsafe { self.0.get::<ForwardsUOffset<Graph>>(MODEL_GRAPH, None) }
        }
    }
    impl<'a> Graph<'a> {
        pub fn initializers(&self) -> Vec<Tensor<'a>> {
            // SAFETY: verified as a vector of Tensor tables.
            unsafe { self.0.get::<Tables<Tensor>>(GRAPH_INITIALIZERS, None) }
                .map(|v| v.iter().collect())
                .unwrap_or_default()
        }
        pub fn nodes(&self) -> Vec<Node<'a>> {
            // SAFETY: verified as a vector of Node tables.
            unsafe { self.0.get::<Tables<Node>>(GRAPH_NODES, None) }.map(|v| v.iter().collect()).unwrap_or_default()
        }
    }
    impl<'a> Node<'a> {
        pub fn name(&self) -> &'a str {
            // SAFETY: verified as a string.
            unsafe { self.0.get::<Str>(NODE_NAME, None) }.unwrap_or_default()
        }
        pub fn op_type(&self) -> &'a str {
            // SAFETY: verified as a string.
            unsafe { self.0.get::<Str>(NODE_OP_TYPE, None) }.unwrap_or_default()
        }
        pub fn inputs(&self) -> Vec<&'a str> {
            strings(&self.0, NODE_INPUTS)
        }
        pub fn outputs(&self) -> Vec<&'a str> {
            strings(&self.0, NODE_OUTPUTS)
        }
        pub fn attributes(&self) -> Vec<Attribute<'a>> {
            // SAFETY: verified as a vector of Attribute tables.
            unsafe { self.0.get::<Tables<Attribute>>(NODE_ATTRIBUTES, None) }
                .map(|v| v.iter().collect())
                .unwrap_or_default()
        }
    }
    impl<'a> Attribute<'a> {
        pub fn name(&self) -> &'a str {
            // SAFETY: verified as a string.
            unsafe { self.0.get::<Str>(ATTR_NAME, None) }.unwrap_or_default()
        }
        pub fn f(&self) -> f32 {
            // SAFETY: verified as f32.
            unsafe { self.0.get::<f32>(ATTR_F, Some(0.0)) }.unwrap_or(0.0)
        }
        pub fn g(&self) -> Option<Graph<'a>> {
            // SAFETY: verified as ForwardsUOffset<Graph>.
            unsafe { self.0.get::<ForwardsUOffset<Graph>>(ATTR_G, None) }
        }
    }
    impl<'a> Tensor<'a> {
        pub fn name(&self) -> &'a str {
            // SAFETY: verified as a string.
            unsafe { self.0.get::<Str>(TENSOR_NAME, None) }.unwrap_or_default()
        }
        pub fn dims(&self) -> Vec<i64> {
            // SAFETY: verified as a vector of i64.
            unsafe { self.0.get::<ForwardsUOffset<I64s>>(TENSOR_DIMS, None) }.map(I64s::to_vec).unwrap_or_default()
        }
        pub fn data_type(&self) -> i32 {
            // SAFETY: verified as i32.
            unsafe { self.0.get::<i32>(TENSOR_DATA_TYPE, Some(0)) }.unwrap_or(0)
        }
        pub fn raw_data(&self) -> &'a [u8] {
            // SAFETY: verified as a vector of u8.
            unsafe { self.0.get::<ForwardsUOffset<Vector<u8>>>(TENSOR_RAW_DATA, None) }
                .map(|v| v.bytes())
                .unwrap_or_default()
        }
    }
}

// onnx TensorProto data types that the script reads (its DTYPES); others are skipped.
const FLOAT: i32 = 1;
const UINT8: i32 = 2;
const INT8: i32 = 3;
const INT32: i32 = 6;
const INT64: i32 = 7;
const FLOAT16: i32 = 10;
const DOUBLE: i32 = 11;

fn item_size(dtype: i32) -> Option<usize> {
    match dtype {
        UINT8 | INT8 => Some(1),
        FLOAT16 => Some(2),
        FLOAT | INT32 => Some(4),
        INT64 | DOUBLE => Some(8),
        _ => None,
    }
}

fn dtype_name(dtype: i32) -> &'static str {
    match dtype {
        FLOAT => "float32",
        UINT8 => "uint8",
        INT8 => "int8",
        INT32 => "int32",
        INT64 => "int64",
        FLOAT16 => "float16",
        DOUBLE => "float64",
        _ => "?",
    }
}

/// An initializer: little-endian `raw_data` of `dtype`, `shape` checked against its length.
struct Init<'a> {
    dtype: i32,
    shape: Vec<usize>,
    raw: &'a [u8],
}

impl Init<'_> {
    fn len(&self) -> usize {
        self.shape.iter().product()
    }

    fn chunks<const N: usize>(&self) -> impl Iterator<Item = [u8; N]> + '_ {
        self.raw.chunks_exact(N).map(|c| {
            let mut b = [0u8; N];
            b.copy_from_slice(c);
            b
        })
    }

    /// numpy's `astype(np.float32)`.
    fn to_f32(&self) -> Vec<f32> {
        match self.dtype {
            FLOAT => self.chunks::<4>().map(f32::from_le_bytes).collect(),
            UINT8 => self.raw.iter().map(|&b| b as f32).collect(),
            INT8 => self.raw.iter().map(|&b| b as i8 as f32).collect(),
            INT32 => self.chunks::<4>().map(|b| i32::from_le_bytes(b) as f32).collect(),
            INT64 => self.chunks::<8>().map(|b| i64::from_le_bytes(b) as f32).collect(),
            FLOAT16 => self.chunks::<2>().map(|b| half::f16::from_le_bytes(b).to_f32()).collect(),
            DOUBLE => self.chunks::<8>().map(|b| f64::from_le_bytes(b) as f32).collect(),
            _ => Vec::new(),
        }
    }

    /// numpy's `astype(np.float64)`.
    fn to_f64(&self) -> Vec<f64> {
        match self.dtype {
            FLOAT => self.chunks::<4>().map(|b| f32::from_le_bytes(b) as f64).collect(),
            UINT8 => self.raw.iter().map(|&b| b as f64).collect(),
            INT8 => self.raw.iter().map(|&b| b as i8 as f64).collect(),
            INT32 => self.chunks::<4>().map(|b| i32::from_le_bytes(b) as f64).collect(),
            INT64 => self.chunks::<8>().map(|b| i64::from_le_bytes(b) as f64).collect(),
            FLOAT16 => self.chunks::<2>().map(|b| half::f16::from_le_bytes(b).to_f64()).collect(),
            DOUBLE => self.chunks::<8>().map(f64::from_le_bytes).collect(),
            _ => Vec::new(),
        }
    }

    /// Element `i` compared with the integer `v` as numpy's `==` does (exactly for integer
    /// dtypes, through float64 for float ones).
    fn elem_eq_int(&self, i: usize, v: i64) -> bool {
        let b = |n: usize| self.raw.get(i * n..(i + 1) * n);
        match self.dtype {
            UINT8 => b(1).and_then(|b| b.first()).is_some_and(|&b| i64::from(b) == v),
            INT8 => b(1).and_then(|b| b.first()).is_some_and(|&b| i64::from(b as i8) == v),
            INT32 => b(4).and_then(|b| b.try_into().ok()).is_some_and(|b| i64::from(i32::from_le_bytes(b)) == v),
            INT64 => b(8).and_then(|b| b.try_into().ok()).is_some_and(|b| i64::from_le_bytes(b) == v),
            _ => self.to_f64().get(i).is_some_and(|&x| x == v as f64),
        }
    }
}

/// A float array (numpy's row-major `ndarray`), what the converter computes and writes.
#[derive(Clone, Debug)]
struct Arr {
    shape: Vec<usize>,
    data: Vec<f32>,
}

impl Arr {
    /// numpy's `.T`: the axes reversed.
    fn transposed(&self) -> Arr {
        let n = self.shape.len();
        if n < 2 {
            return self.clone();
        }
        let shape: Vec<usize> = self.shape.iter().rev().copied().collect();
        if n == 2 {
            let (r, c) = (self.shape[0], self.shape[1]);
            let mut data = Vec::with_capacity(self.data.len());
            for j in 0..c {
                data.extend((0..r).map(|i| self.data[i * c + j]));
            }
            return Arr { shape, data };
        }
        // General case: output index (i_{n-1}, ..., i_0) reads input (i_0, ..., i_{n-1}).
        let mut in_strides = vec![1usize; n];
        for k in (0..n - 1).rev() {
            in_strides[k] = in_strides[k + 1] * self.shape[k + 1];
        }
        let mut idx = vec![0usize; n];
        let mut data = Vec::with_capacity(self.data.len());
        for _ in 0..self.data.len() {
            let off: usize = (0..n).map(|k| idx[k] * in_strides[n - 1 - k]).sum();
            data.push(self.data[off]);
            for k in (0..n).rev() {
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        Arr { shape, data }
    }

    /// numpy's `array_equal`: same shape, equal values (so NaN never equals).
    fn array_equal(&self, other: &Arr) -> bool {
        self.shape == other.shape && self.data.iter().zip(&other.data).all(|(a, b)| a == b)
    }
}

#[derive(Debug)]
struct Node {
    name: String,
    op: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    /// Attributes that are not subgraphs: name → f (the script keeps (f, i, ints); only f is read).
    attrs: HashMap<String, f32>,
}

/// Nodes and initializers of an ORT graph and all its subgraphs, flattened (the script's `Graph`).
struct Graph<'a> {
    path: &'a Path,
    /// Initializers in first-insertion order (a Python dict: a later one of the same name
    /// replaces the value but keeps the place).
    init_order: Vec<String>,
    inits: HashMap<String, Init<'a>>,
    nodes: Vec<Node>,
    by_output: HashMap<String, usize>,
}

impl<'a> Graph<'a> {
    fn read(path: &'a Path, buf: &'a [u8]) -> Result<Graph<'a>, ConvertError> {
        let fmt = |msg: String| ConvertError::format(path, msg);
        if buf.get(4..8) != Some(b"ORTM".as_slice()) {
            return Err(fmt("not an ORT-format model (no ORTM file identifier)".into()));
        }
        let session = fbs::root(buf).map_err(|e| fmt(format!("corrupt or truncated ORT-format model: {e}")))?;
        let graph =
            session.model().and_then(|m| m.graph()).ok_or_else(|| fmt("the ORT-format model holds no graph".into()))?;
        let mut g =
            Graph { path, init_order: Vec::new(), inits: HashMap::new(), nodes: Vec::new(), by_output: HashMap::new() };
        g.walk(graph)?;
        for (i, n) in g.nodes.iter().enumerate() {
            for o in &n.outputs {
                g.by_output.insert(o.clone(), i);
            }
        }
        Ok(g)
    }

    fn walk(&mut self, graph: fbs::Graph<'a>) -> Result<(), ConvertError> {
        for t in graph.initializers() {
            let dtype = t.data_type();
            let Some(size) = item_size(dtype) else { continue };
            let name = t.name();
            let raw = t.raw_data();
            let mut shape = Vec::new();
            for d in t.dims() {
                let d =
                    usize::try_from(d).map_err(|_| self.err(format!("initializer {name}: negative dimension {d}")))?;
                shape.push(d);
            }
            let bytes = shape.iter().try_fold(size, |acc, &d| acc.checked_mul(d));
            if bytes != Some(raw.len()) {
                return Err(self.err(format!(
                    "initializer {name}: {} bytes of {} do not make shape {shape:?}",
                    raw.len(),
                    dtype_name(dtype)
                )));
            }
            if !self.inits.contains_key(name) {
                self.init_order.push(name.to_string());
            }
            self.inits.insert(name.to_string(), Init { dtype, shape, raw });
        }
        for n in graph.nodes() {
            let mut attrs = HashMap::new();
            for a in n.attributes() {
                match a.g() {
                    Some(sub) => self.walk(sub)?,
                    None => {
                        attrs.insert(a.name().to_string(), a.f());
                    }
                }
            }
            self.nodes.push(Node {
                name: n.name().to_string(),
                op: n.op_type().to_string(),
                inputs: n.inputs().into_iter().map(str::to_string).collect(),
                outputs: n.outputs().into_iter().map(str::to_string).collect(),
                attrs,
            });
        }
        Ok(())
    }

    fn err(&self, msg: impl Into<String>) -> ConvertError {
        ConvertError::format(self.path, msg)
    }

    fn producer(&self, name: &str, op: &str) -> Result<&Node, ConvertError> {
        let n = self.by_output.get(name).and_then(|&i| self.nodes.get(i));
        match n {
            Some(n) if n.op == op => Ok(n),
            _ => Err(self.err(format!(
                "{name}: expected a {op} node to produce it, found {}",
                n.map_or("none", |n| n.op.as_str())
            ))),
        }
    }

    fn node(&self, name: &str) -> Result<&Node, ConvertError> {
        self.nodes.iter().find(|n| n.name == name).ok_or_else(|| self.err(format!("no node named {name}")))
    }

    fn const_(&self, name: &str) -> Result<&Init<'a>, ConvertError> {
        self.inits.get(name).ok_or_else(|| self.err(format!("{name}: not an initializer")))
    }

    /// A tensor: an initializer, or an int8 one dequantized as its graph does
    /// (`q.astype(np.float32) * scale.reshape(()) + offset.reshape(())`).
    fn value(&self, name: &str) -> Result<Arr, ConvertError> {
        if let Some(t) = self.inits.get(name) {
            return Ok(Arr { shape: t.shape.clone(), data: t.to_f32() });
        }
        let add = self.producer(name, "Add")?;
        let mul = self.producer(input(self, add, 0)?, "Mul")?;
        let cast = self.producer(input(self, mul, 0)?, "Cast")?;
        let q = self.const_(input(self, cast, 0)?)?;
        let scale = self.const_(input(self, mul, 1)?)?;
        let offset = self.const_(input(self, add, 1)?)?;
        if q.dtype != INT8 || scale.len() != 1 || offset.len() != 1 || offset.dtype != FLOAT {
            return Err(self.quant_err(name, q, scale, offset));
        }
        let [o] = offset.to_f32()[..] else { return Err(self.quant_err(name, q, scale, offset)) };
        // numpy promotes float32 * float16 to float32 and float32 * float64 (a 0-d array is
        // not a weak scalar) to float64; the script writes float32 at the end.
        let data: Vec<f32> = match scale.dtype {
            FLOAT | FLOAT16 => {
                let [s] = scale.to_f32()[..] else { return Err(self.quant_err(name, q, scale, offset)) };
                q.raw.iter().map(|&b| (b as i8 as f32) * s + o).collect()
            }
            DOUBLE => {
                let [s] = scale.to_f64()[..] else { return Err(self.quant_err(name, q, scale, offset)) };
                q.raw.iter().map(|&b| ((b as i8 as f32 as f64) * s + o as f64) as f32).collect()
            }
            _ => return Err(self.quant_err(name, q, scale, offset)),
        };
        Ok(Arr { shape: q.shape.clone(), data })
    }

    fn quant_err(&self, name: &str, q: &Init, scale: &Init, offset: &Init) -> ConvertError {
        self.err(format!(
            "{name}: unexpected quantization {} scale {:?} ({}) offset {}",
            dtype_name(q.dtype),
            scale.shape,
            dtype_name(scale.dtype),
            dtype_name(offset.dtype)
        ))
    }

    /// `float(const.reshape(()))`.
    fn scalar(&self, name: &str) -> Result<f64, ConvertError> {
        match self.const_(name)?.to_f64()[..] {
            [x] => Ok(x),
            _ => Err(self.err(format!("{name}: expected one value"))),
        }
    }
}

fn input<'n>(g: &Graph, n: &'n Node, i: usize) -> Result<&'n str, ConvertError> {
    n.inputs.get(i).map(String::as_str).ok_or_else(|| g.err(format!("node {}: no input {i}", n.name)))
}

// The script's regular expressions, by hand (Python `re` semantics: `\w` is a Unicode word
// character, `\d` a decimal digit, `$` in a search also matches before a final newline).

fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// The prefixes of `s` at whose end Python's `$` matches.
fn dollar_prefixes(s: &str) -> impl Iterator<Item = &str> {
    std::iter::once(s).chain(s.strip_suffix('\n'))
}

/// `s` minus its leading `\d+` (at least one digit), else None.
fn strip_digits(s: &str) -> Option<&str> {
    let rest = s.trim_start_matches(is_digit);
    (rest.len() < s.len()).then_some(rest)
}

/// `re.search(r"layers\.\d+/.*(proj|dense|fc\d)/MatMul$", name)`.
fn is_layer_matmul(name: &str) -> bool {
    dollar_prefixes(name).any(|p| {
        let Some(head) = p.strip_suffix("/MatMul") else { return false };
        let mut befores = vec![head.strip_suffix("proj"), head.strip_suffix("dense")];
        if let Some(c) = head.chars().next_back().filter(|&c| is_digit(c)) {
            befores.push(head[..head.len() - c.len_utf8()].strip_suffix("fc"));
        }
        befores.into_iter().flatten().any(|q| {
            // `layers\.\d+/.*` ends where q ends; nothing in it matches a newline.
            let line = q.rsplit('\n').next().unwrap_or(q);
            line.match_indices("layers.")
                .any(|(i, m)| line.get(i + m.len()..).and_then(strip_digits).is_some_and(|r| r.starts_with('/')))
        })
    })
}

/// `re.search(r"(layernorm|layer_norm|/norm)/Add$", name)`.
fn is_norm_add(name: &str) -> bool {
    dollar_prefixes(name)
        .any(|p| p.ends_with("layernorm/Add") || p.ends_with("layer_norm/Add") || p.ends_with("/norm/Add"))
}

fn all_word_or_dot(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c == '.' || is_word(c))
}

/// `re.fullmatch(r"(layers\.\d+\.[\w.]+|layer_norm\.weight)", k)`.
fn is_encoder_init(k: &str) -> bool {
    k == "layer_norm.weight"
        || k.strip_prefix("layers.")
            .and_then(strip_digits)
            .and_then(|r| r.strip_prefix('.'))
            .is_some_and(all_word_or_dot)
}

/// `re.fullmatch(r"(model\.decoder\.[\w.]+?)_merged_0", k)`: group 1.
fn merged_decoder_init(k: &str) -> Option<&str> {
    let stem = k.strip_suffix("_merged_0")?;
    all_word_or_dot(stem.strip_prefix("model.decoder.")?).then_some(stem)
}

/// '/model/decoder/layers.3/self_attn/dense/MatMul' -> 'model.decoder.layers.3.self_attn.o_proj'.
fn hf_name(prefix: &str, node_name: &str) -> String {
    let parts: Vec<&str> = node_name.split('/').filter(|p| !p.is_empty()).collect();
    let mut s = parts[..parts.len().saturating_sub(1)].join(".");
    if !s.starts_with("model.") {
        s = format!("{prefix}{s}");
    }
    s.replace(".dense", ".o_proj").replace("mlp.up_proj", "mlp.fc1").replace("mlp.down_proj", "mlp.fc2")
}

type Out = BTreeMap<String, Arr>;

fn matmul_weights(g: &Graph, prefix: &str, out: &mut Out) -> Result<(), ConvertError> {
    for n in &g.nodes {
        if n.op != "MatMul" || !is_layer_matmul(&n.name) {
            continue;
        }
        let name = hf_name(prefix, &n.name) + ".weight";
        let w = g.value(input(g, n, 1)?)?.transposed();
        if out.get(&name).is_some_and(|old| !old.array_equal(&w)) {
            return Err(g.err(format!("{name}: the If branches disagree")));
        }
        out.insert(name, w);
    }
    Ok(())
}

/// LayerNorms are exported as ReduceMean/Sub/Pow/Add(eps)/Sqrt/Div/Mul(weight), no bias.
fn layer_norm_eps(g: &Graph, eps: &mut Vec<f64>) -> Result<(), ConvertError> {
    for n in &g.nodes {
        if n.op == "Add" && is_norm_add(&n.name) {
            eps.push(g.scalar(input(g, n, 1)?)?);
        }
    }
    Ok(())
}

fn convert_encoder(g: &Graph, out: &mut Out) -> Result<(), ConvertError> {
    for c in ["conv1", "conv2", "conv3"] {
        let conv = g.node(&format!("/{c}/Conv"))?;
        out.insert(format!("model.encoder.{c}.weight"), g.value(input(g, conv, 1)?)?);
        if conv.inputs.len() > 2 {
            out.insert(format!("model.encoder.{c}.bias"), g.value(input(g, conv, 2)?)?);
        }
    }
    // GroupNorm(1) is exported as an instance norm over one channel (scale 1, bias 0) then the affine.
    let inorm = g.node("/groupnorm/InstanceNormalization")?;
    let (s, b) = (g.const_(input(g, inorm, 1)?)?, g.const_(input(g, inorm, 2)?)?);
    if !(0..s.len()).all(|i| s.elem_eq_int(i, 1)) || !(0..b.len()).all(|i| b.elem_eq_int(i, 0)) {
        return Err(g.err("/groupnorm/InstanceNormalization: expected scale 1 and bias 0"));
    }
    let gn_eps = inorm.attrs.get("epsilon").copied().ok_or_else(|| g.err("groupnorm: no epsilon"))? as f64;
    // Written so that a NaN epsilon fails too.
    if (gn_eps - 1e-5).abs().partial_cmp(&1e-9) != Some(std::cmp::Ordering::Less) {
        return Err(g.err(format!("groupnorm epsilon {gn_eps}, expected 1e-5")));
    }
    let mul = g.node("/groupnorm/Mul")?;
    let add = g.node("/groupnorm/Add")?;
    for (key, node) in [("weight", mul), ("bias", add)] {
        let mut a = g.value(input(g, node, 1)?)?;
        a.shape = vec![a.data.len()];
        out.insert(format!("model.encoder.groupnorm.{key}"), a);
    }
    for k in &g.init_order {
        let Some(v) = g.inits.get(k) else { continue };
        if is_encoder_init(k) && v.dtype == FLOAT {
            out.insert(format!("model.encoder.{k}"), Arr { shape: v.shape.clone(), data: v.to_f32() });
        }
    }
    matmul_weights(g, "model.encoder.", out)
}

fn convert_decoder(g: &Graph, out: &mut Out) -> Result<(), ConvertError> {
    let gather = g.node("/model/decoder/embed_tokens/Gather")?;
    out.insert("model.decoder.embed_tokens.weight".into(), g.value(input(g, gather, 0)?)?);
    for k in &g.init_order {
        let Some(v) = g.inits.get(k) else { continue };
        if let Some(stem) = merged_decoder_init(k).filter(|_| v.dtype == FLOAT) {
            let name = stem.replace("mlp.up_proj", "mlp.fc1").replace("mlp.down_proj", "mlp.fc2");
            out.insert(name, Arr { shape: v.shape.clone(), data: v.to_f32() });
        }
    }
    matmul_weights(g, "", out)?;
    // silu(x[..., F:]) * x[..., :F]: the activation reads the slice that starts at F.
    for n in g.nodes.iter().filter(|n| n.name == "/model/decoder/layers.0/mlp/act_fn/Sigmoid") {
        let sl = g.producer(input(g, n, 0)?, "Slice")?;
        let start = g.const_(input(g, sl, 1)?)?;
        let f = out
            .get("model.decoder.layers.0.mlp.fc2.weight")
            .and_then(|w| w.shape.get(1).copied())
            .ok_or_else(|| g.err("no model.decoder.layers.0.mlp.fc2.weight"))?;
        if start.len() == 0 || !start.elem_eq_int(0, f as i64) {
            let got = start.to_f64().first().copied();
            return Err(g.err(format!("decoder MLP: the gate slice starts at {got:?}, expected {f}")));
        }
    }
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>, ConvertError> {
    std::fs::read(path).map_err(|e| ConvertError::io(path, e))
}

/// Converts `model_dir/{encoder_model.ort, decoder_model_merged.ort}` and `tokenizer_json`
/// into `out_dir/{model.safetensors, config.json, tokenizer.json}`.
pub fn convert(model_dir: &Path, tokenizer_json: &Path, out_dir: &Path) -> Result<(), ConvertError> {
    let enc_path = model_dir.join("encoder_model.ort");
    let dec_path = model_dir.join("decoder_model_merged.ort");
    let enc_buf = read(&enc_path)?;
    let dec_buf = read(&dec_path)?;
    let enc = Graph::read(&enc_path, &enc_buf)?;
    let dec = Graph::read(&dec_path, &dec_buf)?;
    let mut out = Out::new();
    convert_encoder(&enc, &mut out)?;
    convert_decoder(&dec, &mut out)?;

    let dim0 =
        |k: &str, g: &Graph| out.get(k).and_then(|a| a.shape.first().copied()).ok_or_else(|| g.err(format!("no {k}")));
    let d = dim0("model.encoder.conv1.weight", &enc)?;
    let ffn = dim0("model.encoder.layers.0.mlp.fc1.weight", &enc)?;
    let vocab = dim0("model.decoder.embed_tokens.weight", &dec)?;
    let layers = |prefix: &str| {
        out.keys()
            .filter(|k| k.starts_with(prefix))
            .map(|k| k.split('.').nth(3).unwrap_or_default())
            .collect::<HashSet<_>>()
            .len()
    };
    let n_enc = layers("model.encoder.layers.");
    let n_dec = layers("model.decoder.layers.");
    // Heads are not visible in tensor shapes; the published sizes (tiny: 288/8 heads,
    // base: 416/8 heads) are checked against the rotary frequencies the graph stores.
    let heads = 8usize;
    let head_dim = d / heads;
    let (factor, theta) = (0.62f64, 10000.0f64);
    let dim = (head_dim as f64 * factor) as usize;
    let want: Vec<f64> = (0..dim).step_by(2).map(|i| 1.0 / theta.powf(i as f64 / dim as f64)).collect();
    for (g, name) in [(&enc, "/rotary_emb/Cast_1_output_0"), (&dec, "/model/decoder/rotary_emb/Cast_1_output_0")] {
        let got = g.const_(name)?.to_f64();
        // np.allclose(got, want, rtol=1e-5): |got - want| <= 1e-8 + 1e-5 * |want|.
        let close =
            got.len() == want.len() && got.iter().zip(&want).all(|(a, b)| (a - b).abs() <= 1e-8 + 1e-5 * b.abs());
        if !close {
            return Err(g.err(format!("{name}: rotary frequencies do not match {heads} heads, factor {factor}")));
        }
    }
    let mut eps = Vec::new();
    layer_norm_eps(&enc, &mut eps)?;
    layer_norm_eps(&dec, &mut eps)?;
    if let Some(e) = eps.iter().find(|e| (*e - 1e-5).abs() > 1e-9) {
        return Err(ConvertError::format(model_dir, format!("layer norm eps {e}, expected 1e-5")));
    }

    let expected = 5 + 2 + 1 + n_enc * 10 + 2 + n_dec * 15;
    if out.len() != expected {
        let names: Vec<&str> = out.keys().map(String::as_str).collect();
        return Err(ConvertError::format(model_dir, format!("{} tensors, expected {expected}: {names:?}", out.len())));
    }
    let cfg = serde_json::json!({
        "architectures": ["MoonshineForConditionalGeneration"],
        "model_type": "moonshine",
        "hidden_size": d,
        "intermediate_size": ffn,
        "encoder_num_hidden_layers": n_enc,
        "decoder_num_hidden_layers": n_dec,
        "encoder_num_attention_heads": heads,
        "decoder_num_attention_heads": heads,
        "encoder_num_key_value_heads": heads,
        "decoder_num_key_value_heads": heads,
        "encoder_hidden_act": "gelu",
        "decoder_hidden_act": "silu",
        "max_position_embeddings": 194,
        "rope_parameters": {"rope_type": "default", "rope_theta": theta, "partial_rotary_factor": factor},
        "vocab_size": vocab,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "decoder_start_token_id": 1,
        "attention_bias": false,
        "tie_word_embeddings": true,
        "torch_dtype": "float32",
        "gerbil_source": "moonshine-cpp ORT int8 models, dequantized by tools/moonshine/convert_ort.py",
    });
    let tokenizer = read(tokenizer_json)?;
    drop((enc, dec));
    drop((enc_buf, dec_buf));

    std::fs::create_dir_all(out_dir).map_err(|e| ConvertError::io(out_dir, e))?;
    let tok_out = out_dir.join("tokenizer.json");
    let tok_part = out_dir.join("tokenizer.json.part");
    std::fs::write(&tok_part, tokenizer).map_err(|e| ConvertError::io(&tok_part, e))?;
    std::fs::rename(&tok_part, &tok_out).map_err(|e| ConvertError::io(&tok_out, e))?;
    write_json(&out_dir.join("config.json"), &cfg)?;
    let tensors: BTreeMap<String, Tensor> = std::mem::take(&mut out)
        .into_iter()
        .map(|(k, a)| {
            let t = Tensor::f32(a.shape, &a.data);
            (k, t)
        })
        .collect();
    write_safetensors(&out_dir.join("model.safetensors"), &tensors, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_the_scripts_regexes() {
        assert!(is_layer_matmul("/model/decoder/layers.3/mlp/up_proj/MatMul"));
        assert!(is_layer_matmul("/layers.0/self_attn/dense/MatMul"));
        assert!(is_layer_matmul("/layers.12/mlp/fc1/MatMul"));
        assert!(is_layer_matmul("/layers.12/mlp/fc1/MatMul\n"));
        assert!(!is_layer_matmul("/layers.12/mlp/fc1/MatMul\n\n"));
        assert!(!is_layer_matmul("/layers.x/mlp/fc1/MatMul"));
        assert!(!is_layer_matmul("/layers.1/mlp/fc/MatMul"));
        assert!(!is_layer_matmul("/layers.1proj/MatMul"));
        assert!(is_layer_matmul("/layers.1/proj/MatMul"));
        assert!(!is_layer_matmul("/layers.1\n/proj/MatMul"));
        assert!(!is_layer_matmul("/model/decoder/proj/MatMul"));
        assert!(is_norm_add("/model/decoder/layers.0/input_layernorm/Add"));
        assert!(is_norm_add("/layer_norm/Add"));
        assert!(is_norm_add("/model/decoder/norm/Add"));
        assert!(!is_norm_add("/model/decoder/xnorm/Add"));
        assert!(is_encoder_init("layers.0.input_layernorm.weight"));
        assert!(is_encoder_init("layer_norm.weight"));
        assert!(!is_encoder_init("layers.0."));
        assert!(!is_encoder_init("layers..x"));
        assert!(!is_encoder_init("onnx::MatMul_12"));
        assert_eq!(merged_decoder_init("model.decoder.norm.weight_merged_0"), Some("model.decoder.norm.weight"));
        assert_eq!(merged_decoder_init("model.decoder._merged_0"), None);
        assert_eq!(merged_decoder_init("model.decoder.a-b_merged_0"), None);
        assert_eq!(hf_name("p.", "/layers.1/self_attn/dense/MatMul"), "p.layers.1.self_attn.o_proj");
        assert_eq!(hf_name("", "/model/decoder/layers.3/mlp/up_proj/MatMul"), "model.decoder.layers.3.mlp.fc1");
    }

    #[test]
    fn transpose_reverses_axes() {
        let a = Arr { shape: vec![2, 3], data: vec![0., 1., 2., 3., 4., 5.] };
        assert_eq!(a.transposed().data, vec![0., 3., 1., 4., 2., 5.]);
        let b = Arr { shape: vec![2, 1, 3], data: vec![0., 1., 2., 3., 4., 5.] };
        let t = b.transposed();
        assert_eq!(t.shape, vec![3, 1, 2]);
        assert_eq!(t.data, vec![0., 3., 1., 4., 2., 5.]);
    }
}
