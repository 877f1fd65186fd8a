"""Decoding and checks shared by the speech suites: every response_format is read by a
standard decoder (libsndfile through `soundfile`: WAV, FLAC, MP3 via mpg123, Ogg Opus via
libopus; raw s16le for pcm)."""

import io

import numpy as np
import soundfile
from soundfile import _ffi, _snd

RATE = 22050
# Piper produces 22.05 kHz. Opus decodes at one of its own rates: libsndfile picks the
# smallest one at or above OpusHead's input rate, 24 kHz here (libopus itself would give 48).
DECODED_RATE = {"mp3": RATE, "opus": 24000, "flac": RATE, "wav": RATE, "pcm": RATE}
CONTENT_TYPE = {
    "mp3": "audio/mpeg",
    "opus": "audio/ogg; codecs=opus",
    "flac": "audio/flac",
    "wav": "audio/wav",
    "pcm": "audio/pcm",
}


def decode(fmt, data):
    """(float samples in [-1, 1], rate) through a standard decoder."""
    if fmt == "pcm":
        return np.frombuffer(data[: len(data) // 2 * 2], dtype="<i2").astype(np.float64) / 32768, RATE
    with soundfile.SoundFile(io.BytesIO(data)) as f:
        assert f.channels == 1, f"{fmt}: {f.channels} channels"
        if f.frames < 2**62:
            return f.read(dtype="float64"), f.samplerate
        # A streamed FLAC's STREAMINFO says "length unknown" (it is written before the audio
        # exists); libsndfile then reports SF_COUNT_MAX frames, and soundfile's read() would
        # allocate that and seek past each block. Read with libsndfile's own call to the end.
        out = []
        while True:
            buf = np.empty(1 << 16)
            n = _snd.sf_readf_double(f._file, _ffi.cast("double *", buf.ctypes.data), len(buf))
            if n <= 0:
                break
            out.append(buf[:n])
        # (FLAC's "total samples" of 0 also means unknown: a file with no audio reads as none.)
        return (np.concatenate(out) if out else np.zeros(0)), f.samplerate


def check_audio(x, rate, what=""):
    """Not silent, not clipped (< 1% of samples at full scale), at least 0.2 s long."""
    assert len(x) > rate // 5, f"{what}: only {len(x)} samples"
    rms = float(np.sqrt((x**2).mean()))
    assert rms > 0.01, f"{what}: silent (rms {rms})"
    clipped = float((np.abs(x) > 0.999).mean())
    assert clipped < 0.01, f"{what}: {clipped:.2%} of samples at full scale"
    return rms
