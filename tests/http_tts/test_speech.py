"""POST /v1/audio/speech through the official OpenAI SDK: every supported response_format
decodes with a standard decoder (the stdlib `wave` module; raw s16le for pcm) to the same
duration, the audio is neither silent nor clipped and has the voice's rate, SSE events
parse, and bad input answers 400 naming the parameter."""

import base64
import io
import json
import wave

import numpy as np
import openai
import pytest
import requests

# Short sentences: on software Vulkan (CI) a second of audio costs ~20 s of decoder time.
TEXT = "Hi there. Yes."
RATE = 22050


def wav_samples(data):
    with wave.open(io.BytesIO(data)) as w:
        assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2
        # Streamed WAV: the header says "unknown length", so read to the end.
        frames = w.readframes(1 << 30)
    # A chunk cut by the network may end mid-sample.
    return np.frombuffer(frames[: len(frames) // 2 * 2], dtype="<i2")


def check_audio(s):
    x = s.astype(np.float64) / 32768
    assert len(x) > RATE // 5, f"only {len(x)} samples"
    rms = np.sqrt((x**2).mean())
    assert rms > 0.01, f"silent (rms {rms})"
    assert (np.abs(x) > 0.999).mean() < 1e-3, "clipped"


def test_voices_list(base_url):
    r = requests.get(base_url + "/v1/audio/voices", headers={"Authorization": "Bearer unused"})
    assert r.status_code == 200
    v = r.json()["data"]
    assert [x["id"] for x in v] == ["joe"] and v[0]["sample_rate"] == RATE


def test_formats_decode_to_the_same_duration_and_wav_streams(client):
    # The WAV is read as a stream: its first chunk must decode on its own.
    with client.audio.speech.with_streaming_response.create(
        model="piper", voice="joe", input=TEXT, response_format="wav"
    ) as r:
        assert r.headers["content-type"] == "audio/wav"
        chunks = [c for c in r.iter_bytes(chunk_size=None) if c]
    first = chunks[0]
    assert first[:4] == b"RIFF" and first[8:12] == b"WAVE"
    head = wav_samples(first)
    assert len(head) > 0
    w = wav_samples(b"".join(chunks))
    check_audio(w)
    assert np.array_equal(w[: len(head)], head)
    pcm_resp = client.audio.speech.with_raw_response.create(model="piper", voice="joe", input=TEXT, response_format="pcm")
    assert pcm_resp.headers["x-sample-rate"] == str(RATE)
    pcm = np.frombuffer(pcm_resp.content, dtype="<i2")
    check_audio(pcm)
    # Same seed, same text: the same samples, so the same duration to the frame.
    assert abs(len(w) - len(pcm)) <= 1
    assert np.array_equal(w[: len(pcm)], pcm[: len(w)])


def test_speed_changes_duration(client):
    slow = client.audio.speech.create(model="piper", voice="joe", input="Hi.", response_format="pcm", speed=0.5)
    fast = client.audio.speech.create(model="piper", voice="joe", input="Hi.", response_format="pcm", speed=2.0)
    # Durations are ceil(w * length_scale) per phoneme (at least one frame each), so not exactly 4x.
    assert len(slow.content) > 1.8 * len(fast.content)


def test_sse_events(base_url):
    body = {"model": "piper", "voice": "joe", "input": TEXT, "response_format": "pcm", "stream_format": "sse"}
    r = requests.post(base_url + "/v1/audio/speech", json=body, stream=True, headers={"Authorization": "Bearer unused"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = [json.loads(line[6:]) for line in r.iter_lines(decode_unicode=True) if line.startswith("data: ")]
    deltas = [e for e in events if e["type"] == "speech.audio.delta"]
    assert len(deltas) >= 2, "one delta per sentence"
    assert events[-1]["type"] == "speech.audio.done"
    audio = np.frombuffer(b"".join(base64.b64decode(d["audio"]) for d in deltas), dtype="<i2")
    check_audio(audio)
    u = events[-1]["usage"]
    assert u["output_tokens"] == len(audio) and u["total_tokens"] == u["input_tokens"] + u["output_tokens"]


@pytest.mark.parametrize(
    "kw,param",
    [
        ({"input": ""}, "input"),
        ({"input": "x" * 4097}, "input"),
        ({"voice": "alloy"}, "voice"),
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
