//! Piper voices (`VOICE.onnx` + `VOICE.onnx.json`) to `model.safetensors` + `config.json`:
//! the Rust port of tools/piper/convert_voice.py, producing the same tensors (names, shapes,
//! f32 bits), the same `gerbil.piper` metadata string and a byte copy of the voice's JSON.
//!
//! Every weight initializer is written under its PyTorch name. Initializers the exporter
//! left anonymous (`onnx::Conv_8168`, ...) are named from the node that consumes them: the
//! node `/flow/flows.6/enc/in_layers.0/Conv` reads its weight as input 1, so the tensor
//! becomes `flow.flows.6.enc.in_layers.0.weight`. Constants of the traced graph
//! (`/enc_p/Constant_output_0`, ...) are skipped, except `/dp/flows.0/Exp_output_0`
//! (= exp(logs) of the affine flow), stored as `dp.flows.0.logs`. The text embedding,
//! exported as `sid`, is renamed from its consumer `/enc_p/emb/Gather`.
//!
//! The architecture numbers the loader needs but that tensor shapes don't show (upsample
//! strides, kernels and paddings, resblock dilations, leaky-relu slopes) are read from node
//! attributes and stored in the safetensors metadata under "gerbil.piper", formatted as
//! Python's `json.dumps` formats them.
//!
//! The ONNX protobuf is decoded with hand-written `prost` messages holding only the fields
//! read here (field numbers from onnx/onnx.proto); other fields are skipped. Tensors stored
//! as external data are refused.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use prost::bytes::Bytes;
use prost::Message;

use super::{write_safetensors, ConvertError, Dtype, Tensor};

/// The subset of onnx.proto (IR version 3 and later) this converter reads.
mod proto {
    use prost::bytes::Bytes;

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ModelProto {
        #[prost(int64, tag = "1")]
        pub ir_version: i64,
        #[prost(message, optional, tag = "7")]
        pub graph: Option<GraphProto>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct GraphProto {
        #[prost(message, repeated, tag = "1")]
        pub node: Vec<NodeProto>,
        #[prost(string, tag = "2")]
        pub name: String,
        #[prost(message, repeated, tag = "5")]
        pub initializer: Vec<TensorProto>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NodeProto {
        #[prost(string, repeated, tag = "1")]
        pub input: Vec<String>,
        #[prost(string, repeated, tag = "2")]
        pub output: Vec<String>,
        #[prost(string, tag = "3")]
        pub name: String,
        #[prost(string, tag = "4")]
        pub op_type: String,
        #[prost(message, repeated, tag = "5")]
        pub attribute: Vec<AttributeProto>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct AttributeProto {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(float, tag = "2")]
        pub f: f32,
        #[prost(int64, tag = "3")]
        pub i: i64,
        #[prost(float, repeated, packed = "false", tag = "7")]
        pub floats: Vec<f32>,
        #[prost(int64, repeated, packed = "false", tag = "8")]
        pub ints: Vec<i64>,
        /// `AttributeProto.AttributeType`.
        #[prost(int32, tag = "20")]
        pub r#type: i32,
        #[prost(string, tag = "21")]
        pub ref_attr_name: String,
    }

    pub const ATTR_FLOAT: i32 = 1;
    pub const ATTR_INTS: i32 = 7;

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorProto {
        #[prost(int64, repeated, packed = "false", tag = "1")]
        pub dims: Vec<i64>,
        /// `TensorProto.DataType`.
        #[prost(int32, tag = "2")]
        pub data_type: i32,
        #[prost(message, optional, tag = "3")]
        pub segment: Option<Segment>,
        #[prost(float, repeated, tag = "4")]
        pub float_data: Vec<f32>,
        #[prost(int32, repeated, tag = "5")]
        pub int32_data: Vec<i32>,
        #[prost(int64, repeated, tag = "7")]
        pub int64_data: Vec<i64>,
        #[prost(string, tag = "8")]
        pub name: String,
        #[prost(bytes = "bytes", tag = "9")]
        pub raw_data: Bytes,
        #[prost(double, repeated, tag = "10")]
        pub double_data: Vec<f64>,
        #[prost(uint64, repeated, tag = "11")]
        pub uint64_data: Vec<u64>,
        #[prost(message, repeated, tag = "13")]
        pub external_data: Vec<StringStringEntryProto>,
        /// `TensorProto.DataLocation`: 0 DEFAULT, 1 EXTERNAL.
        #[prost(int32, tag = "14")]
        pub data_location: i32,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Segment {
        #[prost(int64, tag = "1")]
        pub begin: i64,
        #[prost(int64, tag = "2")]
        pub end: i64,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct StringStringEntryProto {
        #[prost(string, tag = "1")]
        pub key: String,
        #[prost(string, tag = "2")]
        pub value: String,
    }
}

use proto::{AttributeProto, GraphProto, NodeProto, TensorProto};

const CONV_OPS: [&str; 2] = ["Conv", "ConvTranspose"];

/// Converts `onnx` (with its voice config `onnx_json`) into `out_dir/model.safetensors` and
/// `out_dir/config.json` (a byte copy of `onnx_json`), creating `out_dir` if needed.
pub fn convert(onnx: &Path, onnx_json: &Path, out_dir: &Path) -> Result<(), ConvertError> {
    let bytes = std::fs::read(onnx).map_err(|e| ConvertError::io(onnx, e))?;
    let model = proto::ModelProto::decode(Bytes::from(bytes))
        .map_err(|e| ConvertError::format(onnx, format!("not a valid ONNX model (truncated or corrupt?): {e}")))?;
    let graph = model.graph.as_ref().ok_or_else(|| ConvertError::format(onnx, "not an ONNX model: it has no graph"))?;
    let bad = |msg: String| ConvertError::format(onnx, msg);

    let weights = name_weights(graph).map_err(bad)?;
    let arch = arch_json(graph).map_err(bad)?;
    let config = std::fs::read(onnx_json).map_err(|e| ConvertError::io(onnx_json, e))?;
    serde_json::from_slice::<serde_json::Value>(&config)
        .map_err(|e| ConvertError::format(onnx_json, format!("not valid JSON: {e}")))?;

    std::fs::create_dir_all(out_dir).map_err(|e| ConvertError::io(out_dir, e))?;
    let source = onnx.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let metadata = HashMap::from([("gerbil.piper".to_string(), arch), ("source".to_string(), source)]);
    // config.json first: a folder with model.safetensors is taken as complete.
    let config_path = out_dir.join("config.json");
    let part = config_path.with_extension("json.part");
    std::fs::write(&part, &config).map_err(|e| ConvertError::io(&part, e))?;
    std::fs::rename(&part, &config_path).map_err(|e| ConvertError::io(&config_path, e))?;
    write_safetensors(&out_dir.join("model.safetensors"), &weights, Some(metadata))
}

/// '/flow/flows.6/enc/in_layers.0/Conv' -> 'flow.flows.6.enc.in_layers.0'.
fn node_prefix(node_name: &str) -> String {
    let parts: Vec<&str> = node_name.split('/').filter(|p| !p.is_empty()).collect();
    parts[..parts.len().saturating_sub(1)].join(".")
}

/// Python's `str.isdigit()` for the names exporters give (`6549`).
fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

fn name_weights(graph: &GraphProto) -> Result<BTreeMap<String, Tensor>, String> {
    let inits: HashMap<&str, &TensorProto> = graph.initializer.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut out = BTreeMap::new();
    for t in &graph.initializer {
        if !t.name.starts_with('/') && !t.name.starts_with("onnx::") && !is_digits(&t.name) {
            out.insert(t.name.clone(), to_f32_tensor(t)?);
        }
    }
    // Anonymous ones, named from the consumer.
    for node in &graph.node {
        for (slot, inp) in node.input.iter().enumerate() {
            let Some(t) = inits.get(inp.as_str()).filter(|_| inp.starts_with("onnx::Conv_")) else { continue };
            if !CONV_OPS.contains(&node.op_type.as_str()) {
                return Err(format!("anonymous {inp} consumed by {} {}", node.op_type, node.name));
            }
            let name = node_prefix(&node.name) + if slot == 1 { ".weight" } else { ".bias" };
            if out.contains_key(&name) {
                return Err(format!("{inp}: {name} already present"));
            }
            out.insert(name, to_f32_tensor(t)?);
        }
    }
    // The text embedding is exported as `sid` (tracer naming); it is read by /enc_p/emb/Gather.
    let mut found_emb = false;
    for node in graph.node.iter().filter(|n| n.name == "/enc_p/emb/Gather") {
        let input = node.input.first().ok_or("node /enc_p/emb/Gather has no inputs")?;
        let t = out.remove(input).ok_or_else(|| {
            format!("the text embedding {input:?} read by /enc_p/emb/Gather is not a weight initializer")
        })?;
        out.insert("enc_p.emb.weight".to_string(), t);
        found_emb = true;
    }
    if !found_emb {
        // The Python converter goes on without it; the loader cannot.
        return Err("no node /enc_p/emb/Gather (the text embedding): not a Piper voice?".into());
    }
    // exp(logs) of dp.flows.0 (ElementwiseAffine), folded to a constant by the exporter.
    if let Some(t) = inits.get("/dp/flows.0/Exp_output_0") {
        let exp = to_f32_tensor(t)?;
        let logs: Vec<f32> = f32_values(&exp).map(|v| (v as f64).ln() as f32).collect();
        out.insert("dp.flows.0.logs".to_string(), Tensor::f32(exp.shape, &logs));
    }
    Ok(out)
}

fn f32_values(t: &Tensor) -> impl Iterator<Item = f32> + '_ {
    t.data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

/// `numpy_helper.to_array(t).astype(np.float32)`: the tensor as F32, whatever its stored type.
fn to_f32_tensor(t: &TensorProto) -> Result<Tensor, String> {
    let name = &t.name;
    if t.data_location == 1 || !t.external_data.is_empty() {
        let loc = t.external_data.iter().find(|e| e.key == "location").map(|e| e.value.as_str()).unwrap_or("?");
        return Err(format!(
            "tensor {name} is stored as external data ({loc}), which is not supported: \
             save the model with its weights inside the .onnx"
        ));
    }
    if t.segment.is_some() {
        return Err(format!("tensor {name} is segmented, which is not supported"));
    }
    let mut shape = Vec::with_capacity(t.dims.len());
    let mut n: usize = 1;
    for &d in &t.dims {
        let d = usize::try_from(d).map_err(|_| format!("tensor {name} has a negative dimension in {:?}", t.dims))?;
        n = n.checked_mul(d).ok_or_else(|| format!("tensor {name} has an impossible shape {:?}", t.dims))?;
        shape.push(d);
    }
    let raw = &t.raw_data;
    let (elem, stored): (usize, usize) = match t.data_type {
        1 => (4, t.float_data.len()),               // FLOAT
        2 | 3 | 9 => (1, t.int32_data.len()),       // UINT8 INT8 BOOL
        4 | 5 | 10 | 16 => (2, t.int32_data.len()), // UINT16 INT16 FLOAT16 BFLOAT16
        6 => (4, t.int32_data.len()),               // INT32
        7 => (8, t.int64_data.len()),               // INT64
        11 => (8, t.double_data.len()),             // DOUBLE
        12 => (4, t.uint64_data.len()),             // UINT32
        13 => (8, t.uint64_data.len()),             // UINT64
        other => return Err(format!("tensor {name} has data type {other}, which cannot be read as f32")),
    };
    let (len, unit, ok) = if raw.is_empty() {
        (stored, "values", stored == n)
    } else {
        (raw.len(), "bytes", n.checked_mul(elem) == Some(raw.len()))
    };
    if !ok {
        return Err(format!("tensor {name}: shape {:?} needs {n} values, the file holds {len} {unit}", t.dims));
    }
    if t.data_type == 1 && !raw.is_empty() {
        return Ok(Tensor { dtype: Dtype::F32, shape, data: raw.to_vec() });
    }
    let values: Vec<f32> = if raw.is_empty() {
        match t.data_type {
            1 => t.float_data.clone(),
            2 => t.int32_data.iter().map(|&v| v as u8 as f32).collect(),
            3 => t.int32_data.iter().map(|&v| v as i8 as f32).collect(),
            9 => t.int32_data.iter().map(|&v| if v != 0 { 1.0 } else { 0.0 }).collect(),
            4 => t.int32_data.iter().map(|&v| v as u16 as f32).collect(),
            5 => t.int32_data.iter().map(|&v| v as i16 as f32).collect(),
            10 => t.int32_data.iter().map(|&v| half::f16::from_bits(v as u16).to_f32()).collect(),
            16 => t.int32_data.iter().map(|&v| half::bf16::from_bits(v as u16).to_f32()).collect(),
            6 => t.int32_data.iter().map(|&v| v as f32).collect(),
            7 => t.int64_data.iter().map(|&v| v as f32).collect(),
            11 => t.double_data.iter().map(|&v| v as f32).collect(),
            12 => t.uint64_data.iter().map(|&v| v as u32 as f32).collect(),
            _ => t.uint64_data.iter().map(|&v| v as f32).collect(),
        }
    } else {
        let c = |i: usize| -> [u8; 8] {
            let mut b = [0u8; 8];
            b[..elem].copy_from_slice(&raw[i * elem..(i + 1) * elem]);
            b
        };
        (0..n)
            .map(|i| {
                let b = c(i);
                match t.data_type {
                    2 => b[0] as f32,
                    3 => b[0] as i8 as f32,
                    9 => (b[0] != 0) as u8 as f32,
                    4 => u16::from_le_bytes([b[0], b[1]]) as f32,
                    5 => i16::from_le_bytes([b[0], b[1]]) as f32,
                    10 => half::f16::from_le_bytes([b[0], b[1]]).to_f32(),
                    16 => half::bf16::from_le_bytes([b[0], b[1]]).to_f32(),
                    6 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
                    12 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
                    7 => i64::from_le_bytes(b) as f32,
                    11 => f64::from_le_bytes(b) as f32,
                    _ => u64::from_le_bytes(b) as f32,
                }
            })
            .collect()
    };
    Ok(Tensor::f32(shape, &values))
}

/// The attribute `name` of `node` (the last one, as a Python dict of them keeps).
fn attr<'a>(node: &'a NodeProto, name: &str) -> Result<&'a AttributeProto, String> {
    let a = node
        .attribute
        .iter()
        .rev()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("node {} ({}) has no attribute {name}", node.name, node.op_type))?;
    if !a.ref_attr_name.is_empty() {
        return Err(format!("node {}: attribute {name} is a reference", node.name));
    }
    Ok(a)
}

/// The first of the INTS attribute `name`.
fn first_int(node: &NodeProto, name: &str) -> Result<i64, String> {
    let a = attr(node, name)?;
    if a.r#type != proto::ATTR_INTS {
        return Err(format!("node {}: attribute {name} is of type {}, not INTS", node.name, a.r#type));
    }
    a.ints.first().copied().ok_or_else(|| format!("node {}: attribute {name} is empty", node.name))
}

/// The decimal number after `prefix` and what follows it: ("dec.ups.3", "dec.ups.") -> (3, "").
fn index_after<'a>(s: &'a str, prefix: &str) -> Option<(u64, &'a str)> {
    let rest = s.strip_prefix(prefix)?;
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let n = rest[..end].parse().ok()?;
    Some((n, &rest[end..]))
}

/// Decoder hyperparameters from node attributes, as the JSON string the Python converter writes.
fn arch_json(graph: &GraphProto) -> Result<String, String> {
    // node prefix -> node; a later node of the same prefix replaces an earlier one.
    let mut convs: HashMap<String, &NodeProto> = HashMap::new();
    for n in graph.node.iter().filter(|n| CONV_OPS.contains(&n.op_type.as_str())) {
        convs.insert(node_prefix(&n.name), n);
    }
    let mut ups: Vec<(u64, i64, i64, i64)> = Vec::new();
    let mut res: BTreeMap<u64, BTreeMap<u64, i64>> = BTreeMap::new();
    for (name, node) in &convs {
        if let Some((i, "")) = index_after(name, "dec.ups.") {
            ups.push((i, first_int(node, "strides")?, first_int(node, "kernel_shape")?, first_int(node, "pads")?));
        }
        if let Some((j, rest)) = index_after(name, "dec.resblocks.") {
            if let Some((i, "")) = index_after(rest, ".convs.") {
                res.entry(j).or_default().insert(i, first_int(node, "dilations")?);
            }
        }
    }
    ups.sort();
    if ups.is_empty() {
        return Err("no decoder upsampling convolutions (/dec/ups.N/ConvTranspose): not a Piper voice?".into());
    }
    let n_kernels = res.len() / ups.len();
    let mut dil = Vec::with_capacity(n_kernels);
    for j in 0..n_kernels as u64 {
        let r = res.get(&j).ok_or_else(|| format!("no decoder resblock {j} (/dec/resblocks.{j}/convs.N/Conv)"))?;
        dil.push(r.values().copied().collect::<Vec<i64>>());
    }
    let mut slopes: Vec<f64> = Vec::new();
    for n in graph.node.iter().filter(|n| n.op_type == "LeakyRelu" && n.name.starts_with("/dec/")) {
        let a = attr(n, "alpha")?;
        if a.r#type != proto::ATTR_FLOAT {
            return Err(format!("node {}: attribute alpha is of type {}, not FLOAT", n.name, a.r#type));
        }
        slopes.push(a.f as f64);
    }
    let (Some(&first), Some(&post)) = (slopes.first(), slopes.last()) else {
        return Err("no decoder LeakyRelu nodes (/dec/...): not a Piper voice?".into());
    };
    // min(slopes, key=lambda s: abs(s - 0.1)): the first of the closest.
    let lrelu = slopes.iter().copied().fold(first, |m, s| if (s - 0.1).abs() < (m - 0.1).abs() { s } else { m });

    let ints =
        |v: &mut dyn Iterator<Item = i64>| format!("[{}]", v.map(|x| x.to_string()).collect::<Vec<_>>().join(", "));
    let dil_s = format!("[{}]", dil.iter().map(|d| ints(&mut d.iter().copied())).collect::<Vec<_>>().join(", "));
    Ok(format!(
        "{{\"upsample_rates\": {}, \"upsample_kernels\": {}, \"upsample_pads\": {}, \"resblock_dilations\": {}, \
         \"lrelu_slope\": {}, \"post_lrelu_slope\": {}}}",
        ints(&mut ups.iter().map(|u| u.1)),
        ints(&mut ups.iter().map(|u| u.2)),
        ints(&mut ups.iter().map(|u| u.3)),
        dil_s,
        py_float(lrelu),
        py_float(post),
    ))
}

/// A float as Python's `json.dumps` writes it (`repr`: shortest round-trip digits, exponent
/// form below 1e-4 and from 1e16, `NaN`/`Infinity` for the non-finite).
fn py_float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e-5".
    let sci = format!("{:e}", v.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if v < 0.0 { "-" } else { "" };
    let decpt = exp + 1; // value = 0.DIGITS * 10^decpt
    if decpt <= -4 || decpt > 16 {
        let m = if digits.len() > 1 { format!("{}.{}", &digits[..1], &digits[1..]) } else { digits.clone() };
        let es = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{es}{:02}", exp.abs())
    } else if decpt <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt as usize >= digits.len() {
        format!("{sign}{digits}{}.0", "0".repeat(decpt as usize - digits.len()))
    } else {
        let (a, b) = digits.split_at(decpt as usize);
        format!("{sign}{a}.{b}")
    }
}

#[cfg(test)]
mod tests {
    use super::{node_prefix, py_float};

    #[test]
    fn floats_as_python_writes_them() {
        for (v, s) in [
            (0.1f32 as f64, "0.10000000149011612"),
            (0.01f32 as f64, "0.009999999776482582"),
            (0.2, "0.2"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (123.0, "123.0"),
            (0.0, "0.0"),
        ] {
            assert_eq!(py_float(v), s, "{v}");
        }
    }

    #[test]
    fn prefixes() {
        assert_eq!(node_prefix("/flow/flows.6/enc/in_layers.0/Conv"), "flow.flows.6.enc.in_layers.0");
        assert_eq!(node_prefix("Conv"), "");
        assert_eq!(node_prefix(""), "");
    }
}
