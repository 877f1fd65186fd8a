#!/usr/bin/env python3
"""Tiny OuteTTS 1.0 fixtures (a Llama backbone that writes DAC codes + the DAC decoder).

    /work/venv/bin/python tools/make_fixtures_outetts.py --out tests/fixtures/outetts

Writes
  dac/      a random transformers `DacModel` (2 codebooks of 64 codes, upsampling 5 x 2, weight norm
            left in the checkpoint: some layers as `parametrizations.weight.original0/1`, some as
            `weight_g/weight_v`, the two layouts found on the hub), config.json, and reference.safetensors:
            codes [2, T] -> audio [T * hop - 2] through `DacModel.decode(audio_codes=...)`.
  llama/    a random LlamaForCausalLM with an OuteTTS-shaped tokenizer (the special tokens of outetts'
            v3 `SpecialTokens` and the audio tokens <|c1_N|>, <|c2_N|> for N < 64), reference.safetensors:
            the v3 completion prompt with speaker.json, its ids, transformers' greedy continuation, the
            c1/c2 codes parsed from it and the audio the DAC makes of them.
  speaker.json   an OuteTTS v3 speaker profile (text, words with duration, features, c1, c2).

The prompt builder below mirrors outetts/version/v3/prompt_processor.py (`get_completion_prompt`);
src/models/outetts/prompt.rs is the Rust twin and the test compares both through the token ids.
Everything is seeded; nothing is fetched. Versions: tools/requirements-fixtures.txt.
"""

import argparse
import json
import os
import re
import shutil

import torch

torch.set_num_threads(2)
torch.use_deterministic_algorithms(True)

import safetensors.torch  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers  # noqa: E402
from transformers import DacConfig, DacModel, LlamaConfig, LlamaForCausalLM  # noqa: E402

CODEBOOK = 64
N_GEN = 40
PROMPT_TEXT = "Hello  world, \u201cthis\u201d is a small test\u2026"

# outetts v3 SpecialTokens
BOS, EOS = "<|im_start|>", "<|im_end|>"
TEXT_START, TEXT_END = "<|text_start|>", "<|text_end|>"
AUDIO_START, AUDIO_END = "<|audio_start|>", "<|audio_end|>"
WORD_START, WORD_END = "<|word_start|>", "<|word_end|>"
FEATURES, CODE = "<|features|>", "<|code|>"
GF_START, GF_END = "<|global_features_start|>", "<|global_features_end|>"

PARAGRAPH = (
    "Hello world, this is a small test of a text to speech model. The quick brown fox jumps over "
    "the lazy dog. Every morning the old fisherman walks to the river and listens to the water."
)


def special_tokens():
    toks = [BOS, EOS, TEXT_START, TEXT_END, AUDIO_START, AUDIO_END, WORD_START, WORD_END, FEATURES, CODE,
            GF_START, GF_END]
    toks += [f"<|t_{i / 100:.2f}|>" for i in range(0, 201)]
    for k in ("energy", "spectral_centroid", "pitch"):
        toks += [f"<|{k}_{i}|>" for i in range(0, 101)]
    toks += [f"<|c1_{i}|>" for i in range(CODEBOOK)]
    toks += [f"<|c2_{i}|>" for i in range(CODEBOOK)]
    return toks


def build_tokenizer(folder):
    specials = special_tokens()
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=len(specials) + 300, min_frequency=1, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator([PARAGRAPH], trainer=trainer)
    tok.save(os.path.join(folder, "tokenizer.json"))
    cfg = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "add_bos_token": False,
        "add_eos_token": False,
        "bos_token": BOS,
        "eos_token": EOS,
        "pad_token": EOS,
        "clean_up_tokenization_spaces": False,
        "model_max_length": 1024,
    }
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    return tok


# ---------------------------------------------------------------------------
# outetts v3 prompt processor (get_completion_prompt), mirrored
# ---------------------------------------------------------------------------

def text_normalizations(text):
    text = re.sub(r"\s+", " ", text)
    text = text.replace("\u2026", "...")
    text = text.strip()
    text = re.sub(r"[\u201c\u201d]", '"', text)
    text = re.sub(r"[\u2018\u2019]", "'", text)
    text = re.sub(r"[\u2013\u2014]", "-", text)
    text = re.sub(r"[\x00-\x1F\x7F-\x9F]", "", text)
    return text


def separator(text):
    cjk = any("\u3040" <= c <= "\u309f" or "\u30a0" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in text)
    return "\u3002" if cjk else ". "


def merge_speaker_text(input_text, speaker_text):
    speaker_text = speaker_text.strip()
    sep = separator(speaker_text)
    allowed = ["\u3002", "\uff1f", "\uff01", "?", "!"] if sep == "\u3002" else [".", "?", "!"]
    rs = ""
    if speaker_text:
        if speaker_text[-1] not in allowed:
            rs = sep
        elif sep != "\u3002":
            rs = " "
    return speaker_text.strip() + rs + input_text.strip(), rs.strip()


def features(f):
    return "".join(f"<|{k}_{f.get(k, 0)}|>" for k in ("energy", "spectral_centroid", "pitch"))


def create_codes(words):
    out = []
    for w in words:
        s = w["word"] + FEATURES + f"<|t_{w['duration']:.2f}|>" + features(w["features"])
        s += CODE + "".join(f"<|c1_{a}|><|c2_{b}|>" for a, b in zip(w["c1"], w["c2"]))
        out.append(WORD_START + s + WORD_END)
    return "\n".join(out)


def completion_prompt(text, speaker):
    text = text_normalizations(text)
    if speaker is not None:
        speaker = json.loads(json.dumps(speaker))
        text, sep = merge_speaker_text(text, speaker["text"])
        speaker["words"][-1]["word"] += sep
        codes = create_codes(speaker["words"])
    prompt = f"{BOS}\n{TEXT_START}{text}{TEXT_END}\n{AUDIO_START}\n"
    if speaker is not None:
        prompt += codes + "\n" + WORD_START
    return prompt


def make_speaker(g):
    words = []
    for word, dur in (("Hi", 0.13), ("there", 0.21)):
        n = 3 if word == "Hi" else 4
        words.append({
            "word": word,
            "duration": dur,
            "c1": torch.randint(0, CODEBOOK, (n,), generator=g).tolist(),
            "c2": torch.randint(0, CODEBOOK, (n,), generator=g).tolist(),
            "features": {"energy": 41, "spectral_centroid": 27, "pitch": 12},
        })
    return {"text": "Hi there", "words": words,
            "global_features": {"energy": 40, "spectral_centroid": 30, "pitch": 14}}


# ---------------------------------------------------------------------------
# DAC
# ---------------------------------------------------------------------------

def make_dac(folder, g):
    cfg = DacConfig(encoder_hidden_size=4, downsampling_ratios=[2, 5], decoder_hidden_size=32, n_codebooks=2,
                    codebook_size=CODEBOOK, codebook_dim=8, sampling_rate=24000)
    model = DacModel(cfg).eval()
    model.apply_weight_norm()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("alpha"):
                p.copy_(0.5 + torch.rand(p.shape, generator=g))
            elif name.endswith("original0"):  # weight-norm magnitude: not the norm of v, so folding matters
                p.copy_(0.3 + 0.7 * torch.rand(p.shape, generator=g))
            else:
                p.copy_(torch.randn(p.shape, generator=g) * 0.5)
    sd = {k: v.detach().contiguous() for k, v in model.state_dict().items()
          if not k.startswith("encoder.") and "in_proj" not in k}
    # Half the layers in the legacy weight_g / weight_v names (what the descript/dac_* hub checkpoints use).
    out = {}
    for k, v in sd.items():
        legacy = k.startswith("decoder.conv") or ".res_unit2." in k or "out_proj" in k
        if legacy:
            k = k.replace(".parametrizations.weight.original0", ".weight_g")
            k = k.replace(".parametrizations.weight.original1", ".weight_v")
        out[k] = v
    safetensors.torch.save_file(out, os.path.join(folder, "model.safetensors"))
    cfg.save_pretrained(folder)
    return model


def make_real_size_dac(folder):
    """A random DacModel shaped like ibm-research/DAC.speech.v1.0 (the codec OuteTTS 1.0 uses), for timing."""
    g = torch.Generator().manual_seed(3)
    cfg = DacConfig(encoder_hidden_size=64, downsampling_ratios=[2, 4, 5, 8], decoder_hidden_size=1536,
                    n_codebooks=2, codebook_size=1024, codebook_dim=8, sampling_rate=24000)
    model = DacModel(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(0.5 + torch.rand(p.shape, generator=g) if name.endswith("alpha")
                    else torch.randn(p.shape, generator=g) * (p.shape[1] * p.shape[-1] if p.dim() == 3 else 1) ** -0.5)
    sd = {k: v.contiguous() for k, v in model.state_dict().items() if not k.startswith("encoder.") and "in_proj" not in k}
    os.makedirs(folder, exist_ok=True)
    safetensors.torch.save_file(sd, os.path.join(folder, "model.safetensors"))
    cfg.save_pretrained(folder)
    print(f"{folder}: {sum(v.numel() for v in sd.values()) / 1e6:.1f} M decoder parameters")


@torch.no_grad()
def dac_decode(model, codes):
    return model.decode(audio_codes=codes.unsqueeze(0)).audio_values[0].float()


# ---------------------------------------------------------------------------
# Backbone
# ---------------------------------------------------------------------------

def make_llama(folder, tok, g):
    vocab = tok.get_vocab_size()
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=1024,
                      rms_norm_eps=1e-5, tie_word_embeddings=False, bos_token_id=tok.token_to_id(BOS),
                      eos_token_id=tok.token_to_id(EOS), pad_token_id=tok.token_to_id(EOS),
                      rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    cfg._attn_implementation = "eager"
    model = LlamaForCausalLM(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(torch.randn(p.shape, generator=g) * 0.1)
        # Structure in place of training: the output row of <|c2_p(k)|> is the input embedding of <|c1_k|>
        # (and <|c1_q(k)|> that of <|c2_k|>), so greedy decoding alternates c1, c2 codes through a long
        # cycle as the real model does, and the parsed code stream is worth decoding.
        emb, head = model.model.embed_tokens.weight, model.lm_head.weight
        c1 = [tok.token_to_id(f"<|c1_{i}|>") for i in range(CODEBOOK)]
        c2 = [tok.token_to_id(f"<|c2_{i}|>") for i in range(CODEBOOK)]
        p, q = torch.randperm(CODEBOOK, generator=g), torch.randperm(CODEBOOK, generator=g)
        for k in range(CODEBOOK):
            head[c2[p[k]]] = 3.0 * emb[c1[k]] + 0.02 * torch.randn(emb.shape[1], generator=g)
            head[c1[q[k]]] = 3.0 * emb[c2[k]] + 0.02 * torch.randn(emb.shape[1], generator=g)
    model.save_pretrained(folder)
    return model


@torch.no_grad()
def greedy(model, ids, stop):
    out = model(input_ids=ids.unsqueeze(0), use_cache=True)
    cache = out.past_key_values
    logits = out.logits[0, -1]
    gen, gaps = [], []
    for i in range(N_GEN):
        top = torch.topk(logits, 2).values
        gaps.append(float(top[0] - top[1]))
        t = int(logits.argmax())
        gen.append(t)
        if t in stop:
            break
        out = model(input_ids=torch.tensor([[t]]), past_key_values=cache, use_cache=True,
                    position_ids=torch.tensor([[len(ids) + i]]))
        cache = out.past_key_values
        logits = out.logits[0, -1]
    return gen, min(gaps)


def parse_codes(tok, ids):
    """outetts v3 extract_audio_from_tokens: c1 and c2 in order, cut to the shorter list."""
    c1, c2 = [], []
    for i in ids:
        m = re.fullmatch(r"<\|c([12])_(\d+)\|>", tok.id_to_token(i) or "")
        if m:
            (c1 if m.group(1) == "1" else c2).append(int(m.group(2)))
    t = min(len(c1), len(c2))
    return torch.tensor([c1[:t], c2[:t]], dtype=torch.long)


def main():
    global CODEBOOK
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/outetts")
    ap.add_argument("--real-size-dac", metavar="DIR",
                    help="instead: write a random DAC of the 24 kHz speech codec's shape (decoder 1536, rates "
                         "8 5 4 2, 2 x 1024 codes) to DIR (~210 MB, outside the repo) for benchmarks")
    ap.add_argument("--codebook", type=int, default=CODEBOOK,
                    help="codes per codebook (1024 gives a backbone that pairs with --real-size-dac, for benchmarks)")
    args = ap.parse_args()
    CODEBOOK = args.codebook
    if args.real_size_dac:
        return make_real_size_dac(args.real_size_dac)
    shutil.rmtree(args.out, ignore_errors=True)
    dac_dir, llama_dir = os.path.join(args.out, "dac"), os.path.join(args.out, "llama")
    os.makedirs(dac_dir)
    os.makedirs(llama_dir)
    g = torch.Generator().manual_seed(7)

    dac = make_dac(dac_dir, g)
    codes = torch.randint(0, CODEBOOK, (2, 13), generator=g)
    audio = dac_decode(dac, codes)
    safetensors.torch.save_file({"codes": codes, "audio": audio.contiguous()},
                                os.path.join(dac_dir, "reference.safetensors"))

    speaker = make_speaker(g)
    with open(os.path.join(args.out, "speaker.json"), "w") as f:
        json.dump(speaker, f, indent=2)
    tok = build_tokenizer(llama_dir)
    model = make_llama(llama_dir, tok, g)
    prompt = completion_prompt(PROMPT_TEXT, speaker)
    ids = tok.encode(prompt, add_special_tokens=False).ids
    assert tok.decode(ids, skip_special_tokens=False) is not None
    stop = {tok.token_to_id(EOS), tok.token_to_id(AUDIO_END)}
    gen, gap = greedy(model, torch.tensor(ids), stop)
    gen_codes = parse_codes(tok, gen)
    assert gen_codes.shape[1] >= 4, f"only {gen_codes.shape[1]} frames generated: {[tok.id_to_token(i) for i in gen]}"
    gen_audio = dac_decode(dac, gen_codes)
    nopeaker_prompt = completion_prompt(PROMPT_TEXT, None)
    safetensors.torch.save_file({
        "prompt_ids": torch.tensor(ids, dtype=torch.long),
        "plain_prompt_ids": torch.tensor(tok.encode(nopeaker_prompt, add_special_tokens=False).ids, dtype=torch.long),
        "generated_ids": torch.tensor(gen, dtype=torch.long),
        "codes": gen_codes,
        "audio": gen_audio.contiguous(),
    }, os.path.join(llama_dir, "reference.safetensors"))
    with open(os.path.join(llama_dir, "meta.json"), "w") as f:
        json.dump({"text": PROMPT_TEXT, "prompt": prompt, "plain_prompt": nopeaker_prompt,
                   "min_top2_gap": gap, "frames": gen_codes.shape[1]}, f, indent=2)
    size = sum(os.path.getsize(os.path.join(d, n)) for d, _, fs in os.walk(args.out) for n in fs)
    print(f"prompt {len(ids)} tokens, generated {len(gen)} ({gen_codes.shape[1]} frames), min top-2 gap {gap:.4f}")
    print(f"dac audio {tuple(audio.shape)}, generated audio {tuple(gen_audio.shape)}, fixture {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
