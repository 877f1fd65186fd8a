#!/usr/bin/env python3
"""Generate the tiny random Moonshine fixture for tests/models_moonshine.rs.

    /work/venv/bin/python tools/make_fixtures_moonshine.py --out tests/fixtures/moonshine

Writes a random-weight `MoonshineForConditionalGeneration` exactly as
`save_pretrained` does (config.json, model.safetensors) and
ref/reference.safetensors with:

  audio          [24000]     a deterministic 16 kHz test signal (1.5 s; Moonshine
                             reads raw samples, no feature extractor)
  encoder_out    [T, D]      model.model.encoder(audio) (after the final norm)
  forced_ids     [N]         a fixed decoder input sequence
  logits         [N, vocab]  decoder logits for forced_ids (teacher forcing)
  greedy_ids     [M]         a plain argmax loop from [decoder_start] (no
                             logits processors), M - 1 steps

The head_dim (16) times partial_rotary_factor (0.62) is 9.92: the rotary
width rounds as transformers does (int(9.92) = 9 -> 5 frequencies -> 10
rotated dims), so the odd case is covered. Everything is float32, eager
attention, fixed seeds. Versions: tools/requirements-fixtures.txt.
"""

import argparse
import json
import os

import numpy as np
import torch

torch.set_num_threads(2)
torch.use_deterministic_algorithms(True)

import safetensors.torch  # noqa: E402
from transformers import MoonshineConfig, MoonshineForConditionalGeneration  # noqa: E402

SR = 16000
GREEDY_STEPS = 16
SCALE_QK = 4.0
SCALE_OUT = 2.0


def signal(n):
    rng = np.random.default_rng(7)
    t = np.arange(n) / SR
    chirp = 0.4 * np.sin(2 * np.pi * (200 + 900 * t) * t)
    tone = 0.2 * np.sin(2 * np.pi * 3000 * t) * (t > 0.7)
    noise = 0.02 * rng.standard_normal(n)
    x = (chirp + tone + noise) * (t < 1.3)
    return x.astype(np.float32)


def decode(model, enc, ids):
    """Decoder logits over the whole `ids` (no cache): decoder, final norm, tied head."""
    h = model.model.decoder(input_ids=ids, encoder_hidden_states=enc, use_cache=False).last_hidden_state
    return model.proj_out(h)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/moonshine")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "ref"), exist_ok=True)

    torch.manual_seed(0)
    cfg = MoonshineConfig(
        vocab_size=211,
        hidden_size=64,
        intermediate_size=96,
        encoder_num_hidden_layers=2,
        decoder_num_hidden_layers=2,
        encoder_num_attention_heads=4,
        decoder_num_attention_heads=4,
        max_position_embeddings=64,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.62},
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=1,
        attn_implementation="eager",
        tie_word_embeddings=True,
    )
    model = MoonshineForConditionalGeneration(cfg).eval()
    # Larger-than-default weights so every layer visibly matters and greedy
    # argmax margins are wide (the default 0.02 std gives near-uniform logits).
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=g))
            elif name.endswith("bias"):
                p.copy_(0.1 * torch.randn(p.shape, generator=g))
            else:
                fan_in = p.shape[1] * (p.shape[2] if p.dim() == 3 else 1) if p.dim() > 1 else 1
                p.copy_(torch.randn(p.shape, generator=g) / fan_in**0.5)
        # Tied embeddings make "repeat the last token" a fixed point of a random
        # decoder; sharper position-dependent self-attention (rotary is the only
        # position signal) and stronger sublayer outputs break it.
        for layer in model.model.decoder.layers:
            layer.self_attn.q_proj.weight.mul_(SCALE_QK)
            layer.self_attn.k_proj.weight.mul_(SCALE_QK)
            layer.self_attn.o_proj.weight.mul_(SCALE_OUT)
            layer.mlp.fc2.weight.mul_(SCALE_OUT)
    model.save_pretrained(args.out, safe_serialization=True)

    audio = signal(int(1.5 * SR))
    forced = torch.tensor([[1, 5, 17, 42, 99, 3, 150, 7, 64, 200, 11]])
    with torch.no_grad():
        x = torch.from_numpy(audio)[None]
        enc = model.model.encoder(x).last_hidden_state
        logits = decode(model, enc, forced)[0]
        ids = [1]
        margins = []
        for _ in range(GREEDY_STEPS):
            lg = decode(model, enc, torch.tensor([ids]))[0, -1]
            top = torch.topk(lg, 2).values
            margins.append(float(top[0] - top[1]))
            ids.append(int(lg.argmax()))
    print("encoder frames", enc.shape, "greedy", ids, "min margin", min(margins))
    print("encoder_out std", float(enc.std()), "logits std", float(logits.std()))
    assert min(margins) > 1e-2, "greedy margins too small to be a stable test"
    assert len(set(ids)) > 4, "greedy loop collapsed onto few tokens"

    safetensors.torch.save_file(
        {
            "audio": torch.from_numpy(audio),
            "encoder_out": enc[0].contiguous(),
            "forced_ids": forced[0].to(torch.int32),
            "logits": logits.contiguous(),
            "greedy_ids": torch.tensor(ids, dtype=torch.int32),
        },
        os.path.join(args.out, "ref", "reference.safetensors"),
    )
    with open(os.path.join(args.out, "meta.json"), "w") as f:
        json.dump({"greedy_steps": GREEDY_STEPS, "min_greedy_margin": min(margins)}, f, indent=1)


if __name__ == "__main__":
    main()
