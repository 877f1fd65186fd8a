#!/usr/bin/env python3
"""Batch-1 greedy decode speed of Hugging Face transformers on the same model
configs `gerbil bench` uses (random weights, bf16, CUDA), for the ratios in
BENCHMARKS.md. Eager always; torch.compile with a static cache when it works.

usage: python3 tools/bench_hf.py config/models/smollm2-135m.json [...] [--tokens 128] [--compile]
"""
import argparse
import json
import sys
import time

import torch
from transformers import AutoConfig, AutoModelForCausalLM


def bench(path, tokens, compile_):
    cfg = AutoConfig.from_pretrained(path)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.bfloat16).cuda().eval()
    prompt = torch.arange(100, 108, device="cuda")[None]
    out = {"config": path}
    modes = [("eager", {})]
    if compile_:
        modes.append(("compile_static", {"cache_implementation": "static", "compile_config": None}))
    for name, extra in modes:
        kw = dict(max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False)
        try:
            if name == "compile_static":
                model.forward = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)
                kw["cache_implementation"] = "static"
            with torch.no_grad():
                model.generate(prompt, **dict(kw, max_new_tokens=16, min_new_tokens=16))  # warm-up / compile
                model.generate(prompt, **kw)
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                model.generate(prompt, **kw)
                torch.cuda.synchronize()
            out[name + "_tokens_per_s"] = tokens / (time.perf_counter() - t0)
        except Exception as e:  # report, don't hide: the ratio table says it did not run
            out[name + "_error"] = f"{type(e).__name__}: {e}"[:300]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("configs", nargs="+")
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--compile", action="store_true")
    a = ap.parse_args()
    res = [bench(c, a.tokens, a.compile) for c in a.configs]
    json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "results": res}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
