#!/usr/bin/env python3
"""Time to first audio byte and real-time factor of POST /v1/audio/speech (stdlib only).

Starts `gerbil serve` with one Piper voice and no LLM, then for a 1-sentence and a
20-sentence input streams `response_format=pcm` (s16le, no header, so the first body
byte is audio) and reports: time to the first body byte, total time, audio seconds
(from the byte count and the x-sample-rate header) and RTF = total / audio.
Each input runs once to warm up (pipelines compiled), then `--runs` times.

  python3 tools/bench_speech.py --gerbil target/release/gerbil --voice ~/.cache/gerbil-test-assets/piper/en_US-joe-medium
"""
import argparse, json, os, subprocess, sys, tempfile, time, urllib.request

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "A journey of a thousand miles begins with a single step.",
    "Please remember to water the plants before you leave for the weekend.",
    "The museum opens at nine and closes late on Fridays.",
    "She sells sea shells by the sea shore every summer.",
]


def speak(base, text):
    body = json.dumps({"model": "piper", "voice": "joe", "input": text, "response_format": "pcm"}).encode()
    req = urllib.request.Request(base + "/v1/audio/speech", body, {"Content-Type": "application/json"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(req) as r:
        rate = int(r.headers["x-sample-rate"])
        first = r.read(1)
        t_first = time.perf_counter() - t0
        n = len(first) + len(r.read())
    total = time.perf_counter() - t0
    return t_first, total, n / 2 / rate


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gerbil", default="gerbil")
    ap.add_argument("--voice", required=True, help="Piper voice folder (config.json + model.safetensors)")
    ap.add_argument("--port", type=int, default=8093)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    cfg = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    cfg.write(f'listen = "127.0.0.1:{a.port}"\nmodels = []\n[[voices]]\nname = "joe"\ndir = "{a.voice}"\n')
    cfg.close()
    log = open(os.path.join(tempfile.gettempdir(), "gerbil_bench_speech.log"), "w")
    srv = subprocess.Popen([a.gerbil, "serve", "--config", cfg.name], stdout=log, stderr=log)
    base = f"http://127.0.0.1:{a.port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/v1/audio/voices").read()
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("server did not come up (see the log in the temp dir)")
        for n in (1, 20):
            text = " ".join(SENTENCES[i % len(SENTENCES)] for i in range(n))
            speak(base, text)  # warm-up
            runs = [speak(base, text) for _ in range(a.runs)]
            first = sorted(r[0] for r in runs)[len(runs) // 2]
            total = sorted(r[1] for r in runs)[len(runs) // 2]
            audio = runs[0][2]
            print(f"{n:>2} sentence(s), HTTP pcm stream (median of {a.runs}): first audio byte {first * 1e3:.1f} ms, "
                  f"{audio:.2f} s of audio in {total:.3f} s, RTF {total / audio:.4f}")
    finally:
        srv.terminate()
        srv.wait()


if __name__ == "__main__":
    main()
