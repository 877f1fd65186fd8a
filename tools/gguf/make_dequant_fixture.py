#!/usr/bin/env python3
"""Writes the dequantization fixture used by src/gguf/tests (bit-exactness vs gguf-py).

Outputs (into src/gguf/testdata/ by default):
  dequant_fixture.gguf  one tensor per ggml type plus metadata of every GGUF
                        value type (used by the reader tests)
  dequant_expected.f32  gguf.quants.dequantize() of each tensor, raw
                        little-endian f32, concatenated in tensor order

Needs: pip install gguf numpy. Deterministic (fixed seed).
Types gguf-py can quantize (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, BF16, F16) go
through gguf.quants.quantize; for K-quants (which gguf-py cannot quantize)
random but valid block bytes are synthesized with finite f16 scales.
"""
import argparse
import os

import numpy as np
import gguf
from gguf import GGMLQuantizationType as T
from gguf.quants import quantize, dequantize

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "..", "src", "gguf", "testdata")


def f16_bytes(rng, n, lo=-0.05, hi=0.05):
    return rng.uniform(lo, hi, size=n).astype(np.float16).view(np.uint8).reshape(n, 2)


def k_blocks(rng, qtype, n_blocks):
    """Random valid K-quant blocks: uniform bytes, then sane f16 scales."""
    _, type_size = gguf.GGML_QUANT_SIZES[qtype]
    b = rng.integers(0, 256, size=(n_blocks, type_size), dtype=np.uint8)
    if qtype in (T.Q4_K, T.Q5_K):  # d, dmin at bytes 0..4
        b[:, 0:2] = f16_bytes(rng, n_blocks, 1e-4, 2e-3)
        b[:, 2:4] = f16_bytes(rng, n_blocks, -2e-3, 2e-3)
    elif qtype == T.Q6_K:  # d at the end
        b[:, -2:] = f16_bytes(rng, n_blocks)
    elif qtype == T.Q2_K:  # d, dmin at the end
        b[:, -4:-2] = f16_bytes(rng, n_blocks)
        b[:, -2:] = f16_bytes(rng, n_blocks)
    elif qtype == T.Q3_K:  # d at the end
        b[:, -2:] = f16_bytes(rng, n_blocks)
    else:
        raise ValueError(qtype)
    # a block with zero and negative-zero scales to exercise signed zeros
    b[0, :4] = np.frombuffer(np.array([0.0, -0.0], dtype=np.float16).tobytes(), dtype=np.uint8)
    return b


def special_f16():
    bits = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF,
            0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE01, 0x3C00, 0xBC00, 0x3555]
    return np.array(bits, dtype=np.uint16)


def special_bf16():
    bits = [0x0000, 0x8000, 0x0001, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0x3F80,
            0xBF80, 0x4049, 0x007F, 0x0080, 0x7F7F, 0xFF7F, 0x3E9A, 0xC2F7]
    return np.array(bits, dtype=np.uint16)


def build(rng):
    """Returns [(name, raw array for the writer, raw_dtype)]."""
    tensors = []
    rows, cols = 8, 256
    x = rng.standard_normal((rows, cols)).astype(np.float32) * 0.05
    # plant blocks whose max is positive / negative / all zero for Q4_0 signs
    x[0, :32] = 0.0
    x[1, :32] = np.abs(x[1, :32])
    x[2, :32] = -np.abs(x[2, :32])
    for qt in (T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0):
        tensors.append((qt.name.lower(), quantize(x, qt), qt))
    k_rows, k_cols = 4, 512
    for qt in (T.Q4_K, T.Q5_K, T.Q6_K, T.Q2_K, T.Q3_K):
        n_blocks = k_rows * k_cols // 256
        b = k_blocks(rng, qt, n_blocks).reshape(k_rows, -1)
        tensors.append((qt.name.lower(), b, qt))
    f16 = np.concatenate([special_f16(), rng.integers(0, 65536, size=512 - 16, dtype=np.uint16)])
    tensors.append(("f16", f16.view(np.float16).reshape(4, 128), T.F16))
    bf = np.concatenate([special_bf16(), rng.integers(0, 65536, size=512 - 16, dtype=np.uint16)])
    tensors.append(("bf16", bf.view(np.uint8).reshape(4, 256), T.BF16))
    f32 = rng.standard_normal(256).astype(np.float32)
    f32[:4] = [np.inf, -np.inf, 0.0, -0.0]
    tensors.append(("f32", f32.reshape(2, 2, 64), T.F32))
    # a 3-D quantized tensor: ne = [64, 3, 2]
    q3d = quantize(rng.standard_normal((2, 3, 64)).astype(np.float32), T.Q8_0)
    tensors.append(("q8_0_3d", q3d, T.Q8_0))
    return tensors


def add_metadata(w):
    V = gguf.GGUFValueType
    w.add_key_value("test.u8", 200, V.UINT8)
    w.add_key_value("test.i8", -100, V.INT8)
    w.add_key_value("test.u16", 60000, V.UINT16)
    w.add_key_value("test.i16", -30000, V.INT16)
    w.add_key_value("test.u32", 4000000000, V.UINT32)
    w.add_key_value("test.i32", -2000000000, V.INT32)
    w.add_key_value("test.f32", 1.5, V.FLOAT32)
    w.add_key_value("test.bool", True, V.BOOL)
    w.add_key_value("test.str", "héllo ▁ wörld", V.STRING)
    w.add_key_value("test.u64", 2**63 + 5, V.UINT64)
    w.add_key_value("test.i64", -(2**62), V.INT64)
    w.add_key_value("test.f64", 0.1, V.FLOAT64)
    w.add_key_value("test.str_arr", ["a", "", "ü<0x0A>", "▁x y"], V.ARRAY)
    w.add_key_value("test.i32_arr", [1, -2, 3], V.ARRAY, sub_type=V.INT32)
    w.add_key_value("test.f32_arr", [0.5, -1.25], V.ARRAY, sub_type=V.FLOAT32)
    w.add_key_value("test.nested", [[1, 2], [3]], V.ARRAY)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(20240607)
    tensors = build(rng)
    path = os.path.join(args.out, "dequant_fixture.gguf")
    w = gguf.GGUFWriter(path, arch="llama")
    add_metadata(w)
    expected = []
    for name, arr, qt in tensors:
        if qt in (T.F16, T.F32):
            w.add_tensor(name, arr)
        else:
            w.add_tensor(name, arr, raw_dtype=qt)
        deq = dequantize(arr.view(np.uint8), qt)
        expected.append(np.ascontiguousarray(deq, dtype=np.float32).reshape(-1))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    exp = np.concatenate(expected).astype("<f4")
    exp.tofile(os.path.join(args.out, "dequant_expected.f32"))
    # sanity: gguf-py reads back the same bytes
    r = gguf.GGUFReader(path)
    for (name, arr, qt), t in zip(tensors, r.tensors):
        assert t.name == name and int(t.tensor_type) == int(qt), (t.name, name)
        assert bytes(np.asarray(t.data).view(np.uint8).tobytes()) == arr.view(np.uint8).tobytes(), name
    print(f"wrote {path} ({os.path.getsize(path)} bytes) and dequant_expected.f32 ({exp.nbytes} bytes)")


if __name__ == "__main__":
    main()
