"""POST /v1/audio/speech through the official OpenAI SDK: every response_format decodes
with a standard decoder (libsndfile via `soundfile`; raw s16le for pcm) to the same duration
as the PCM (within one codec frame), the audio is neither silent nor clipped and has the
voice's rate, a streamed WAV decodes from its first chunk, SSE events parse with the SDK's
SSE decoder, and bad input answers 400 naming the parameter."""

import base64
import io
import json
import wave

import numpy as np
import openai
import pytest
import requests
from openai._streaming import SSEDecoder

from audio_util import CONTENT_TYPE, DECODED_RATE, RATE, check_audio, decode

# Short sentences: on software Vulkan (CI) a second of audio costs ~20 s of decoder time.
TEXT = "Hi. Yes."
# One codec frame, in samples of the decoded rate: FLAC/WAV/PCM are sample-exact; an Ogg
# Opus file records its exact length in the granule positions (one 20 ms frame allowed).
FRAME = {"wav": 1, "pcm": 1, "flac": 1, "opus": 0.020 * DECODED_RATE["opus"]}
# MP3 cannot be streamed with LAME's gapless tag (it is written last, at the file's start),
# so a decoder sees LAME's 576-sample encoder delay, its own 529-sample delay unless it
# removes it, and up to two 576-sample frames of padding from the final flush.
MP3_EXTRA = 576 + 529 + 2 * 576


def wav_samples(data):
    with wave.open(io.BytesIO(data)) as w:
        assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2
        # Streamed WAV: the header says "unknown length", so read to the end.
        frames = w.readframes(1 << 30)
    # A chunk cut by the network may end mid-sample.
    return np.frombuffer(frames[: len(frames) // 2 * 2], dtype="<i2")


FORMATS = ["pcm", "mp3", "opus", "flac", "wav"]


@pytest.fixture(scope="module")
def streamed(client):
    """Each format once, read as a stream: {fmt: (headers, [chunks])}. mp3 is asked for by
    leaving response_format out (OpenAI's default); flac comes as SSE (its chunks are the
    base64-decoded `speech.audio.delta` events, parsed by the SDK's SSE decoder). One synthesis
    per format: on lavapipe each costs tens of seconds, so every format test below reads these."""
    out = {}
    for fmt in FORMATS:
        kw = {} if fmt == "mp3" else {"response_format": fmt}
        if fmt == "flac":
            kw["stream_format"] = "sse"
        with client.audio.speech.with_streaming_response.create(model="piper", voice="joe", input=TEXT, **kw) as r:
            if fmt == "flac":
                assert r.headers["content-type"].startswith("text/event-stream")
                assert r.headers["x-sample-rate"] == str(RATE)  # the deltas carry no rate of their own
                events = [json.loads(e.data) for e in SSEDecoder().iter_bytes(r.iter_bytes()) if e.data]
                assert events[-1]["type"] == "speech.audio.done"
                assert all(e["type"] == "speech.audio.delta" for e in events[:-1])
                u = events[-1]["usage"]
                assert u["total_tokens"] == u["input_tokens"] + u["output_tokens"] and u["input_tokens"] > 0
                chunks = [base64.b64decode(e["audio"]) for e in events[:-1]]
                out[fmt] = ({"content-type": CONTENT_TYPE[fmt], "x-sample-rate": str(RATE)}, chunks, u)
            else:
                out[fmt] = (r.headers, [c for c in r.iter_bytes(chunk_size=None) if c], None)
    return out


@pytest.fixture(scope="module")
def reference_pcm(streamed):
    headers, chunks, _ = streamed["pcm"]
    assert headers["x-sample-rate"] == str(RATE)
    x, _ = decode("pcm", b"".join(chunks))
    check_audio(x, RATE, "pcm")
    return x


def test_voices_list(base_url):
    r = requests.get(base_url + "/v1/audio/voices", headers={"Authorization": "Bearer unused"})
    assert r.status_code == 200
    v = r.json()["data"]
    assert [x["id"] for x in v] == ["joe"] and v[0]["sample_rate"] == RATE
    assert v[0]["formats"] == ["mp3", "opus", "flac", "wav", "pcm"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_streams_and_decodes_to_the_pcm_duration(streamed, reference_pcm, fmt):
    headers, chunks, usage = streamed[fmt]
    assert headers["content-type"] == CONTENT_TYPE[fmt]
    assert headers["x-sample-rate"] == str(RATE)
    # Two sentences: the first sentence's bytes left before the second was synthesized.
    assert len(chunks) >= 2, f"{fmt}: the body came in one piece"
    x, rate = decode(fmt, b"".join(chunks))
    assert rate == DECODED_RATE[fmt], f"{fmt}: decoded at {rate} Hz"
    check_audio(x, rate, fmt)
    want = len(reference_pcm) * rate / RATE
    if fmt == "mp3":
        assert want <= len(x) <= want + MP3_EXTRA, f"mp3: {len(x)} samples for {want}"
    else:
        assert abs(len(x) - want) <= FRAME[fmt], f"{fmt}: {len(x)} samples for {want:.1f}"
    if fmt in ("wav", "flac", "pcm"):
        # Lossless and the same seed: the very samples of the PCM response.
        assert np.array_equal(np.round(x * 32768), np.round(reference_pcm * 32768)), fmt
    if usage is not None:
        # SSE usage: output_tokens counts samples at the voice's rate.
        assert usage["output_tokens"] == len(reference_pcm), usage


def test_streamed_wav_plays_from_its_first_chunk(streamed, reference_pcm):
    _, chunks, _ = streamed["wav"]
    first = chunks[0]
    assert first[:4] == b"RIFF" and first[8:12] == b"WAVE"
    head = wav_samples(first)
    assert len(head) > 0
    w = wav_samples(b"".join(chunks))
    assert np.array_equal(w[: len(head)], head)
    assert np.array_equal(w, np.round(reference_pcm * 32768).astype("<i2"))


def test_speed_changes_duration(client):
    slow = client.audio.speech.create(model="piper", voice="joe", input="Hi.", response_format="pcm", speed=0.5)
    fast = client.audio.speech.create(model="piper", voice="joe", input="Hi.", response_format="pcm", speed=2.0)
    # Durations are ceil(w * length_scale) per phoneme (at least one frame each), so not exactly 4x.
    assert len(slow.content) > 1.8 * len(fast.content)


@pytest.mark.parametrize(
    "kw,param",
    [
        ({"input": ""}, "input"),
        ({"input": "x" * 4097}, "input"),
        ({"voice": "nobody"}, "voice"),  # OpenAI's names (alloy, ...) map to voices: not unknown
        ({"speed": 0.1}, "speed"),
        ({"speed": 4.5}, "speed"),
        ({"response_format": "aac"}, "response_format"),
        ({"response_format": "ogg-vorbis"}, "response_format"),
    ],
)
def test_bad_input_is_400_with_param(client, kw, param):
    args = {"model": "piper", "voice": "joe", "input": "Hello.", "response_format": "wav", **kw}
    with pytest.raises(openai.BadRequestError) as e:
        client.audio.speech.create(**args)
    assert e.value.status_code == 400
    assert e.value.body["param"] == param, e.value.body


# Symbols espeak has no phoneme for, a control character, punctuation: nothing to voice.
UNVOICEABLE = ["\u00ae\U00016471\u008b", "... !? ..."]


@pytest.mark.parametrize("text", UNVOICEABLE)
@pytest.mark.parametrize("fmt", FORMATS)
def test_nothing_to_voice_is_a_silent_file(client, text, fmt):
    """A reader falls silent on such input: a file with no samples (MP3: LAME's final flush, silent)
    that the standard decoder reads, not an error."""
    data = client.audio.speech.create(model="piper", voice="joe", input=text, response_format=fmt).content
    x, rate = decode(fmt, data)
    assert rate == DECODED_RATE[fmt]
    assert len(x) <= (MP3_EXTRA if fmt == "mp3" else 0), f"{fmt}: {len(x)} samples"
    assert not np.any(np.abs(x) > 1e-4), f"{fmt}: not silent"


def test_nothing_to_voice_streams_only_the_done_event(base_url):
    r = requests.post(
        base_url + "/v1/audio/speech",
        json={"model": "piper", "voice": "joe", "input": UNVOICEABLE[0], "response_format": "wav", "stream_format": "sse"},
        stream=True,
        timeout=300,
    )
    assert r.status_code == 200
    events = [json.loads(e.data) for e in SSEDecoder().iter_bytes(r.iter_content(chunk_size=None)) if e.data]
    assert events[-1]["type"] == "speech.audio.done", events
    assert events[-1]["usage"]["input_tokens"] == 0 and events[-1]["usage"]["output_tokens"] == 0, events
    audio = b"".join(base64.b64decode(e["audio"]) for e in events[:-1])
    x, _ = decode("wav", audio)
    assert len(x) == 0
