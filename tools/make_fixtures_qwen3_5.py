#!/usr/bin/env python3
"""Tiny Qwen3.5 (hybrid Gated DeltaNet + gated attention) reference fixture.

    python tools/make_fixtures_qwen3_5.py --out tests/fixtures

Writes tests/fixtures/qwen3_5/: a random-weight `Qwen3_5ForCausalLM` checkpoint
(4 layers: linear, full, linear, full attention; grouped value heads in the
DeltaNet layers; partial rotary), the shared tiny tokenizer, and
`reference.safetensors` + `meta.json` in the same format as
tools/make_fixtures.py (prefill logits, 33 greedy ids, per-step logits).

Reuses make_fixtures.py's tokenizer, INT4-grid weight init and greedy loop, so
every 2-D weight (including in_proj_a / in_proj_b) survives INT4 quantisation
with groups of 32 and 64 bit-exactly. The script checks that the cached path
(chunked delta rule for the prompt, recurrent form for each decode step) equals
a full non-cached forward over prompt + generated ids, and that the saved
folder reloads to the same logits.
"""

import argparse
import json
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import make_fixtures as mf  # noqa: E402
import safetensors.torch  # noqa: E402
import transformers  # noqa: E402
from transformers import GenerationConfig  # noqa: E402
from transformers.models.qwen3_5 import Qwen3_5ForCausalLM, Qwen3_5TextConfig  # noqa: E402

NAME = "qwen3_5"
SEED = 1006


def make_config(vocab):
    return Qwen3_5TextConfig(
        vocab_size=vocab,
        hidden_size=mf.HIDDEN,
        intermediate_size=128,
        num_hidden_layers=4,
        layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        linear_conv_kernel_dim=4,
        linear_key_head_dim=16,
        linear_value_head_dim=16,
        linear_num_key_heads=2,
        linear_num_value_heads=4,
        max_position_embeddings=256,
        hidden_act="silu",
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=0,
    )


@torch.no_grad()
def init_weights(model, seed):
    """Explicit init. Qwen3_5RMSNorm weights are zero-centred (the model scales by 1 + w);
    the DeltaNet's gated norm is a plain weight; conv / A_log / dt_bias are small floats."""
    g = torch.Generator().manual_seed(seed)
    for name, p in model.named_parameters():
        if name.endswith("linear_attn.norm.weight"):
            v = 1.0 + mf.NORM_STD * torch.randn(p.shape, generator=g)
        elif name.endswith("norm.weight"):
            v = mf.NORM_STD * torch.randn(p.shape, generator=g)
            if name == "model.norm.weight":
                v = mf.FINAL_NORM_SCALE * (1.0 + v) - 1.0
        elif name.endswith("conv1d.weight"):
            v = 0.5 * torch.randn(p.shape, generator=g)
        elif name.endswith("A_log"):
            v = torch.log(0.5 + 3.5 * torch.rand(p.shape, generator=g))
        elif name.endswith("dt_bias"):
            v = 0.5 * torch.randn(p.shape, generator=g)
        elif name.endswith(".weight") and p.dim() == 2:
            exp = mf.EMBED_EXP if ("embed_tokens" in name or "lm_head" in name) else mf.LAYER_EXP
            v = mf.grid_matrix(p.shape[0], p.shape[1], exp, g)
        else:
            raise RuntimeError(f"unexpected parameter {name} {tuple(p.shape)}")
        p.copy_(v.to(p.dtype))


def make_model(vocab, seed):
    torch.manual_seed(seed)
    model = Qwen3_5ForCausalLM(make_config(vocab))
    model.config._attn_implementation = "eager"
    model = model.to(torch.float32).eval()
    init_weights(model, seed)
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures")
    args = ap.parse_args()
    tok = mf.build_tokenizer()
    vocab = tok.get_vocab_size()
    folder = os.path.join(args.out, NAME)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    prompt_ids = torch.tensor(tok.encode(mf.PROMPT, add_special_tokens=False).ids, dtype=torch.long)
    T = prompt_ids.numel()

    best = None
    for trial in range(mf.N_SEED_TRIALS):
        seed = SEED * 100 + trial
        m = make_model(vocab, seed)
        _, g_, st = mf.greedy_with_cache(m, prompt_ids, mf.N_GEN)
        mg = min(mf.top_gaps(st))
        distinct = len(set(g_.tolist()))
        p1 = torch.softmax(st, -1).max(-1).values.median().item()
        ok = distinct >= mf.MIN_DISTINCT and p1 <= mf.MAX_TOP1_PROB
        print(f"  {NAME} seed {seed}: min gap {mg:.4f} distinct {distinct} median p1 {p1:.3f}")
        key = (ok, mg if ok else distinct)
        if best is None or key > best[1]:
            best = (seed, key)
    seed = best[0]
    model = make_model(vocab, seed)
    groups = mf.check_int4_exact(model)

    prefill, gen, steps = mf.greedy_with_cache(model, prompt_ids, mf.N_GEN)
    assert torch.equal(prefill[-1], steps[0])
    full_ids = torch.cat([prompt_ids, gen[:-1]])
    full = mf.full_forward(model, full_ids)
    d_steps = (full[T - 1:] - steps).abs().max().item()
    d_prefill = (full[:T] - prefill).abs().max().item()
    # the chunked (prompt) and recurrent (decode) delta-rule forms differ by float rounding (~1e-4)
    assert d_steps < 5e-4, f"cached vs full step logits differ by {d_steps}"
    assert d_prefill < 5e-4, f"prefill differs by {d_prefill}"

    model.generation_config = GenerationConfig(bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model.save_pretrained(folder)
    mf.write_tokenizer_files(tok, folder, model.config.max_position_embeddings)
    ref = {
        "prompt_ids": prompt_ids.contiguous(),
        "prefill_logits": prefill.contiguous(),
        "generated_ids": gen.contiguous(),
        "step_logits": steps.contiguous(),
    }
    safetensors.torch.save_file(ref, os.path.join(folder, "reference.safetensors"))
    reloaded = Qwen3_5ForCausalLM.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager").eval()
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
        "int4_exact_groups": groups,
        "cached_vs_full_max_diff": d_steps,
        "top1_gap_median": round(statistics.median(gaps), 6),
        "top1_gap_min": round(min(gaps), 6),
    }
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"[{NAME}] seed {seed} T={T} min gap {min(gaps):.4f} cached-vs-full {d_steps:.2e} "
          f"reload {d_reload:.2e} int4 groups {groups} size {mf.dir_size(folder)} B")


if __name__ == "__main__":
    main()
