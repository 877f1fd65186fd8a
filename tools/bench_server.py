#!/usr/bin/env python3
"""Benchmark a running gerbil server (or any OpenAI-compatible one).

For each concurrency level (default 1, 8, 32) it runs that many streaming
/v1/completions clients at once, each making `--rounds` requests of exactly
`--max-tokens` tokens (ignore_eos), and reports:
  - time to first token (p50 / p90), from sending the request to the first text chunk,
  - per-stream decode tokens/s (tokens after the first / time after the first),
  - aggregate tokens/s (all completion tokens / wall time of the level).
Standard library only.

  python3 tools/bench_server.py --base-url http://127.0.0.1:8080 --model HuggingFaceTB/SmolLM2-135M-Instruct
  python3 tools/bench_server.py --concurrency 1,8,32 --max-tokens 256 --json bench.json
  # Long prompts (~1000 tokens): a shared system prompt then a per-request question (what a prefix
  # cache serves), or --cold: the per-request part first, so no two prompts share a prefix.
  python3 tools/bench_server.py --context-words 700 --max-tokens 32
"""

import argparse
import http.client
import json
import statistics
import sys
import threading
import time
import urllib.parse


def stream_once(base, model, prompt, max_tokens, api_key, timeout):
    """One streamed completion; returns (ttft_s, total_s, completion_tokens, usage)."""
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)
    body = json.dumps({
        "model": model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0, "stream": True,
        "stream_options": {"include_usage": True}, "ignore_eos": True,
    })
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    t0 = time.perf_counter()
    conn.request("POST", "/v1/completions", body=body, headers=headers)
    resp = conn.getresponse()
    if resp.status != 200:
        raise RuntimeError(f"HTTP {resp.status}: {resp.read()[:300]!r}")
    ttft, tokens, usage = None, 0, {}
    for raw in resp:
        line = raw.decode("utf-8", "replace").strip()
        if not line.startswith("data: "):
            continue
        data = line[6:]
        if data == "[DONE]":
            break
        chunk = json.loads(data)
        if "error" in chunk:
            raise RuntimeError(chunk["error"]["message"])
        if chunk.get("usage"):
            usage = chunk["usage"]
            tokens = usage["completion_tokens"]
        elif ttft is None and any(c.get("text") for c in chunk["choices"]):
            ttft = time.perf_counter() - t0
    total = time.perf_counter() - t0
    conn.close()
    return (ttft if ttft is not None else total), total, tokens, usage


CONTEXT = ("The river ran past the old mill and the fisherman counted his nets while the heron waited on the "
           "stones below the bridge. ").split()


def prompt_for(args, request):
    """The prompt of the request-th request: `--prompt`, or with --context-words a long context, shared by
    every request (the unique question after it) unless --cold puts the unique part first."""
    if args.context_words <= 0:
        return args.prompt
    context = " ".join(CONTEXT[i % len(CONTEXT)] for i in range(args.context_words))
    unique = f"Request {request}."
    if args.cold:
        return f"{unique} {context}\n\n{args.prompt}"
    return f"{context}\n\n{unique} {args.prompt}"


def run_level(args, concurrency):
    results, errors = [], []
    lock = threading.Lock()
    counter = iter(range(1 << 30))

    def worker():
        for _ in range(args.rounds):
            with lock:
                prompt = prompt_for(args, f"{concurrency}-{next(counter)}")
            try:
                r = stream_once(args.base_url, args.model, prompt, args.max_tokens, args.api_key, args.timeout)
                with lock:
                    results.append(r)
            except Exception as e:  # noqa: BLE001 - report every failure, keep measuring
                with lock:
                    errors.append(str(e))

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    ttfts = sorted(r[0] for r in results)
    per_stream = [(r[2] - 1) / (r[1] - r[0]) for r in results if r[2] > 1 and r[1] > r[0]]
    return {
        "concurrency": concurrency,
        "requests": len(results),
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
        "ttft_p50_ms": 1e3 * statistics.median(ttfts) if ttfts else None,
        "ttft_p90_ms": 1e3 * ttfts[int(0.9 * (len(ttfts) - 1))] if ttfts else None,
        "stream_tok_s_median": statistics.median(per_stream) if per_stream else None,
        "aggregate_tok_s": sum(r[2] for r in results) / wall if wall > 0 else None,
        "prompt_tokens_mean": statistics.mean(r[3].get("prompt_tokens", 0) for r in results) if results else None,
        "cached_tokens_mean": statistics.mean(
            (r[3].get("prompt_tokens_details") or {}).get("cached_tokens", 0) for r in results) if results else None,
        "wall_s": wall,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base-url", default="http://127.0.0.1:8080")
    p.add_argument("--model", default="HuggingFaceTB/SmolLM2-135M-Instruct")
    p.add_argument("--api-key", default="")
    p.add_argument("--prompt", default="Write a short story about a fisherman and a quiet river.")
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--concurrency", default="1,8,32", help="comma-separated levels")
    p.add_argument("--rounds", type=int, default=2, help="requests per client per level")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--context-words", type=int, default=0, help="a long context of this many words before --prompt")
    p.add_argument("--cold", action="store_true", help="with --context-words: no two prompts share a prefix")
    p.add_argument("--json", help="also write the results here")
    args = p.parse_args()
    levels = [int(c) for c in args.concurrency.split(",") if c.strip()]
    # Warm-up: pipelines compile and caches fill on the first request.
    stream_once(args.base_url, args.model, prompt_for(args, "warm-up"), 8, args.api_key, args.timeout)
    rows = [run_level(args, c) for c in levels]
    fmt = lambda v, spec: "-" if v is None else format(v, spec)  # noqa: E731
    print(f"{'streams':>7} {'reqs':>5} {'err':>4} {'ttft p50 ms':>12} {'ttft p90 ms':>12} {'stream tok/s':>13} "
          f"{'total tok/s':>12} {'prompt':>7} {'cached':>7}")
    for r in rows:
        print(f"{r['concurrency']:>7} {r['requests']:>5} {r['errors']:>4} {fmt(r['ttft_p50_ms'], '12.1f')} "
              f"{fmt(r['ttft_p90_ms'], '12.1f')} {fmt(r['stream_tok_s_median'], '13.1f')} {fmt(r['aggregate_tok_s'], '12.1f')} "
              f"{fmt(r['prompt_tokens_mean'], '7.0f')} {fmt(r['cached_tokens_mean'], '7.0f')}")
        if r["first_error"]:
            print(f"        first error: {r['first_error']}", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "max_tokens": args.max_tokens, "levels": rows}, f, indent=2)
    sys.exit(1 if any(r["errors"] for r in rows) else 0)


if __name__ == "__main__":
    main()
