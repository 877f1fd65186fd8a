#!/usr/bin/env python3
"""Reference waveform of a Piper voice from onnxruntime (CPU), noise disabled.

Runs the voice's .onnx on fixed phoneme ids with scales [noise_scale=0, length_scale=1,
noise_w=0], so the result is deterministic, and writes a small JSON the Rust test
(tests/models_piper.rs) compares against: the ids, the per-phoneme durations in frames,
the sample count, a window of samples and whole-signal statistics.

usage: make_reference.py VOICE.onnx OUT.json [DEBUG.npz]
"""

import json
import sys

import numpy as np
import onnx
import onnxruntime as ort

# "Hello world." as espeak-ng (en-us) phonemizes it for Piper, mapped with Piper's rules:
# BOS '^', pad '_' after every phoneme, EOS '$'.
PHONEMES = "həlˈoʊ wˈɜːld."
WINDOW = 3000
DEBUG_OUTPUTS = ["/enc_p/Split_output_0", "/enc_p/Split_output_1", "/Ceil_output_0", "/Mul_7_output_0"]


def ids_for(phonemes, id_map):
    ids = id_map["^"] + id_map["_"]
    for ch in phonemes:
        ids += id_map[ch] + id_map["_"]
    return ids + id_map["$"]


def main():
    onnx_path, out_json = sys.argv[1], sys.argv[2]
    debug = sys.argv[3] if len(sys.argv) > 3 else None
    cfg = json.load(open(onnx_path + ".json"))
    ids = ids_for(PHONEMES, cfg["phoneme_id_map"])
    model = onnx.load(onnx_path)
    # The durations (ceil(w) per phoneme, in frames) are always read back; the rest only for debugging.
    extra = DEBUG_OUTPUTS if debug else ["/Ceil_output_0"]
    for name in extra:
        model.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    feeds = {
        "input": np.array([ids], dtype=np.int64),
        "input_lengths": np.array([len(ids)], dtype=np.int64),
        "scales": np.array([0.0, 1.0, 0.0], dtype=np.float32),
    }
    outs = sess.run(None, feeds)
    audio = outs[0].reshape(-1).astype(np.float64)
    if debug:
        np.savez(debug, audio=audio, **{n.strip("/").replace("/", "_"): o for n, o in zip(DEBUG_OUTPUTS, outs[1:])})
    durations = [int(d) for d in outs[1 + extra.index("/Ceil_output_0")].reshape(-1)]
    # The window starts at the loudest 10 ms so it is not near-silence.
    frame = 220
    energy = [np.abs(audio[i : i + frame]).sum() for i in range(0, len(audio) - frame, frame)]
    start = max(0, min(int(np.argmax(energy)) * frame - WINDOW // 2, len(audio) - WINDOW))
    ref = {
        "voice": onnx_path.split("/")[-1],
        "onnxruntime": ort.__version__,
        "phonemes": PHONEMES,
        "ids": ids,
        "scales": [0.0, 1.0, 0.0],
        "n_samples": len(audio),
        "window_start": start,
        "window": [round(float(x), 7) for x in audio[start : start + WINDOW]],
        "rms": float(np.sqrt((audio**2).mean())),
        "max_abs": float(np.abs(audio).max()),
        "mean": float(audio.mean()),
    }
    ref["durations"] = durations
    with open(out_json, "w") as f:
        json.dump(ref, f)
    print(f"{len(ids)} ids -> {len(audio)} samples, rms {ref['rms']:.4f}, max {ref['max_abs']:.4f}")


if __name__ == "__main__":
    main()
