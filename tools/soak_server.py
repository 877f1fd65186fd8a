"""Soak: a running `gerbil serve` under load, its memory sampled.

Short requests (one token) from 8 threads, then rounds of 64 concurrent streams (64 tokens each, every
client reading 8 streams per round). After each round: the server's resident memory (VmRSS of PID), the
GPU's used memory (nvidia-smi, where there is one) and the error count; at the end the slots and queue
from /metrics. Memory should stay flat after the first round (growth < 5%), errors 0, no slot busy.

    python3 tools/soak_server.py PID [--url http://127.0.0.1:8080] [--model smol] [--short-rounds 6] [--stream-rounds 4]
"""
import argparse
import json
import subprocess
import threading
import time
import urllib.request


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1])
    return -1


def gpu_mib():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        return out or "-"
    except (OSError, subprocess.TimeoutExpired):
        return "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pid", type=int)
    ap.add_argument("--url", default="http://127.0.0.1:8080")
    ap.add_argument("--model", default="smol")
    ap.add_argument("--short-rounds", type=int, default=6)
    ap.add_argument("--stream-rounds", type=int, default=4)
    a = ap.parse_args()
    errors = [0]
    lock = threading.Lock()

    def request(body):
        r = urllib.request.Request(a.url + "/v1/completions", data=json.dumps(body).encode(),
                                   headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(r, timeout=300) as f:
                f.read()
        except Exception:
            with lock:
                errors[0] += 1

    def run(threads, per_thread, body):
        ts = [threading.Thread(target=lambda: [request(body) for _ in range(per_thread)]) for _ in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    short = {"model": a.model, "prompt": "The capital of France is", "max_tokens": 1, "temperature": 0}
    stream = {"model": a.model, "prompt": "Write a story about a fisherman.", "max_tokens": 64,
              "temperature": 0.7, "stream": True, "ignore_eos": True}
    t0 = time.time()
    print(f"start: rss {rss_kib(a.pid)} KiB, gpu {gpu_mib()} MiB", flush=True)
    for i in range(a.short_rounds):
        run(8, 100, short)
        print(f"short round {i}: {800 * (i + 1)} requests, rss {rss_kib(a.pid)} KiB, gpu {gpu_mib()} MiB, "
              f"errors {errors[0]}, {time.time() - t0:.0f} s", flush=True)
    for i in range(a.stream_rounds):
        run(64, 8, stream)
        print(f"64-stream round {i}: rss {rss_kib(a.pid)} KiB, gpu {gpu_mib()} MiB, errors {errors[0]}, "
              f"{time.time() - t0:.0f} s", flush=True)
    metrics = urllib.request.urlopen(a.url + "/metrics", timeout=30).read().decode()
    for line in metrics.splitlines():
        if line.startswith(("gerbil_active_slots", "gerbil_queue_depth")):
            print(line)


if __name__ == "__main__":
    main()
