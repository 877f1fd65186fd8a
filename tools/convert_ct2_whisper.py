#!/usr/bin/env python3
"""Convert a CTranslate2 Whisper model (model.bin + config.json + tokenizer.json)
into the Hugging Face layout gerbil loads: model.safetensors with transformers
`WhisperForConditionalGeneration` tensor names, config.json,
generation_config.json, preprocessor_config.json, tokenizer.json.

numpy only (CI has no torch): the model.bin format is parsed here.

    python3 tools/convert_ct2_whisper.py <ct2 model dir> <output dir>

model.bin (CTranslate2 binary version 6; see python/ctranslate2/specs/model_spec.py,
ModelSpec._serialize): u32 version, string spec name, u32 revision, u32 count,
then per variable: string name, u8 rank, u32 dims[rank], u8 dtype (0 f32, 1 i8,
2 i16, 3 i32, 4 f16, 5 bf16), u32 byte count, raw data; then u32 alias count and
(alias, target) string pairs. Strings are u16 length (incl. NUL) + bytes + NUL.

Whisper layout: self-attention linear_0 is q/k/v fused as [3D, D] (its k bias
is an added zero), cross-attention linear_0 is q and linear_1 is k/v fused as
[2D, D]; ffn linear_0/1 are fc1/fc2; layer norms are gamma/beta.
"""

import json
import os
import re
import shutil
import struct
import sys

import numpy as np

DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


def read_ct2(path):
    buf = open(path, "rb").read()
    pos = 0

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from("<" + fmt, buf, pos)
        pos += struct.calcsize("<" + fmt)
        return v[0]

    def string():
        nonlocal pos
        n = take("H")
        s = buf[pos : pos + n - 1].decode("utf-8")
        pos += n
        return s

    version = take("I")
    if version < 5:
        raise SystemExit(f"{path}: CTranslate2 binary version {version} is not supported (>= 5)")
    spec = string()
    take("I")  # revision
    out = {}
    for _ in range(take("I")):
        name = string()
        rank = take("B")
        dims = [take("I") for _ in range(rank)]
        dtype = take("B")
        nbytes = take("I")
        if dtype not in DTYPES:
            raise SystemExit(f"{name}: unsupported dtype id {dtype}")
        arr = np.frombuffer(buf, dtype=DTYPES[dtype], count=nbytes // np.dtype(DTYPES[dtype]).itemsize, offset=pos)
        out[name] = arr.reshape(dims)
        pos += nbytes
    for _ in range(take("I")):
        alias, target = string(), string()
        out[alias] = out[target]
    if pos != len(buf):
        raise SystemExit(f"{path}: {len(buf) - pos} trailing bytes")
    return spec, out


def write_safetensors(path, tensors):
    """Minimal safetensors writer (header JSON + little-endian raw data)."""
    codes = {np.float16: "F16", np.float32: "F32"}
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name])
        b = a.tobytes()
        header[name] = {"dtype": codes[a.dtype.type], "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def convert(src, dst):
    spec, v = read_ct2(os.path.join(src, "model.bin"))
    if spec != "WhisperSpec":
        raise SystemExit(f"not a Whisper model: {spec}")
    ct2cfg = json.load(open(os.path.join(src, "config.json")))
    for flag in ("decoder/scale_embeddings",):
        if flag in v and int(v[flag]) != 0:
            raise SystemExit(f"{flag} is set: unsupported")
    d = v["encoder/conv1/weight"].shape[0]
    n_mels = v["encoder/conv1/weight"].shape[1]
    def count(side):
        return len({k.split("/")[1] for k in v if re.match(side + r"/layer_\d+/", k)})

    enc_layers, dec_layers = count("encoder"), count("decoder")
    vocab = v["decoder/embeddings/weight"].shape[0]
    t = {}

    def ln(dst_name, src_name):
        t[f"{dst_name}.weight"] = v[f"{src_name}/gamma"]
        t[f"{dst_name}.bias"] = v[f"{src_name}/beta"]

    def lin(dst_name, src_name, bias=True):
        t[f"{dst_name}.weight"] = v[f"{src_name}/weight"]
        if bias:
            t[f"{dst_name}.bias"] = v[f"{src_name}/bias"]

    def split(prefix, src_name, names):
        w, b = v[f"{src_name}/weight"], v[f"{src_name}/bias"]
        for i, n in enumerate(names):
            t[f"{prefix}.{n}.weight"] = w[i * d : (i + 1) * d]
            bi = b[i * d : (i + 1) * d]
            if n == "k_proj":
                # Whisper's key projection has no bias; CTranslate2 stores a zero.
                if np.any(bi != 0):
                    raise SystemExit(f"{src_name}: non-zero key bias")
            else:
                t[f"{prefix}.{n}.bias"] = bi

    e = "model.encoder"
    for c in ("conv1", "conv2"):
        lin(f"{e}.{c}", f"encoder/{c}")
    t[f"{e}.embed_positions.weight"] = v["encoder/position_encodings/encodings"]
    for i in range(enc_layers):
        p, s = f"{e}.layers.{i}", f"encoder/layer_{i}"
        ln(f"{p}.self_attn_layer_norm", f"{s}/self_attention/layer_norm")
        split(f"{p}.self_attn", f"{s}/self_attention/linear_0", ["q_proj", "k_proj", "v_proj"])
        lin(f"{p}.self_attn.out_proj", f"{s}/self_attention/linear_1")
        ln(f"{p}.final_layer_norm", f"{s}/ffn/layer_norm")
        lin(f"{p}.fc1", f"{s}/ffn/linear_0")
        lin(f"{p}.fc2", f"{s}/ffn/linear_1")
    ln(f"{e}.layer_norm", "encoder/layer_norm")
    dd = "model.decoder"
    t[f"{dd}.embed_tokens.weight"] = v["decoder/embeddings/weight"]
    t[f"{dd}.embed_positions.weight"] = v["decoder/position_encodings/encodings"]
    for i in range(dec_layers):
        p, s = f"{dd}.layers.{i}", f"decoder/layer_{i}"
        ln(f"{p}.self_attn_layer_norm", f"{s}/self_attention/layer_norm")
        split(f"{p}.self_attn", f"{s}/self_attention/linear_0", ["q_proj", "k_proj", "v_proj"])
        lin(f"{p}.self_attn.out_proj", f"{s}/self_attention/linear_1")
        ln(f"{p}.encoder_attn_layer_norm", f"{s}/attention/layer_norm")
        lin(f"{p}.encoder_attn.q_proj", f"{s}/attention/linear_0")
        split(f"{p}.encoder_attn", f"{s}/attention/linear_1", ["k_proj", "v_proj"])
        lin(f"{p}.encoder_attn.out_proj", f"{s}/attention/linear_2")
        ln(f"{p}.final_layer_norm", f"{s}/ffn/layer_norm")
        lin(f"{p}.fc1", f"{s}/ffn/linear_0")
        lin(f"{p}.fc2", f"{s}/ffn/linear_1")
    ln(f"{dd}.layer_norm", "decoder/layer_norm")
    if "decoder/projection/weight" in v and not np.array_equal(
        v["decoder/projection/weight"], v["decoder/embeddings/weight"]
    ):
        t["proj_out.weight"] = v["decoder/projection/weight"]

    os.makedirs(dst, exist_ok=True)
    write_safetensors(os.path.join(dst, "model.safetensors"), t)
    tok = json.load(open(os.path.join(src, "tokenizer.json")))
    ids = {a["content"]: a["id"] for a in tok["added_tokens"]}
    multilingual = vocab >= 51865
    heads = int(v["encoder/num_heads"])
    cfg = {
        "architectures": ["WhisperForConditionalGeneration"],
        "model_type": "whisper",
        "d_model": d,
        "encoder_layers": enc_layers,
        "decoder_layers": dec_layers,
        "encoder_attention_heads": heads,
        "decoder_attention_heads": int(v["decoder/num_heads"]),
        "encoder_ffn_dim": v["encoder/layer_0/ffn/linear_0/weight"].shape[0],
        "decoder_ffn_dim": v["decoder/layer_0/ffn/linear_0/weight"].shape[0],
        "vocab_size": vocab,
        "num_mel_bins": n_mels,
        "max_source_positions": v["encoder/position_encodings/encodings"].shape[0],
        "max_target_positions": v["decoder/position_encodings/encodings"].shape[0],
        "decoder_start_token_id": ids["<|startoftranscript|>"],
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": ids["<|endoftext|>"],
        "pad_token_id": ids["<|endoftext|>"],
        "activation_function": "gelu",
        "scale_embedding": False,
        "tie_word_embeddings": "proj_out.weight" not in t,
        "suppress_tokens": ct2cfg.get("suppress_ids", []),
        "begin_suppress_tokens": ct2cfg.get("suppress_ids_begin", []),
        "torch_dtype": "float16",
    }
    json.dump(cfg, open(os.path.join(dst, "config.json"), "w"), indent=1)
    gen = {
        "decoder_start_token_id": cfg["decoder_start_token_id"],
        "eos_token_id": cfg["eos_token_id"],
        "no_timestamps_token_id": ids["<|notimestamps|>"],
        "is_multilingual": multilingual,
        "max_initial_timestamp_index": 50,
        "suppress_tokens": cfg["suppress_tokens"],
        "begin_suppress_tokens": cfg["begin_suppress_tokens"],
        "alignment_heads": ct2cfg.get("alignment_heads", []),
    }
    if multilingual:
        gen["lang_to_id"] = {k: i for k, i in ids.items() if i in set(ct2cfg.get("lang_ids", []))}
    json.dump(gen, open(os.path.join(dst, "generation_config.json"), "w"), indent=1)
    pre = {
        "feature_extractor_type": "WhisperFeatureExtractor",
        "feature_size": n_mels,
        "hop_length": 160,
        "n_fft": 400,
        "chunk_length": 30,
        "n_samples": 480000,
        "nb_max_frames": 3000,
        "sampling_rate": 16000,
        "padding_value": 0.0,
    }
    json.dump(pre, open(os.path.join(dst, "preprocessor_config.json"), "w"), indent=1)
    shutil.copy(os.path.join(src, "tokenizer.json"), os.path.join(dst, "tokenizer.json"))
    print(f"{dst}: {len(t)} tensors, d_model {d}, {enc_layers}+{dec_layers} layers, vocab {vocab}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    convert(sys.argv[1], sys.argv[2])
