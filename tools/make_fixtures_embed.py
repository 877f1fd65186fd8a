#!/usr/bin/env python3
"""Generate the embedding fixtures: tests/fixtures/qwen3_embed (a decoder embedder) and
tests/fixtures/bert_embed (a BERT encoder), random weights, and what transformers computes for a few
inputs.

    python tools/make_fixtures_embed.py --out tests/fixtures

Qwen3-Embedding is a `Qwen3Model` (no lm_head; tensors named without the `model.` prefix, tied
embeddings) whose tokenizer appends <|endoftext|> to every input, and whose sentence-transformers
files pool the last token and normalise. The fixture is laid out the same way: config.json,
model.safetensors from `Qwen3Model.save_pretrained`, tokenizer.json (tests/fixtures/qwen3's BPE with
that post-processor), modules.json, 1_Pooling/config.json, and `is_matryoshka: true` (vLLM's field,
so `dimensions` may truncate).

bert_embed is a `BertModel` (post-norm encoder, absolute positions, token types, exact GELU, its
pooler saved too) with a WordPiece tokenizer adding [CLS] and [SEP], and all-MiniLM's
sentence-transformers files: mean pooling, then Normalize; no Matryoshka field.

Each folder's reference.safetensors holds, per input i, `ids_{i}` (the tokenizer's ids, special tokens added)
and `hidden_{i}` ([tokens, hidden]: last_hidden_state, i.e. after the final norm, float32, eager
attention), from which a test computes every pooling. meta.json lists the inputs.
Pinned versions: tools/requirements-fixtures.txt. Deterministic (fixed seed), no network.
"""

import argparse
import json
import os
import shutil

import torch

torch.set_num_threads(2)
torch.use_deterministic_algorithms(True)

import safetensors.torch  # noqa: E402
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402
from transformers import BertConfig, BertModel, Qwen3Config, Qwen3Model  # noqa: E402

INPUTS = [
    "The quick brown fox",
    "the river remembers everything",
    # Longer than the tests' prefill chunk (16 tokens), so the embedding spans chunks.
    "Every morning the old fisherman walks down to the water, sits on the wooden bench, and watches "
    "the light move across the stones.",
    "a",
]


def randomize(model):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight") or name.endswith("LayerNorm.weight"):
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
            elif name.endswith("bias"):
                p.copy_(0.1 * torch.randn_like(p))
            else:
                p.copy_(0.2 * torch.randn_like(p))


def write_st_files(out, width, pooling_mode):
    """modules.json (Transformer, Pooling, Normalize) and 1_Pooling/config.json with one mode on."""
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ]
    with open(os.path.join(out, "modules.json"), "w") as f:
        json.dump(modules, f, indent=2)
        f.write("\n")
    modes = ["cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken"]
    pooling = {"word_embedding_dimension": width}
    pooling.update({f"pooling_mode_{m}": m == pooling_mode for m in modes})
    pooling["include_prompt"] = True
    os.makedirs(os.path.join(out, "1_Pooling"), exist_ok=True)
    with open(os.path.join(out, "1_Pooling", "config.json"), "w") as f:
        json.dump(pooling, f, indent=2)
        f.write("\n")


def write_reference(out, model, tok, width, extra_inputs=None):
    tensors = {}
    for i, text in enumerate(INPUTS):
        ids = tok.encode(text).ids
        with torch.no_grad():
            args = {"input_ids": torch.tensor([ids])}
            if extra_inputs:
                args.update(extra_inputs(len(ids)))
            h = model(**args).last_hidden_state[0]
        tensors[f"ids_{i}"] = torch.tensor(ids, dtype=torch.int32)
        tensors[f"hidden_{i}"] = h.float().contiguous()
        print(f"{os.path.basename(out)} input {i}: {len(ids)} tokens")
    safetensors.torch.save_file(tensors, os.path.join(out, "reference.safetensors"))
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump({"inputs": INPUTS, "hidden": width}, f, indent=2)
        f.write("\n")


def make_qwen3(root, src):
    out = os.path.join(root, "qwen3_embed")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    with open(os.path.join(src, "config.json")) as f:
        cfg_dict = json.load(f)
    for k in ("architectures", "transformers_version", "dtype"):
        cfg_dict.pop(k, None)
    cfg_dict["tie_word_embeddings"] = True
    cfg = Qwen3Config(**cfg_dict)
    cfg._attn_implementation = "eager"
    torch.manual_seed(20261208)
    model = Qwen3Model(cfg).eval()
    randomize(model)
    model.save_pretrained(out)
    with open(os.path.join(out, "config.json")) as f:
        saved = json.load(f)
    # Qwen3-Embedding's config names the causal LM class (its checkpoint is the bare model).
    saved["architectures"] = ["Qwen3ForCausalLM"]
    saved["is_matryoshka"] = True
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(saved, f, indent=2)
        f.write("\n")
    tok = Tokenizer.from_file(os.path.join(src, "tokenizer.json"))
    tok.post_processor = processors.Sequence(
        [
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single="$A <|endoftext|>", special_tokens=[("<|endoftext|>", 0)]),
        ]
    )
    tok.save(os.path.join(out, "tokenizer.json"))
    shutil.copy(os.path.join(src, "tokenizer_config.json"), out)
    write_st_files(out, cfg.hidden_size, "lasttoken")
    for text in INPUTS:
        assert tok.encode(text).ids[-1] == 0, "the post-processor appends <|endoftext|>"
    write_reference(out, model, tok, cfg.hidden_size)


BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def bert_tokenizer():
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(vocab_size=200, special_tokens=BERT_SPECIALS, show_progress=False)
    tok.train_from_iterator(INPUTS, trainer=trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))]
    )
    return tok


def make_bert(root):
    out = os.path.join(root, "bert_embed")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    tok = bert_tokenizer()
    cfg = BertConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=128,
        type_vocab_size=2,
        layer_norm_eps=1e-12,
        hidden_act="gelu",
    )
    cfg._attn_implementation = "eager"
    torch.manual_seed(20261209)
    model = BertModel(cfg).eval()
    randomize(model)
    model.save_pretrained(out)
    tok.save(os.path.join(out, "tokenizer.json"))
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "BertTokenizerFast", "do_lower_case": True, "model_max_length": 128}, f, indent=2)
        f.write("\n")
    write_st_files(out, cfg.hidden_size, "mean_tokens")
    for text in INPUTS:
        ids = tok.encode(text).ids
        assert ids[0] == tok.token_to_id("[CLS]") and ids[-1] == tok.token_to_id("[SEP]")
    write_reference(
        out,
        model,
        tok,
        cfg.hidden_size,
        lambda n: {"attention_mask": torch.ones(1, n, dtype=torch.long), "token_type_ids": torch.zeros(1, n, dtype=torch.long)},
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    make_qwen3(args.out, os.path.join(here, "..", "tests", "fixtures", "qwen3"))
    make_bert(args.out)


if __name__ == "__main__":
    main()
