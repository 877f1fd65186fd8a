#!/usr/bin/env python3
"""Writes the seed inputs of every fuzz target under fuzz/corpus/<target>/ (see fuzz/harness.rs):
small audio files of each container and codec the upload decoder reads (encoded with FFmpeg through
PyAV: `pip install av`), transcription multipart bodies, JSON bodies for each JSON route, speech
texts that stress the text front end, and minimal safetensors and GGUF files. Seeds are named
`seed-*`; what the fuzzer adds is minimized (`cargo fuzz cmin`) before it is committed.

Run from the repository root: python3 tools/make_fuzz_seeds.py
"""

import io
import json
import math
import os
import shutil
import struct
import wave

import av
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
BOUNDARY = "gerbilfuzzboundary"  # fuzz/harness.rs BOUNDARY


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def tone(rate, seconds, channels):
    t = np.arange(int(rate * seconds)) / rate
    x = 0.3 * np.sin(2 * math.pi * 440 * t)
    return np.stack([x * (0.5 + 0.5 * c) for c in range(channels)])


def encode(container, codec, rate, channels, seconds=0.1, sample_fmt=None, **opts):
    """A short tone in `container` with `codec`, through FFmpeg."""
    buf = io.BytesIO()
    with av.open(buf, "w", format=container) as out:
        s = out.add_stream(codec, rate=rate, layout="mono" if channels == 1 else "stereo")
        if "strict" in opts:
            s.codec_context.options = {"strict": opts.pop("strict")}
        for k, v in opts.items():
            setattr(s, k, v)
        x = tone(rate, seconds, channels).astype(np.float32)
        fmt = sample_fmt or s.codec_context.format.name
        frame_size = s.codec_context.frame_size or 1024
        for i in range(0, x.shape[1], frame_size):
            chunk = x[:, i : i + frame_size]
            if fmt.startswith("s16"):
                chunk = (chunk * 32767).astype(np.int16)
            elif fmt.startswith("s32"):
                chunk = (chunk * 2147483647).astype(np.int32)
            elif fmt.startswith("u8"):
                chunk = (chunk * 127 + 128).astype(np.uint8)
            planar = fmt.endswith("p")
            arr = chunk if planar else chunk.T.reshape(1, -1)
            f = av.AudioFrame.from_ndarray(np.ascontiguousarray(arr), format=fmt, layout=s.layout.name)
            f.sample_rate = rate
            for p in s.encode(f):
                out.mux(p)
        for p in s.encode(None):
            out.mux(p)
    return buf.getvalue()


def wav_s16(rate, channels, seconds=0.05):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((tone(rate, seconds, channels).T * 32767).astype("<i2").tobytes())
    return buf.getvalue()


def audio_seeds():
    write("audio_wav", "s16-mono-16k.wav", wav_s16(16000, 1))
    write("audio_wav", "s16-stereo-8k.wav", wav_s16(8000, 2))
    write("audio_wav", "f32-mono-22k.wav", encode("wav", "pcm_f32le", 22050, 1, 0.05))
    write("audio_wav", "u8-mono-8k.wav", encode("wav", "pcm_u8", 8000, 1, 0.05))
    write("audio_mp3", "mono-16k.mp3", encode("mp3", "libmp3lame", 16000, 1))
    write("audio_mp3", "stereo-44k.mp3", encode("mp3", "libmp3lame", 44100, 2))
    write("audio_mp3", "mono-8k.mp3", encode("mp3", "libmp3lame", 8000, 1, 0.2))
    write("audio_flac", "mono-16k.flac", encode("flac", "flac", 16000, 1, 0.05))
    write("audio_flac", "stereo-44k.flac", encode("flac", "flac", 44100, 2, 0.02))
    write("audio_flac", "mono-8k.flac", encode("flac", "flac", 8000, 1, 0.1))
    write("audio_ogg", "opus-mono-48k.opus", encode("ogg", "libopus", 48000, 1))
    write("audio_ogg", "opus-stereo-48k.opus", encode("ogg", "libopus", 48000, 2))
    # FFmpeg's own Vorbis encoder (the wheels carry no libvorbis) is marked experimental.
    write("audio_ogg", "vorbis-stereo-22k.ogg", encode("ogg", "vorbis", 22050, 2, 0.2, strict="experimental"))
    write("audio_webm", "opus-mono.webm", encode("webm", "libopus", 48000, 1))
    write("audio_webm", "opus-stereo.webm", encode("webm", "libopus", 48000, 2))
    write("audio_webm", "opus-mono-short.webm", encode("webm", "libopus", 48000, 1, 0.04))
    write("audio_m4a", "aac-mono-16k.m4a", encode("mp4", "aac", 16000, 1))
    write("audio_m4a", "aac-stereo-44k.m4a", encode("mp4", "aac", 44100, 2))
    write("audio_m4a", "aac-mono-22k.m4a", encode("ipod", "aac", 22050, 1, 0.2))


def form(fields, file=None, filename="a.wav", content_type="audio/wav"):
    parts = []
    for name, value in fields:
        parts.append(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    if file is not None:
        head = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
            f"Content-Type: {content_type}\r\n\r\n"
        )
        parts.append(head.encode() + file + b"\r\n")
    parts.append(f"--{BOUNDARY}--\r\n".encode())
    return b"".join(parts)


def multipart_seeds():
    wav = wav_s16(16000, 1, 0.02)
    write("multipart", "json", form([("model", "whisper-tiny.en")], wav))
    write("multipart", "openai-name", form([("model", "whisper-1"), ("response_format", "text")], wav))
    write(
        "multipart",
        "verbose-words",
        form(
            [
                ("model", "whisper-tiny.en"),
                ("response_format", "verbose_json"),
                ("timestamp_granularities[]", "word"),
                ("timestamp_granularities[]", "segment"),
                ("language", "en"),
                ("temperature", "0.5"),
                ("prompt", "Beckett."),
            ],
            wav,
        ),
    )
    write("multipart", "stream", form([("model", "whisper-tiny.en"), ("stream", "true")], wav))
    write("multipart", "srt", form([("model", "whisper-tiny.en"), ("response_format", "srt")], wav))
    write("multipart", "vtt-flac", form([("model", "whisper-tiny.en"), ("response_format", "vtt")],
                                         encode("flac", "flac", 16000, 1, 0.02), "a.flac", "audio/flac"))
    write("multipart", "no-file", form([("model", "whisper-tiny.en")]))


COMPLETIONS = [
    {"model": "qwen3", "prompt": "Hello", "max_tokens": 4},
    {"model": "qwen3", "prompt": ["a", "b"], "max_tokens": 2, "n": 2, "best_of": 2, "temperature": 0.5},
    {"model": "qwen3", "prompt": [1, 2, 3], "stop": ["\n", "x"], "logprobs": 2, "echo": True, "seed": 7},
    {"model": "qwen3", "prompt": "x", "stream": True, "stream_options": {"include_usage": True}, "logit_bias": {"5": -100}},
    {"model": "qwen3", "prompt": "x", "top_p": 0.5, "top_k": 3, "min_p": 0.1, "presence_penalty": 1.5,
     "frequency_penalty": -1, "repetition_penalty": 1.2, "response_format": {"type": "json_object"}},
]
CHAT = [
    {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4},
    {"model": "qwen3", "messages": [{"role": "system", "content": "Be brief."},
                                     {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                                     {"role": "assistant", "content": "Hello"},
                                     {"role": "user", "content": "Again"}], "stream": True, "logprobs": True, "top_logprobs": 2},
    {"model": "qwen3", "messages": [{"role": "user", "content": "Weather?"}],
     "tools": [{"type": "function", "function": {"name": "get_weather", "description": "d",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
     "tool_choice": "required"},
    {"model": "qwen3", "messages": [{"role": "user", "content": "JSON"}],
     "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {
         "type": "object", "properties": {"n": {"type": "integer", "minimum": 0}, "s": {"enum": ["a", "b"]}}}}}},
    {"model": "qwen3", "messages": [{"role": "user", "content": "r"}], "structured_outputs": {"regex": "[a-z]{1,5}"},
     "max_completion_tokens": 3},
    {"model": "qwen3", "messages": [{"role": "user", "content": "call"},
                                     {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                      "function": {"name": "f", "arguments": "{}"}}]},
                                     {"role": "tool", "tool_call_id": "c1", "content": "42"}]},
]
SPEECH = [
    {"model": "tts-1", "voice": "joe", "input": "Hello there."},
    {"model": "tts-1", "voice": "alloy", "input": "Hi. Yes?", "response_format": "wav", "speed": 1.5},
    {"model": "gpt-4o-mini-tts", "voice": "joe", "input": "One, two.", "response_format": "opus", "stream_format": "sse"},
    {"model": "tts-1", "voice": "joe", "input": "x", "response_format": "pcm", "instructions": "calm"},
]
TOKENIZE = [
    {"model": "qwen3", "prompt": "Hello world"},
    {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": True},
    {"model": "qwen3", "prompt": "a", "add_special_tokens": False, "return_token_strs": True},
]
DETOKENIZE = [
    {"model": "qwen3", "tokens": [1, 2, 3]},
    {"model": "qwen3", "tokens": []},
    {"model": "qwen3", "tokens": [0, 383]},
]

EMBEDDINGS = [
    {"model": "embed", "input": "Hello world"},
    {"model": "embed", "input": ["a", "b c"], "encoding_format": "base64", "dimensions": 8},
    {"model": "embed", "input": [[1, 2, 3], [383]], "user": "u"},
]


def http_json_seeds():
    # The first byte picks the route, in fuzz/harness.rs JSON_ROUTES order.
    for route, bodies in enumerate([COMPLETIONS, CHAT, SPEECH, TOKENIZE, DETOKENIZE, EMBEDDINGS]):
        for i, body in enumerate(bodies):
            write("http_json", f"{route}-{i}", bytes([route]) + json.dumps(body).encode())


def speech_text_seeds():
    texts = {
        "plain": "Hello there. How are you today?",
        "control": "Ring\x07 the\x00 bell\x1b[31m now\u008b.",
        "symbols": "\u00ae\U00016471\u008b",
        "punctuation": "... !? ... ;;; ---",
        "one-symbol-4096": "a" * 4096,
        "emoji-1000": "\U0001f600" * 1000,
        "mixed-scripts": "Hello \u041f\u0440\u0438\u0432\u0435\u0442 \u4f60\u597d \u0645\u0631\u062d\u0628\u0627 "
        "\u05e9\u05dc\u05d5\u05dd \u0928\u092e\u0938\u094d\u0924\u0947 \u3053\u3093\u306b\u3061\u306f.",
        "numbers": "$1,234.56 on 12/07/2026 at 3:45pm, 1st of 10,000,000 (3.14159%).",
        "abbreviations": "Dr. Smith met Mr. Jones at 5 a.m. on St. James St. e.g. i.e. etc.",
        "no-punctuation-long": " ".join(["word"] * 800),
        "combining": "e\u0301\u0301\u0301\u0301 Z\u0351\u0367\u0311\u0300\u0352\u0346 a\u20dd",
        "ssml": "<speak>Hello <break time='1s'/> world</speak>",
    }
    for name, text in texts.items():
        write("speech_text", name, text)


def safetensors_file(tensors, metadata=None):
    header, data = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def safetensors_seeds():
    f32 = np.arange(4, dtype="<f4").tobytes()
    f16 = np.arange(6, dtype="<f2").tobytes()
    write("safetensors", "f32", safetensors_file({"w": ("F32", [2, 2], f32)}, {"format": "pt"}))
    write("safetensors", "f16-bf16", safetensors_file({
        "a": ("F16", [2, 3], f16),
        "b": ("BF16", [3], (np.arange(3, dtype="<f4").view("<u4") >> 16).astype("<u2").tobytes()),
    }))
    write("safetensors", "i8-empty", safetensors_file({"q": ("I8", [4], bytes([1, 255, 3, 128])),
                                                       "e": ("F32", [0, 3], b"")}))


def gguf_seeds():
    fixture = os.path.join(ROOT, "src", "gguf", "testdata", "dequant_fixture.gguf")
    d = os.path.join(CORPUS, "gguf_parse")
    os.makedirs(d, exist_ok=True)
    shutil.copy(fixture, os.path.join(d, "seed-dequant-fixture.gguf"))
    with open(fixture, "rb") as f:
        write("gguf_parse", "truncated.gguf", f.read()[:1024])

    def kv_str(key, value):
        k, v = key.encode(), value.encode()
        return struct.pack("<Q", len(k)) + k + struct.pack("<I", 8) + struct.pack("<Q", len(v)) + v

    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + kv_str("general.architecture", "llama")
    write("gguf_parse", "header-only.gguf", head)


if __name__ == "__main__":
    audio_seeds()
    multipart_seeds()
    http_json_seeds()
    speech_text_seeds()
    safetensors_seeds()
    gguf_seeds()
    for t in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, t))
        size = sum(os.path.getsize(os.path.join(CORPUS, t, f)) for f in files)
        print(f"{t}: {len(files)} files, {size} bytes")
