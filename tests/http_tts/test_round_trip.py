"""Piper -> Whisper round trip through the server's own endpoints, with real weights: the
`joe` voice speaks five fixed sentences (SDK `audio.speech.create` and
`with_streaming_response`), the server's Whisper tiny.en transcribes each
(`audio.transcriptions.create`), every other request under OpenAI's names (voice `alloy`,
model `whisper-1`), and the normalized word error rate over all five must be
at most 10%. Runs only when GERBIL_STT_MODEL names a loaded model (tests/http_speech.rs
`speech_whisper_round_trip` sets it)."""

import os
import re

import pytest

from audio_util import RATE, check_audio, decode

STT_MODEL = os.environ.get("GERBIL_STT_MODEL")
pytestmark = pytest.mark.skipif(not STT_MODEL, reason="needs a server with Whisper (GERBIL_STT_MODEL)")

# Short (about 2 s each), plain words, one digit to exercise number normalization.
SENTENCES = [
    "The cat sat on the mat.",
    "Please open the window.",
    "I would like a cup of tea.",
    "The train leaves at 7 today.",
    "We walked home in the rain.",
]

NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def normalize(text):
    """Lowercase, digits spelled out (0-12, all these sentences use), punctuation removed."""
    text = text.lower().replace("'", "")
    text = re.sub(r"\d+", lambda m: NUMBERS[int(m.group())] if int(m.group()) < len(NUMBERS) else m.group(), text)
    return re.sub(r"[^a-z0-9 ]+", " ", text).split()


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, y in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (x != y))
    return d[len(b)]


def test_normalizer_and_wer_can_fail():
    assert normalize("The train leaves at 7, today!") == "the train leaves at seven today".split()
    assert edit_distance("a b c".split(), "a x c d".split()) == 2


def test_piper_speech_is_transcribed_by_whisper(client):
    # Whisper's 30 s window costs minutes on lavapipe: give each transcription 30 minutes.
    client = client.with_options(timeout=1800)
    errors = words = 0
    for i, sentence in enumerate(SENTENCES):
        # Alternate the SDK's two ways of reading the body; the audio is the same either way
        # (same seed), which the pcm/wav suite checks sample for sample.
        # The odd ones use OpenAI's names (tts-1 / alloy, whisper-1), as an OpenAI client sends them.
        if i % 2 == 0:
            wav = client.audio.speech.create(model="piper", voice="joe", input=sentence, response_format="wav").content
        else:
            with client.audio.speech.with_streaming_response.create(
                model="tts-1", voice="alloy", input=sentence, response_format="wav"
            ) as r:
                wav = b"".join(r.iter_bytes())
        x, rate = decode("wav", wav)
        assert rate == RATE
        check_audio(x, rate, sentence)
        assert len(x) <= 4 * RATE, f"{len(x) / RATE:.1f} s for a short sentence"
        stt = STT_MODEL if i % 2 == 0 else "whisper-1"
        text = client.audio.transcriptions.create(model=stt, file=(f"s{i}.wav", wav, "audio/wav")).text
        ref, hyp = normalize(sentence), normalize(text)
        e = edit_distance(ref, hyp)
        print(f"{len(x) / RATE:.2f} s  {sentence!r} -> {text!r}  ({e} errors / {len(ref)} words)")
        errors += e
        words += len(ref)
    wer = errors / words
    print(f"WER {wer:.1%} ({errors}/{words})")
    assert wer <= 0.10, f"WER {wer:.1%}"
