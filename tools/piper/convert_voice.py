#!/usr/bin/env python3
"""Converts a Piper voice (.onnx + .onnx.json) to model.safetensors + config.json.

Needs only numpy and the `onnx` package (no torch), so CI can run it.

Every weight initializer is written under its PyTorch name. Initializers the exporter left
anonymous (`onnx::Conv_8168`, ...) are named from the node that consumes them: the node
`/flow/flows.6/enc/in_layers.0/Conv` reads its weight as input 1, so the tensor becomes
`flow.flows.6.enc.in_layers.0.weight`. Weight norm is already folded by the exporter.
Constants of the traced graph (`/enc_p/Constant_output_0`, ...) are skipped, except the
ones that carry weights (`/dp/flows.0/Exp_output_0` = exp(logs) of the affine flow).

The architecture numbers the Rust loader needs but that are not visible from tensor
shapes (decoder dilations, upsample strides and paddings, leaky-relu slopes) are read from
the graph's node attributes and stored in the safetensors metadata under "gerbil.piper".

usage: convert_voice.py VOICE.onnx OUT_DIR
"""

import json
import os
import re
import shutil
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

CONV_OPS = ("Conv", "ConvTranspose")


def node_prefix(node_name: str) -> str:
    """'/flow/flows.6/enc/in_layers.0/Conv' -> 'flow.flows.6.enc.in_layers.0'."""
    parts = [p for p in node_name.split("/") if p]
    return ".".join(parts[:-1])


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def name_weights(graph):
    inits = {t.name: t for t in graph.initializer}
    out = {}
    for t in graph.initializer:
        if not t.name.startswith(("/", "onnx::")) and not t.name.isdigit():
            out[t.name] = numpy_helper.to_array(t)
    # Anonymous ones, named from the consumer.
    for node in graph.node:
        for slot, inp in enumerate(node.input):
            if not inp.startswith("onnx::Conv_") or inp not in inits:
                continue
            if node.op_type not in CONV_OPS:
                raise SystemExit(f"anonymous {inp} consumed by {node.op_type} {node.name}")
            name = node_prefix(node.name) + (".weight" if slot == 1 else ".bias")
            if name in out:
                raise SystemExit(f"{inp}: {name} already present")
            out[name] = numpy_helper.to_array(inits[inp])
    # The text embedding is exported as `sid` (tracer naming); it is read by /enc_p/emb/Gather.
    for node in graph.node:
        if node.name == "/enc_p/emb/Gather":
            out["enc_p.emb.weight"] = out.pop(node.input[0])
    # exp(logs) of dp.flows.0 (ElementwiseAffine), folded to a constant by the exporter.
    for key in ("/dp/flows.0/Exp_output_0",):
        if key in inits:
            out["dp.flows.0.logs"] = np.log(numpy_helper.to_array(inits[key]))
    return out


def arch(graph):
    """Decoder and attention hyperparameters from node attributes."""
    convs = {node_prefix(n.name): attrs(n) for n in graph.node if n.op_type in CONV_OPS}
    ups, res = [], {}
    for name, a in convs.items():
        m = re.fullmatch(r"dec\.ups\.(\d+)", name)
        if m:
            ups.append((int(m.group(1)), a["strides"][0], a["kernel_shape"][0], a["pads"][0]))
        m = re.fullmatch(r"dec\.resblocks\.(\d+)\.convs\.(\d+)", name)
        if m:
            res.setdefault(int(m.group(1)), {})[int(m.group(2))] = a["dilations"][0]
    ups.sort()
    n_kernels = len(res) // len(ups)
    dil = [[res[j][i] for i in sorted(res[j])] for j in range(n_kernels)]
    slopes = [attrs(n)["alpha"] for n in graph.node if n.op_type == "LeakyRelu" and n.name.startswith("/dec/")]
    return {
        "upsample_rates": [u[1] for u in ups],
        "upsample_kernels": [u[2] for u in ups],
        "upsample_pads": [u[3] for u in ups],
        "resblock_dilations": dil,
        "lrelu_slope": min(slopes, key=lambda s: abs(s - 0.1)),
        "post_lrelu_slope": slopes[-1],
    }


def write_safetensors(path, tensors, metadata):
    header = {"__metadata__": metadata}
    offset = 0
    blobs = []
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype=np.float32)
        b = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def main():
    onnx_path, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    model = onnx.load(onnx_path)
    weights = name_weights(model.graph)
    meta = {"gerbil.piper": json.dumps(arch(model.graph)), "source": os.path.basename(onnx_path)}
    write_safetensors(os.path.join(out_dir, "model.safetensors"), weights, meta)
    shutil.copyfile(onnx_path + ".json", os.path.join(out_dir, "config.json"))
    print(f"{len(weights)} tensors -> {out_dir}; arch {meta['gerbil.piper']}")


if __name__ == "__main__":
    main()
