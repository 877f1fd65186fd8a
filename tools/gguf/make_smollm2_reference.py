#!/usr/bin/env python3
"""Writes src/gguf/testdata/smollm2_expected.json: gguf-py dequantization
fingerprints for a few tensors of SmolLM2-135M-Instruct.Q4_1.gguf (fetched by
tools/gguf/fetch_test_assets.sh), so the Rust tests can check bit-exactness
on a real model without committing its data.

Fingerprint = FNV-1a 64 over the little-endian f32 bytes of
gguf.quants.dequantize(tensor), plus the first 8 values as u32 bit patterns.
"""
import json
import os
import sys

import numpy as np
import gguf
from gguf.quants import dequantize

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "src", "gguf", "testdata", "smollm2_expected.json")
TENSORS = [
    "token_embd.weight",
    "blk.0.attn_q.weight",
    "blk.0.attn_k.weight",
    "blk.0.ffn_down.weight",
    "blk.29.ffn_gate.weight",
    "blk.0.attn_norm.weight",
    "output_norm.weight",
]

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3


def fnv1a64(data: bytes) -> int:
    # vectorised over 8 interleaved lanes would change the result; keep it
    # sequential but process via numpy-free python in chunks for speed
    h = FNV_OFFSET
    for b in data:
        h ^= b
        h = (h * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    assets = os.environ.get("GERBIL_TEST_ASSETS", os.path.expanduser("~/.cache/gerbil-test-assets"))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(assets, "smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")
    r = gguf.GGUFReader(path)
    by_name = {t.name: t for t in r.tensors}
    out = {}
    for name in TENSORS:
        t = by_name[name]
        deq = np.ascontiguousarray(dequantize(t.data, t.tensor_type), dtype="<f4")
        raw = deq.tobytes()
        out[name] = {
            "type": t.tensor_type.name,
            "ne": [int(x) for x in t.shape],
            "n_elements": int(deq.size),
            "fnv1a64": f"{fnv1a64(raw):016x}",
            "first_bits": [int(x) for x in deq.reshape(-1)[:8].view(np.uint32)],
        }
        print(name, out[name]["type"], out[name]["ne"], out[name]["fnv1a64"], flush=True)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
