#!/usr/bin/env python3
"""Hugging Face transformers on the same model configs `gerbil bench` uses
(random weights, bf16 by default), for the gerbil/HF ratios in BENCHMARKS.md.

Per config: greedy decode tokens/s through `generate` in eager mode, then with a
static cache and torch.compile (when that runs: the error is recorded, not
hidden, when it does not), and prefill tokens/s of one forward over a prompt.
Peak device memory is reported on CUDA.

usage (H200):  python3 tools/bench_hf.py config/models/*.json --device cuda --json hf.json
check (CPU):   python3 tools/bench_hf.py tests/fixtures/qwen3_5/config.json --device cpu --tokens 8 --prefill 16
"""
import argparse
import json
import sys
import time

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def sync(device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def timed(device, fn):
    sync(device)
    t0 = time.perf_counter()
    fn()
    sync(device)
    return time.perf_counter() - t0


def decode_rate(model, prompt, tokens, device, **extra):
    """tokens/s of `generate` (greedy, exactly `tokens` new tokens), after a warm-up run."""
    kw = dict(do_sample=False, max_new_tokens=tokens, min_new_tokens=tokens, pad_token_id=0, **extra)
    with torch.inference_mode():
        model.generate(prompt, **kw)  # warm-up: kernels chosen, graphs compiled / captured
        secs = timed(device, lambda: model.generate(prompt, **kw))
    return tokens / secs


def bench(path, args):
    device, dtype = args.device, DTYPES[args.dtype]
    cfg = AutoConfig.from_pretrained(path)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(cfg, dtype=dtype).to(device).eval()
    vocab = model.config.get_text_config().vocab_size
    prompt = (torch.arange(args.prompt, device=device)[None] * 7 + 100) % vocab
    out = {
        "config": path,
        "architecture": type(model).__name__,
        "params": sum(p.numel() for p in model.parameters()),
        "dtype": args.dtype,
    }
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    out["eager_tokens_per_s"] = decode_rate(model, prompt, args.tokens, device)
    # Prefill: one forward over `prefill` tokens, no cache kept (best of three).
    long = (torch.arange(args.prefill, device=device)[None] * 7 + 1) % vocab
    with torch.inference_mode():
        model(long, use_cache=False)
        best = min(timed(device, lambda: model(long, use_cache=False)) for _ in range(3))
    out["prefill_tokens"] = args.prefill
    out["prefill_tokens_per_s"] = args.prefill / best
    if not args.no_compile:
        try:
            model.forward = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)
            out["compile_static_tokens_per_s"] = decode_rate(
                model, prompt, args.tokens, device, cache_implementation="static"
            )
        except Exception as e:  # noqa: BLE001 -- reported in the table, never hidden
            out["compile_static_error"] = f"{type(e).__name__}: {e}"[:400]
    if device.startswith("cuda"):
        out["peak_gpu_bytes"] = torch.cuda.max_memory_allocated()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="+", help="config.json files (config/models/*.json)")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    ap.add_argument("--tokens", type=int, default=128, help="new tokens per decode measurement")
    ap.add_argument("--prompt", type=int, default=8, help="prompt length of the decode measurement")
    ap.add_argument("--prefill", type=int, default=512, help="prompt length of the prefill measurement")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile + static cache")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    results = []
    for c in args.configs:
        r = bench(c, args)
        results.append(r)
        line = f"{r['architecture']} ({c}): eager {r['eager_tokens_per_s']:.1f} tok/s"
        if "compile_static_tokens_per_s" in r:
            line += f", compile+static {r['compile_static_tokens_per_s']:.1f} tok/s"
        elif "compile_static_error" in r:
            line += f", compile+static failed ({r['compile_static_error'][:80]})"
        line += f"; prefill {r['prefill_tokens']} tokens {r['prefill_tokens_per_s']:.0f} tok/s"
        print(line, file=sys.stderr, flush=True)
    device_name = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"
    report = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "device": device_name,
        "results": results,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
