"""POST /v1/audio/transcriptions with Moonshine through the official OpenAI
SDK, plain and streamed, the model chosen by the request's `model` field
(the server also serves a second speech model). Driven by
tests/http_moonshine.rs (GERBIL_BASE_URL, GERBIL_API_KEY, GERBIL_STT_MODEL,
GERBIL_OTHER_STT_MODEL, GERBIL_BECKETT)."""

import os
import re

import openai
import pytest
import requests

BECKETT = "Ever tried. Ever failed. No matter. Try again. Fail again. Fail better."


def words(t):
    return re.sub(r"[^a-z0-9' ]", " ", t.lower()).split()


def wer(ref, hyp):
    r, h = words(ref), words(hyp)
    d = list(range(len(h) + 1))
    for i, rw in enumerate(r):
        prev, d[0] = d[0], i + 1
        for j, hw in enumerate(h):
            cur = min(d[j + 1] + 1, d[j] + 1, prev + (rw != hw))
            prev, d[j + 1] = d[j + 1], cur
    return d[len(h)] / len(r)


@pytest.fixture(scope="session")
def base_url():
    return os.environ["GERBIL_BASE_URL"].rstrip("/")


@pytest.fixture(scope="session")
def client(base_url):
    return openai.OpenAI(base_url=base_url + "/v1", api_key=os.environ["GERBIL_API_KEY"], max_retries=0, timeout=600)


@pytest.fixture(scope="session")
def model():
    return os.environ["GERBIL_STT_MODEL"]


@pytest.fixture(scope="session")
def beckett():
    return os.environ["GERBIL_BECKETT"]


def test_plain_json(client, model, beckett):
    with open(beckett, "rb") as f:
        tr = client.audio.transcriptions.create(model=model, file=f)
    assert wer(BECKETT, tr.text) <= 0.10, tr.text


def test_streamed(client, model, beckett):
    with open(beckett, "rb") as f:
        stream = client.audio.transcriptions.create(model=model, file=f, stream=True)
        deltas, done = [], None
        for ev in stream:
            if ev.type == "transcript.text.delta":
                deltas.append(ev.delta)
            elif ev.type == "transcript.text.done":
                done = ev
    assert deltas and done is not None
    assert wer(BECKETT, done.text) <= 0.10, done.text
    assert "".join(deltas).strip() == done.text.strip()


def test_unknown_model_is_404_and_bad_language_400(base_url, client, model, beckett):
    # The server's first speech model is Whisper: Moonshine's answers above come from
    # the `model` field's choice. An unknown model is a 404 naming `model`.
    with open(beckett, "rb") as f:
        r = requests.post(
            base_url + "/v1/audio/transcriptions",
            headers={"Authorization": "Bearer " + os.environ["GERBIL_API_KEY"]},
            files={"file": ("b.wav", f, "audio/wav")},
            data={"model": "no-such-model"},
            timeout=60,
        )
    assert r.status_code == 404, r.text
    assert r.json()["error"]["param"] == "model", r.text
    # A language Moonshine (English only) cannot do is refused before any work.
    with open(beckett, "rb") as f:
        with pytest.raises(openai.BadRequestError) as e:
            client.audio.transcriptions.create(model=model, file=f, language="de")
    assert e.value.body["param"] == "language", e.value.body


def test_word_timestamps_are_refused_with_the_param(client, model, beckett):
    # Moonshine has no alignment heads: word timing is a Whisper feature here, said up front.
    with open(beckett, "rb") as f:
        with pytest.raises(openai.BadRequestError) as e:
            client.audio.transcriptions.create(
                model=model, file=f, response_format="verbose_json", timestamp_granularities=["word"]
            )
    assert e.value.body["param"] == "timestamp_granularities[]", e.value.body
