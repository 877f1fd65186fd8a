#!/usr/bin/env python3
"""Checks a running server gives each prompt the same greedy completion whether it arrives alone or
together with others (prompts arriving together are prefilled in one packed step and decoded in one
batched step; alone, in the single-sequence plans). Exits non-zero on any difference.

  python3 tools/check_concurrent_greedy.py --base-url http://127.0.0.1:8080 --model smol --n 16
Standard library only.
"""

import argparse
import concurrent.futures
import json
import sys
import urllib.request

WORDS = ("river stone lantern orbit velvet canyon ember meadow signal harbor copper violet thunder "
         "garden compass marble falcon glacier").split()


def prompt(i):
    # Different lengths (3 to 40 words) and contents, so the packed rows differ per sequence.
    n = 3 + (i * 7) % 38
    return f"Story {i}: " + " ".join(WORDS[(i + j * 3) % len(WORDS)] for j in range(n))


def complete(base, model, text, max_tokens):
    body = json.dumps({"model": model, "prompt": text, "max_tokens": max_tokens, "temperature": 0,
                       "ignore_eos": True}).encode()
    req = urllib.request.Request(f"{base}/v1/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)["choices"][0]["text"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", default="http://127.0.0.1:8080")
    ap.add_argument("--model", required=True)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=48)
    a = ap.parse_args()
    prompts = [prompt(i) for i in range(a.n)]
    alone = [complete(a.base_url, a.model, p, a.max_tokens) for p in prompts]
    with concurrent.futures.ThreadPoolExecutor(a.n) as pool:
        together = list(pool.map(lambda p: complete(a.base_url, a.model, p, a.max_tokens), prompts))
    bad = [i for i in range(a.n) if alone[i] != together[i]]
    for i in bad:
        print(f"prompt {i} differs:\n  alone:    {alone[i]!r}\n  together: {together[i]!r}")
    print(f"{a.n - len(bad)} of {a.n} completions identical alone and together")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
