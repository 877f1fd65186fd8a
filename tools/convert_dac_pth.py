#!/usr/bin/env python3
"""Convert a descript-audio-codec checkpoint (`weights*.pth`, e.g. ibm-research/DAC.speech.v1.0's
weights_24khz_1.5kbps_v1.0.pth that OuteTTS 1.0 decodes with) to the transformers `dac` layout gerbil
loads (config.json + model.safetensors). Decoder and quantizer only; weight norm stays as
weight_g / weight_v (gerbil folds it at load). Needs torch (to read the pickle) and safetensors.

    python tools/convert_dac_pth.py weights_24khz_1.5kbps_v1.0.pth out/dac
    python tools/convert_dac_pth.py --self-test tests/fixtures/outetts/dac

The renaming mirrors transformers' convert_dac_checkpoint.py: decoder.model.0 -> decoder.conv1,
decoder.model.k (k = 1..n) -> decoder.block.{k-1} (block.0 snake1, block.1 conv_t1, block.2..4
res_unit1..3 each with block.0 snake1, block.1 conv1, block.2 snake2, block.3 conv2),
decoder.model.{n+1} -> decoder.snake1, decoder.model.{n+2} -> decoder.conv2.
"""

import argparse
import json
import os
import re
import sys
import tempfile


def rename(name, n_blocks):
    if name.startswith("quantizer.") and ".in_proj." not in name:
        return name
    m = re.match(r"decoder\.model\.(\d+)\.(.*)", name)
    if not m:
        return None  # encoder, in_proj: not needed to decode
    k, rest = int(m.group(1)), m.group(2)
    if k == 0:
        return f"decoder.conv1.{rest}"
    if k == n_blocks + 1:
        return f"decoder.snake1.{rest}"
    if k == n_blocks + 2:
        return f"decoder.conv2.{rest}"
    b = f"decoder.block.{k - 1}"
    m = re.match(r"block\.(\d+)\.(.*)", rest)
    i, rest = int(m.group(1)), m.group(2)
    if i == 0:
        return f"{b}.snake1.{rest}"
    if i == 1:
        return f"{b}.conv_t1.{rest}"
    m = re.match(r"block\.(\d+)\.(.*)", rest)
    j, rest = int(m.group(1)), m.group(2)
    part = ["snake1", "conv1", "snake2", "conv2"][j]
    return f"{b}.res_unit{i - 1}.{part}.{rest}"


def convert(state, kwargs, out):
    import safetensors.torch

    rates = list(kwargs["decoder_rates"])
    tensors = {}
    for name, t in state.items():
        new = rename(name, len(rates))
        if new is not None:
            tensors[new] = t.detach().float().contiguous()
    os.makedirs(out, exist_ok=True)
    safetensors.torch.save_file(tensors, os.path.join(out, "model.safetensors"))
    enc_rates = list(kwargs.get("encoder_rates", rates[::-1]))
    cfg = {
        "model_type": "dac",
        "encoder_hidden_size": kwargs.get("encoder_dim", 64),
        "downsampling_ratios": enc_rates,
        "upsampling_ratios": rates,
        "decoder_hidden_size": kwargs["decoder_dim"],
        "n_codebooks": kwargs["n_codebooks"],
        "codebook_size": kwargs["codebook_size"],
        "codebook_dim": kwargs["codebook_dim"],
        "sampling_rate": kwargs["sample_rate"],
    }
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    return tensors


def self_test(fixture):
    """Renames the transformers fixture back to descript names, converts, and checks the round trip."""
    import safetensors.torch

    hf = safetensors.torch.load_file(os.path.join(fixture, "model.safetensors"))
    cfg = json.load(open(os.path.join(fixture, "config.json")))
    n = len(cfg["upsampling_ratios"])
    inverse = {}

    def add(name):
        try:
            inverse[rename(name, n)] = name
        except (AttributeError, IndexError):  # not a name the descript decoder has
            pass

    for k in range(n + 3):
        for leaf in ("alpha", "bias", "weight_g", "weight_v"):
            add(f"decoder.model.{k}.{leaf}")
            for i in range(5):
                add(f"decoder.model.{k}.block.{i}.{leaf}")
                for j in range(4):
                    add(f"decoder.model.{k}.block.{i}.block.{j}.{leaf}")
    state = {}
    for name, t in hf.items():
        legacy = name.replace(".parametrizations.weight.original0", ".weight_g").replace(
            ".parametrizations.weight.original1", ".weight_v")
        state[inverse.get(legacy, legacy)] = t
    kwargs = {"decoder_rates": cfg["upsampling_ratios"], "encoder_rates": cfg["downsampling_ratios"],
              "encoder_dim": cfg["encoder_hidden_size"], "decoder_dim": cfg["decoder_hidden_size"],
              "n_codebooks": cfg["n_codebooks"], "codebook_size": cfg["codebook_size"],
              "codebook_dim": cfg["codebook_dim"], "sample_rate": cfg["sampling_rate"]}
    with tempfile.TemporaryDirectory() as d:
        out = convert(state, kwargs, d)
    for name, t in hf.items():
        legacy = name.replace(".parametrizations.weight.original0", ".weight_g").replace(
            ".parametrizations.weight.original1", ".weight_v")
        assert legacy in out and (out[legacy] == t).all(), name
    assert len(out) == len(hf), (len(out), len(hf))
    print(f"self-test ok: {len(out)} tensors round-trip")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test(a.src)
    import torch

    ck = torch.load(a.src, map_location="cpu", weights_only=False)
    kwargs = ck["metadata"]["kwargs"]
    tensors = convert(ck["state_dict"], kwargs, a.out)
    print(f"{a.out}: {len(tensors)} tensors, rates {kwargs['decoder_rates']}, {kwargs['n_codebooks']} codebooks")


if __name__ == "__main__":
    sys.exit(main())
