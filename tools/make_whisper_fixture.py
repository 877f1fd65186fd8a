#!/usr/bin/env python3
"""Generate the tiny random Whisper fixture for tests/models_whisper.rs.

    /work/venv/bin/python tools/make_whisper_fixture.py --out tests/fixtures/whisper

Writes a random-weight `WhisperForConditionalGeneration` exactly as
`save_pretrained` does (config.json, model.safetensors), the feature
extractor's preprocessor_config.json (a 2 s window instead of 30 s, so the
encoder sees 200 mel frames and the fixture stays small), and
reference.safetensors with:

  audio          [32000]     a deterministic 16 kHz test signal (chirp + noise)
  features       [80, 200]   WhisperFeatureExtractor(audio) (numpy path)
  encoder_out    [100, D]    model.encoder(features)
  forced_ids     [T]         a fixed decoder input sequence
  logits         [T, vocab]  decoder logits for forced_ids (teacher forcing)
  greedy_ids     [N]         a plain argmax loop from forced_ids[:1] (no logits
                             processors), N steps

Everything is float32, eager attention, fixed seeds. Versions:
tools/requirements-fixtures.txt.
"""

import argparse
import json
import os

import numpy as np
import torch

torch.set_num_threads(2)
torch.use_deterministic_algorithms(True)

import safetensors.torch  # noqa: E402
from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration  # noqa: E402

SR = 16000
SECONDS = 2
GREEDY_STEPS = 16


def signal(n):
    rng = np.random.default_rng(7)
    t = np.arange(n) / SR
    chirp = 0.4 * np.sin(2 * np.pi * (200 + 900 * t) * t)
    tone = 0.2 * np.sin(2 * np.pi * 3000 * t) * (t > 0.7)
    noise = 0.02 * rng.standard_normal(n)
    # A silent tail, so the padding and the dynamic-range clamp are exercised.
    x = (chirp + tone + noise) * (t < 1.6)
    return x.astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/whisper")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "ref"), exist_ok=True)

    torch.manual_seed(0)
    cfg = WhisperConfig(
        vocab_size=211,
        num_mel_bins=80,
        d_model=64,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=160,
        decoder_ffn_dim=160,
        max_source_positions=SECONDS * 50,
        max_target_positions=48,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=1,
        begin_suppress_tokens=None,
        suppress_tokens=None,
        activation_function="gelu",
        attn_implementation="eager",
        tie_word_embeddings=True,
    )
    model = WhisperForConditionalGeneration(cfg).eval()
    # Larger-than-default weights so every layer visibly matters and greedy
    # argmax margins are wide (the default 0.02 std gives near-uniform logits).
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "layer_norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=g))
            elif name.endswith("bias"):
                p.copy_(0.1 * torch.randn(p.shape, generator=g))
            else:
                fan_in = p.shape[1] * (p.shape[2] if p.dim() == 3 else 1) if p.dim() > 1 else 1
                p.copy_(torch.randn(p.shape, generator=g) / fan_in**0.5)
        # Strong decoder positions, so the greedy loop does not settle on one token.
        model.model.decoder.embed_positions.weight.mul_(12.0)
    model.save_pretrained(args.out, safe_serialization=True)

    fe = WhisperFeatureExtractor(feature_size=80, sampling_rate=SR, hop_length=160, chunk_length=SECONDS, n_fft=400)
    fe.save_pretrained(args.out)
    audio = signal(int(1.8 * SR))  # shorter than the window: exercises the zero padding
    feats = fe(audio, sampling_rate=SR, return_tensors="np").input_features[0].astype(np.float32)
    assert feats.shape == (80, SECONDS * 100), feats.shape

    forced = torch.tensor([[1, 5, 17, 42, 99, 3, 150, 7, 64, 200, 11]])
    with torch.no_grad():
        x = torch.from_numpy(feats)[None]
        enc = model.model.encoder(x).last_hidden_state
        logits = model(encoder_outputs=(enc,), decoder_input_ids=forced).logits[0]
        ids = [1]
        margins = []
        for _ in range(GREEDY_STEPS):
            lg = model(encoder_outputs=(enc,), decoder_input_ids=torch.tensor([ids])).logits[0, -1]
            top = torch.topk(lg, 2).values
            margins.append(float(top[0] - top[1]))
            ids.append(int(lg.argmax()))
    print("greedy", ids, "min margin", min(margins))
    print("encoder_out std", float(enc.std()), "logits std", float(logits.std()))
    assert min(margins) > 1e-2, "greedy margins too small to be a stable test"

    safetensors.torch.save_file(
        {
            "audio": torch.from_numpy(audio),
            "features": torch.from_numpy(feats),
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
