"""Soak: a running `gerbil serve` under load, its memory sampled.

Short requests (one token) from 8 threads, then 64 concurrent streams (64 tokens each; each of 64
clients opens the next as soon as one ends) for --stream-seconds. Every --sample-seconds: the server's
resident memory (VmRSS of PID), the GPU's used memory (nvidia-smi, where there is one) and the error
count; at the end the growth of each after the first minute, and the slots, queue and finished
sequences from /metrics. Memory should stay flat after warm-up (growth < 5%), errors 0, no slot busy.

    python3 tools/soak_server.py PID [--url http://127.0.0.1:8080] [--model smol] [--short-rounds 6]
                                     [--stream-seconds 300] [--sample-seconds 15]
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
    ap.add_argument("--stream-seconds", type=float, default=300)
    ap.add_argument("--sample-seconds", type=float, default=15)
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
    end = time.time() + a.stream_seconds
    streams = [0]

    def client():
        while time.time() < end:
            request(stream)
            with lock:
                streams[0] += 1

    clients = [threading.Thread(target=client) for _ in range(64)]
    for c in clients:
        c.start()
    samples = []  # (seconds into the streams, rss KiB, gpu MiB or "-")
    s0 = time.time()
    def sample():
        samples.append((time.time() - s0, rss_kib(a.pid), gpu_mib()))
        print(f"64 streams, {samples[-1][0]:.0f} s: {streams[0]} streams done, rss {samples[-1][1]} KiB, "
              f"gpu {samples[-1][2]} MiB, errors {errors[0]}", flush=True)

    while time.time() < end:
        time.sleep(min(a.sample_seconds, max(0.0, end - time.time())))
        sample()
    for c in clients:
        c.join()
    sample()  # every stream finished
    warm = [x for x in samples if x[0] >= 60] or samples
    rss_growth = (max(x[1] for x in warm) - warm[0][1]) / warm[0][1] * 100
    print(f"after the first minute: rss {warm[0][1]} -> max {max(x[1] for x in warm)} KiB ({rss_growth:+.2f}%)")
    gpus = [int(x[2]) for x in warm if str(x[2]).isdigit()]
    if gpus:
        print(f"after the first minute: gpu {gpus[0]} -> max {max(gpus)} MiB ({(max(gpus) - gpus[0]) / gpus[0] * 100:+.2f}%)")
    print(f"streams: {streams[0]} in {time.time() - s0:.0f} s, errors {errors[0]}")
    metrics = urllib.request.urlopen(a.url + "/metrics", timeout=30).read().decode()
    for line in metrics.splitlines():
        if line.startswith(("gerbil_active_slots", "gerbil_queue_depth", "gerbil_sequences_finished_total")):
            print(line)


if __name__ == "__main__":
    main()
