#!/usr/bin/env python3
"""Generate the tiny LFM2 reference fixture for gerbil's tests.

    python tools/make_fixtures_lfm2.py --out tests/fixtures

Creates tests/fixtures/lfm2: a random-weight Lfm2ForCausalLM (4 layers: short
conv, attention, conv, attention) as `save_pretrained` writes it, the same tiny
byte-level BPE tokenizer as tools/make_fixtures.py, and `reference.safetensors`
+ `meta.json` (prefill logits for every prompt row, 33 greedy tokens and their
logits, computed by transformers in float32 with eager attention and the conv
state cache). Deterministic; no hub access. Versions: tools/requirements-fixtures.txt.

Every 2-D weight sits exactly on an INT4 grid (see tests/fixtures/README.md), so
the INT4 engine path is held to the f32 tolerance. The depthwise conv weights
[hidden, 1, L] stay f32 in the engine and are plain Gaussian here.
"""

import argparse
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures as mf  # noqa: E402  (shared tokenizer, INT4 grid, greedy loop)

import safetensors.torch  # noqa: E402
import transformers  # noqa: E402
from transformers import GenerationConfig, Lfm2Config, Lfm2ForCausalLM  # noqa: E402

NAME = "lfm2"
LAYER_TYPES = ["conv", "full_attention", "conv", "full_attention"]
CONV_STD = 0.5


def make_model(vocab, seed):
    cfg = Lfm2Config(
        vocab_size=vocab,
        hidden_size=mf.HIDDEN,
        # block_auto_adjust_ff_dim: int(2 * 200 / 3) = 133, rounded up to a multiple of 32 -> 160
        intermediate_size=200,
        block_auto_adjust_ff_dim=True,
        block_ffn_dim_multiplier=1.0,
        block_multiple_of=32,
        num_hidden_layers=len(LAYER_TYPES),
        layer_types=LAYER_TYPES,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        norm_eps=1e-5,
        conv_L_cache=3,
        conv_bias=False,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
        tie_word_embeddings=True,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=0,
    )
    cfg._attn_implementation = "eager"
    model = Lfm2ForCausalLM(cfg).eval()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                v = 1.0 + mf.NORM_STD * torch.randn(p.shape, generator=g)
                if name == "model.embedding_norm.weight":
                    v = mf.FINAL_NORM_SCALE * v
            elif name.endswith("conv.conv.weight"):
                v = CONV_STD * torch.randn(p.shape, generator=g)
            elif name.endswith(".weight") and p.dim() == 2:
                exp = mf.EMBED_EXP if "embed_tokens" in name else mf.LAYER_EXP
                v = mf.grid_matrix(p.shape[0], p.shape[1], exp, g)
            else:
                raise RuntimeError(f"unexpected parameter {name} {tuple(p.shape)}")
            p.copy_(v)
    return model


def chunked_prefill_last(model, ids, chunk):
    """Logits of the last prompt row when the prompt is fed in chunks through the cache."""
    kw = mf._cache_kw(model)
    cache = None
    for s in range(0, len(ids), chunk):
        part = ids[s:s + chunk].unsqueeze(0)
        pos = torch.arange(s, s + part.shape[1]).unsqueeze(0)
        extra = {kw: cache} if cache is not None else {}
        out = model(input_ids=part, position_ids=pos, use_cache=True, **extra)
        cache = mf._out_cache(out)
    return out.logits[0, -1].float()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    folder = os.path.join(args.out, NAME)
    os.makedirs(folder, exist_ok=True)
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))

    tok = mf.build_tokenizer()
    vocab = tok.get_vocab_size()
    prompt_ids = torch.tensor(tok.encode(mf.PROMPT, add_special_tokens=False).ids, dtype=torch.long)
    T = len(prompt_ids)

    best = None
    for trial in range(mf.N_SEED_TRIALS):
        seed = 2001 * 100 + trial
        m = make_model(vocab, seed)
        _, g_, st = mf.greedy_with_cache(m, prompt_ids, mf.N_GEN)
        mg = min(mf.top_gaps(st))
        distinct = len(set(g_.tolist()))
        p1 = torch.softmax(st, -1).max(-1).values.median().item()
        ok = distinct >= mf.MIN_DISTINCT and p1 <= mf.MAX_TOP1_PROB
        print(f"  {NAME} seed {seed}: min gap {mg:.4f} distinct {distinct} median p1 {p1:.3f}"
              f"{'' if ok else '  (rejected)'}")
        key = (ok, mg if ok else distinct)
        if best is None or key > best[1]:
            best = (seed, key)
    seed = best[0]
    model = make_model(vocab, seed)
    cfg = model.config
    assert cfg.layer_types == LAYER_TYPES
    assert model.model.layers[0].feed_forward.w1.weight.shape == (160, mf.HIDDEN)
    int4_groups = mf.check_int4_exact(model)
    assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()

    prefill, gen, steps = mf.greedy_with_cache(model, prompt_ids, mf.N_GEN)
    assert torch.equal(prefill[-1], steps[0])
    full_ids = torch.cat([prompt_ids, gen[:-1]])
    full = mf.full_forward(model, full_ids)
    d_steps = (full[T - 1:] - steps).abs().max().item()
    d_prefill = (full[:T] - prefill).abs().max().item()
    assert d_steps < 1e-4, f"cached vs full step logits differ by {d_steps}"
    assert d_prefill < 1e-4, f"prefill differs by {d_prefill}"
    # The conv state carried across prefill chunks reproduces one-shot prefill.
    d_chunk = (chunked_prefill_last(model, prompt_ids, 5) - prefill[-1]).abs().max().item()
    assert d_chunk < 1e-4, f"chunked prefill differs by {d_chunk}"

    model.generation_config = GenerationConfig(bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model.save_pretrained(folder)
    mf.write_tokenizer_files(tok, folder, cfg.max_position_embeddings)
    ref = {
        "prompt_ids": prompt_ids.contiguous(),
        "prefill_logits": prefill.contiguous(),
        "generated_ids": gen.contiguous(),
        "step_logits": steps.contiguous(),
    }
    safetensors.torch.save_file(ref, os.path.join(folder, "reference.safetensors"))

    reloaded = Lfm2ForCausalLM.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager").eval()
    d_reload = (mf.full_forward(reloaded, full_ids) - full).abs().max().item()
    assert d_reload < 1e-5, f"reloaded checkpoint differs by {d_reload}"

    gaps = mf.top_gaps(steps)
    meta = {
        "prompt": mf.PROMPT,
        "prompt_ids": prompt_ids.tolist(),
        "generated_ids": gen.tolist(),
        "generated_text": tok.decode(gen.tolist(), skip_special_tokens=False),
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "seed": seed,
        "int4_groups": int4_groups,
        "top1_gap_median": round(statistics.median(gaps), 6),
        "top1_gap_min": round(min(gaps), 6),
        "cached_vs_full": d_steps,
        "chunk5_vs_oneshot": d_chunk,
    }
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, ensure_ascii=False)
        f.write("\n")
    size = mf.dir_size(folder)
    assert size < 1_500_000, size
    print(json.dumps(dict(meta, size=size), indent=1))


if __name__ == "__main__":
    main()
