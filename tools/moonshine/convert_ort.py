#!/usr/bin/env python3
"""Converts Moonshine from moonshine-cpp's ORT-format models to the HF layout.

    convert_ort.py MODEL_DIR TOKENIZER_JSON OUT_DIR

MODEL_DIR holds moonshine-cpp's models/<name>/encoder_model.ort and
decoder_model_merged.ort (optimum's merged decoder: an If node whose two
branches, with and without a KV cache, share the weights). OUT_DIR gets
model.safetensors with transformers `MoonshineForConditionalGeneration`
tensor names, config.json (model_type "moonshine") and tokenizer.json.

Needs numpy and the `onnxruntime` package only (its flatbuffer reader for the
ORT format, onnxruntime.tools.ort_format_model; no torch), so CI can run it.

The weights are int8 with one scale and one float offset per tensor; the
graph dequantizes them as Cast(q) * scale + offset (checked node by node
here), which is what is computed. Anonymous MatMul weights (onnx::MatMul_NNN)
are named from the node that consumes them (/model/decoder/layers.3/mlp/
up_proj/MatMul -> model.decoder.layers.3.mlp.fc1.weight); ONNX MatMul weights
are [in, out], so they are transposed to torch's [out, in]. The decoder MLP's
up_proj holds fc1 whole: the graph takes silu(second half) * first half, as
transformers' chunk(2) does (checked on the Slice bounds).
"""

import json
import os
import re
import shutil
import struct
import sys

import numpy as np
import onnxruntime.tools.ort_format_model  # noqa: F401  (puts ort_flatbuffers_py on sys.path)
from ort_flatbuffers_py.fbs import InferenceSession

# onnx TensorProto data types
DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64, 10: np.float16, 11: np.float64}


class Graph:
    """Nodes and initializers of an ORT graph and all its subgraphs, flattened."""

    def __init__(self, path):
        buf = open(path, "rb").read()
        g = InferenceSession.InferenceSession.GetRootAsInferenceSession(buf, 0).Model().Graph()
        self.inits, self.nodes = {}, []
        self._walk(g)
        self.by_output = {}
        for n in self.nodes:
            for o in n["outputs"]:
                self.by_output[o] = n

    def _walk(self, g):
        for i in range(g.InitializersLength()):
            t = g.Initializers(i)
            dims = [t.Dims(j) for j in range(t.DimsLength())]
            dt = DTYPES.get(t.DataType())
            if dt is None:
                continue
            raw = t.RawDataAsNumpy()
            arr = np.frombuffer(raw.tobytes() if not isinstance(raw, int) else b"", dtype=dt).reshape(dims)
            self.inits[t.Name().decode()] = arr
        for i in range(g.NodesLength()):
            n = g.Nodes(i)
            attrs = {}
            for a in range(n.AttributesLength()):
                at = n.Attributes(a)
                if at.G() is not None:
                    self._walk(at.G())
                else:
                    attrs[at.Name().decode()] = (at.F(), at.I(), at.IntsAsNumpy())
            self.nodes.append(
                {
                    "name": n.Name().decode(),
                    "op": n.OpType().decode(),
                    "inputs": [n.Inputs(j).decode() for j in range(n.InputsLength())],
                    "outputs": [n.Outputs(j).decode() for j in range(n.OutputsLength())],
                    "attrs": attrs,
                }
            )

    def producer(self, name, op):
        n = self.by_output.get(name)
        if n is None or n["op"] != op:
            raise SystemExit(f"{name}: expected a {op} node to produce it, found {n and n['op']}")
        return n

    def value(self, name):
        """A tensor: an initializer, or an int8 one dequantized as its graph does."""
        if name in self.inits:
            return self.inits[name].astype(np.float32)
        add = self.producer(name, "Add")
        mul = self.producer(add["inputs"][0], "Mul")
        cast = self.producer(mul["inputs"][0], "Cast")
        q = self.inits[cast["inputs"][0]]
        scale = self.inits[mul["inputs"][1]]
        offset = self.inits[add["inputs"][1]]
        if q.dtype != np.int8 or scale.size != 1 or offset.size != 1 or offset.dtype != np.float32:
            raise SystemExit(f"{name}: unexpected quantization {q.dtype} scale {scale.shape} offset {offset.dtype}")
        return q.astype(np.float32) * scale.reshape(()) + offset.reshape(())

    def const(self, name):
        return self.inits[name]


def hf_name(prefix, node_name):
    """'/model/decoder/layers.3/self_attn/dense/MatMul' -> 'model.decoder.layers.3.self_attn.o_proj'."""
    parts = [p for p in node_name.split("/") if p][:-1]
    s = ".".join(parts)
    if not s.startswith("model."):
        s = prefix + s
    s = s.replace(".dense", ".o_proj").replace("mlp.up_proj", "mlp.fc1").replace("mlp.down_proj", "mlp.fc2")
    return s


def matmul_weights(g, prefix, out):
    for n in g.nodes:
        if n["op"] != "MatMul" or not re.search(r"layers\.\d+/.*(proj|dense|fc\d)/MatMul$", n["name"]):
            continue
        name = hf_name(prefix, n["name"]) + ".weight"
        w = np.ascontiguousarray(g.value(n["inputs"][1]).T)
        if name in out and not np.array_equal(out[name], w):
            raise SystemExit(f"{name}: the If branches disagree")
        out[name] = w


def check_layer_norms(g):
    """LayerNorms are exported as ReduceMean/Sub/Pow/Add(eps)/Sqrt/Div/Mul(weight), no bias."""
    eps = set()
    for n in g.nodes:
        if n["op"] == "Add" and re.search(r"(layernorm|layer_norm|/norm)/Add$", n["name"]):
            eps.add(float(g.const(n["inputs"][1]).reshape(())))
    return eps


def convert_encoder(g, out):
    for c in ("conv1", "conv2", "conv3"):
        conv = next(n for n in g.nodes if n["name"] == f"/{c}/Conv")
        out[f"model.encoder.{c}.weight"] = g.value(conv["inputs"][1])
        if len(conv["inputs"]) > 2:
            out[f"model.encoder.{c}.bias"] = g.value(conv["inputs"][2])
    inorm = next(n for n in g.nodes if n["name"] == "/groupnorm/InstanceNormalization")
    # GroupNorm(1) is exported as an instance norm over one channel (scale 1, bias 0) then the affine.
    assert np.all(g.const(inorm["inputs"][1]) == 1) and np.all(g.const(inorm["inputs"][2]) == 0)
    gn_eps = inorm["attrs"]["epsilon"][0]
    assert abs(gn_eps - 1e-5) < 1e-9, gn_eps
    mul = next(n for n in g.nodes if n["name"] == "/groupnorm/Mul")
    add = next(n for n in g.nodes if n["name"] == "/groupnorm/Add")
    out["model.encoder.groupnorm.weight"] = g.value(mul["inputs"][1]).reshape(-1)
    out["model.encoder.groupnorm.bias"] = g.value(add["inputs"][1]).reshape(-1)
    for k, v in g.inits.items():
        if re.fullmatch(r"(layers\.\d+\.[\w.]+|layer_norm\.weight)", k) and v.dtype == np.float32:
            out["model.encoder." + k] = v.astype(np.float32)
    matmul_weights(g, "model.encoder.", out)


def convert_decoder(g, out):
    gather = next(n for n in g.nodes if n["name"] == "/model/decoder/embed_tokens/Gather")
    out["model.decoder.embed_tokens.weight"] = g.value(gather["inputs"][0])
    for k, v in g.inits.items():
        m = re.fullmatch(r"(model\.decoder\.[\w.]+?)_merged_0", k)
        if m and v.dtype == np.float32:
            out[m.group(1).replace("mlp.up_proj", "mlp.fc1").replace("mlp.down_proj", "mlp.fc2")] = v
    matmul_weights(g, "", out)
    # silu(x[..., F:]) * x[..., :F]: the activation reads the slice that starts at F.
    for n in g.nodes:
        if re.fullmatch(r"/model/decoder/layers\.0/mlp/act_fn/Sigmoid", n["name"]):
            sl = g.producer(n["inputs"][0], "Slice")
            start = g.const(sl["inputs"][1]).reshape(-1)[0]
            f = out["model.decoder.layers.0.mlp.fc2.weight"].shape[1]
            if start != f:
                raise SystemExit(f"decoder MLP: the gate slice starts at {start}, expected {f}")


def rotary(g, name):
    return g.const(name).reshape(-1).astype(np.float64)


def save_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for k in sorted(tensors):
        a = np.ascontiguousarray(tensors[k], dtype=np.float32)
        b = a.tobytes()
        header[k] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    src, tok, dst = sys.argv[1:]
    enc = Graph(os.path.join(src, "encoder_model.ort"))
    dec = Graph(os.path.join(src, "decoder_model_merged.ort"))
    out = {}
    convert_encoder(enc, out)
    convert_decoder(dec, out)

    d = out["model.encoder.conv1.weight"].shape[0]
    ffn = out["model.encoder.layers.0.mlp.fc1.weight"].shape[0]
    n_enc = len({k.split(".")[3] for k in out if k.startswith("model.encoder.layers.")})
    n_dec = len({k.split(".")[3] for k in out if k.startswith("model.decoder.layers.")})
    vocab = out["model.decoder.embed_tokens.weight"].shape[0]
    # Heads are not visible in tensor shapes; the published sizes (tiny: 288/8 heads,
    # base: 416/8 heads) are checked against the rotary frequencies the graph stores.
    heads = 8
    head_dim = d // heads
    factor, theta = 0.62, 10000.0
    dim = int(head_dim * factor)
    want = 1.0 / theta ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    for g, name in ((enc, "/rotary_emb/Cast_1_output_0"), (dec, "/model/decoder/rotary_emb/Cast_1_output_0")):
        got = rotary(g, name)
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5):
            raise SystemExit(f"{name}: rotary frequencies do not match {heads} heads, factor {factor}")
    eps = check_layer_norms(enc) | check_layer_norms(dec)
    if any(abs(e - 1e-5) > 1e-9 for e in eps):
        raise SystemExit(f"layer norm eps {eps}, expected 1e-5")

    expected = 5 + 2 + 1 + n_enc * 10 + 2 + n_dec * 15
    if len(out) != expected:
        raise SystemExit(f"{len(out)} tensors, expected {expected}: {sorted(out)}")
    cfg = {
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
        "attention_bias": False,
        "tie_word_embeddings": True,
        "torch_dtype": "float32",
        "gerbil_source": "moonshine-cpp ORT int8 models, dequantized by tools/moonshine/convert_ort.py",
    }
    os.makedirs(dst, exist_ok=True)
    save_safetensors(os.path.join(dst, "model.safetensors"), out)
    with open(os.path.join(dst, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    shutil.copyfile(tok, os.path.join(dst, "tokenizer.json"))
    print(f"{dst}: {len(out)} tensors, d={d} ffn={ffn} layers={n_enc}/{n_dec} vocab={vocab}")


if __name__ == "__main__":
    main()
