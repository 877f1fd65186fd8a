"""Writes the Opus upload fixtures of tests/audio_decode_opus.rs: one second of a known signal
(tests/audio_decode_opus.rs computes the same formula), encoded by FFmpeg's libopus through PyAV
(`pip install av`), as Ogg Opus (mono) and WebM (stereo, written live as browsers' MediaRecorder
writes it: no cues, sizes unknown). Run from the repository root: python3 tools/make_opus_fixtures.py"""

import math
import pathlib

import av
import numpy as np

RATE = 48000
OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "audio"


def channel(c, n=RATE):
    """The test signal's channel c: two tones under a slow envelope (c shifts the tones)."""
    t = np.arange(n) / RATE
    env = 0.5 - 0.5 * np.cos(2 * math.pi * t)  # 0 at both ends, 1 in the middle
    f1, f2 = (440.0, 1250.0) if c == 0 else (660.0, 970.0)
    return (env * (0.3 * np.sin(2 * math.pi * f1 * t) + 0.2 * np.sin(2 * math.pi * f2 * t))).astype(np.float32)


def write(path, fmt, channels, options=None):
    data = np.stack([channel(c) for c in range(channels)])
    layout = "mono" if channels == 1 else "stereo"
    with av.open(str(path), "w", format=fmt, options=options or {}) as out:
        s = out.add_stream("libopus", rate=RATE, layout=layout)
        s.bit_rate = 96000
        frame = av.AudioFrame.from_ndarray(data, format="fltp", layout=layout)
        frame.sample_rate = RATE
        frame.pts = 0
        for p in s.encode(frame):
            out.mux(p)
        for p in s.encode(None):
            out.mux(p)
    print(path, path.stat().st_size, "bytes")


OUT.mkdir(parents=True, exist_ok=True)
write(OUT / "tones_mono.opus", "ogg", 1)
# As MediaRecorder writes it: a live stream (no cues, no sizes known in advance).
write(OUT / "tones_stereo.webm", "webm", 2, {"live": "1"})
