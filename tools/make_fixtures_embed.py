#!/usr/bin/env python3
"""Generate the decoder-embedder fixture (tests/fixtures/qwen3_embed): a Qwen3-Embedding-shaped
checkpoint with random weights, and what transformers computes for a few inputs.

    python tools/make_fixtures_embed.py --out tests/fixtures

Qwen3-Embedding is a `Qwen3Model` (no lm_head; tensors named without the `model.` prefix, tied
embeddings) whose tokenizer appends <|endoftext|> to every input, and whose sentence-transformers
files pool the last token and normalise. The fixture is laid out the same way: config.json,
model.safetensors from `Qwen3Model.save_pretrained`, tokenizer.json (tests/fixtures/qwen3's BPE with
that post-processor), modules.json, 1_Pooling/config.json, and `is_matryoshka: true` (vLLM's field,
so `dimensions` may truncate).

reference.safetensors holds, per input i, `ids_{i}` (the tokenizer's ids, special tokens added)
and `hidden_{i}` ([tokens, hidden]: last_hidden_state, i.e. after the final norm, float32, eager
attention), from which a test computes every pooling. meta.json lists the inputs.
Pinned versions: tools/requirements-fixtures.txt. Deterministic (fixed seed), no network.
"""

import argparse
import json
import os
import shutil

import torch

torch.set_num_threads(2)
torch.use_deterministic_algorithms(True)

import safetensors.torch  # noqa: E402
from tokenizers import Tokenizer, processors  # noqa: E402
from transformers import Qwen3Config, Qwen3Model  # noqa: E402

INPUTS = [
    "The quick brown fox",
    "the river remembers everything",
    # Longer than the tests' prefill chunk (16 tokens), so the embedding spans chunks.
    "Every morning the old fisherman walks down to the water, sits on the wooden bench, and watches "
    "the light move across the stones.",
    "a",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "..", "tests", "fixtures", "qwen3")
    out = os.path.join(args.out, "qwen3_embed")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "1_Pooling"))

    with open(os.path.join(src, "config.json")) as f:
        cfg_dict = json.load(f)
    for k in ("architectures", "transformers_version", "dtype"):
        cfg_dict.pop(k, None)
    cfg_dict["tie_word_embeddings"] = True
    cfg = Qwen3Config(**cfg_dict)
    cfg._attn_implementation = "eager"
    torch.manual_seed(20261208)
    model = Qwen3Model(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
            else:
                p.copy_(0.2 * torch.randn_like(p))
    model.save_pretrained(out)
    with open(os.path.join(out, "config.json")) as f:
        saved = json.load(f)
    # Qwen3-Embedding's config names the causal LM class (its checkpoint is the bare model).
    saved["architectures"] = ["Qwen3ForCausalLM"]
    saved["is_matryoshka"] = True
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(saved, f, indent=2)
        f.write("\n")

    tok = Tokenizer.from_file(os.path.join(src, "tokenizer.json"))
    tok.post_processor = processors.Sequence(
        [
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single="$A <|endoftext|>", special_tokens=[("<|endoftext|>", 0)]),
        ]
    )
    tok.save(os.path.join(out, "tokenizer.json"))
    shutil.copy(os.path.join(src, "tokenizer_config.json"), out)

    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ]
    with open(os.path.join(out, "modules.json"), "w") as f:
        json.dump(modules, f, indent=2)
        f.write("\n")
    pooling = {
        "word_embedding_dimension": cfg.hidden_size,
        "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": False,
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
        "pooling_mode_weightedmean_tokens": False,
        "pooling_mode_lasttoken": True,
        "include_prompt": True,
    }
    with open(os.path.join(out, "1_Pooling", "config.json"), "w") as f:
        json.dump(pooling, f, indent=2)
        f.write("\n")

    tensors = {}
    for i, text in enumerate(INPUTS):
        ids = tok.encode(text).ids
        assert ids[-1] == 0, "the post-processor appends <|endoftext|>"
        with torch.no_grad():
            h = model(torch.tensor([ids])).last_hidden_state[0]
        tensors[f"ids_{i}"] = torch.tensor(ids, dtype=torch.int32)
        tensors[f"hidden_{i}"] = h.float().contiguous()
        print(f"input {i}: {len(ids)} tokens")
    safetensors.torch.save_file(tensors, os.path.join(out, "reference.safetensors"))
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump({"inputs": INPUTS, "hidden": cfg.hidden_size}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
