"""Reference word timestamps for beckett.wav from transformers (Whisper tiny.en in the HF layout that
tools/convert_ct2_whisper.py writes): the ASR pipeline with return_timestamps="word". Its output (run where torch is installed)
is committed as tests/fixtures/whisper/beckett_word_times_hf.json for tests/models_whisper_real.rs.
Usage: python3 tools/whisper_word_reference.py MODEL_DIR beckett.wav > out.json"""
import json, sys, wave
import numpy as np, torch
from transformers import WhisperForConditionalGeneration, WhisperFeatureExtractor, WhisperTokenizerFast, pipeline
d = sys.argv[1]
w = wave.open(sys.argv[2]); a = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768
model = WhisperForConditionalGeneration.from_pretrained(d, torch_dtype=torch.float32)
fe = WhisperFeatureExtractor.from_pretrained(d)
tok = WhisperTokenizerFast(tokenizer_file=d + "/tokenizer.json")
out = {}
try:
    asr = pipeline("automatic-speech-recognition", model=model, tokenizer=tok, feature_extractor=fe, device="cpu")
    r = asr({"raw": a, "sampling_rate": 16000}, return_timestamps="word")
    out["pipeline"] = [{"word": c["text"], "start": c["timestamp"][0], "end": c["timestamp"][1]} for c in r["chunks"]]
    out["text"] = r["text"]
except Exception as e:
    out["pipeline_error"] = repr(e)
print(json.dumps(out, indent=1))
