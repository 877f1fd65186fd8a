//! Builds a `tokenizers::Tokenizer` from GGUF `tokenizer.ggml.*` metadata.
//!
//! * `gpt2`: byte-level BPE with the pre-tokenizer chosen by
//!   `tokenizer.ggml.pre` (see [`super::pretok`]), merges from
//!   `tokenizer.ggml.merges`.
//! * `llama`: SentencePiece BPE with byte fallback. GGUF stores only scores,
//!   so merges are derived from the vocabulary exactly like Hugging Face's
//!   `SentencePieceExtractor` (every split of a piece into two pieces,
//!   ranked by the merged piece's score); spaces become `▁` and, as in
//!   llama.cpp, a `▁` is prepended to every text fragment when
//!   `tokenizer.ggml.add_space_prefix` is true (the default).
//!
//! CONTROL / UNKNOWN tokens become special added tokens, USER_DEFINED tokens
//! non-special added tokens (matched in raw text before pre-tokenization).

use std::collections::{HashMap, HashSet};
use std::str::FromStr;

use serde_json::{json, Map, Value};
use tokenizers::Tokenizer;

use super::error::{GgufError, Result};
use super::metadata::Metadata;
use super::pretok::pre_spec;

/// llama.cpp token types (`tokenizer.ggml.token_type`).
pub mod token_type {
    pub const NORMAL: i32 = 1;
    pub const UNKNOWN: i32 = 2;
    pub const CONTROL: i32 = 3;
    pub const USER_DEFINED: i32 = 4;
    pub const UNUSED: i32 = 5;
    pub const BYTE: i32 = 6;
}

/// A ready tokenizer plus the special-token facts an engine needs.
#[derive(Clone)]
pub struct GgufTokenizerInfo {
    /// `encode(text, true)` adds BOS/EOS per `add_bos` / `add_eos`;
    /// `encode(text, false)` adds nothing (llama.cpp `add_special = false`).
    pub tokenizer: Tokenizer,
    /// `tokenizer.ggml.model` (`"gpt2"` or `"llama"`).
    pub model: String,
    /// `tokenizer.ggml.pre` as found (None when absent).
    pub pre: Option<String>,
    pub bos: Option<u32>,
    /// End-of-generation ids, `tokenizer.ggml.eos_token_id` first, then
    /// eot / eom ids and the tokens llama.cpp treats as EOG by their text
    /// (`<|eot_id|>`, `<|im_end|>`, `<|endoftext|>`, `<end_of_turn>`, ...).
    pub eos: Vec<u32>,
    pub unk: Option<u32>,
    pub pad: Option<u32>,
    pub add_bos: bool,
    pub add_eos: bool,
    /// `tokenizer.chat_template`.
    pub chat_template: Option<String>,
    /// Token texts by id as stored in the GGUF (byte-level encoded for gpt2).
    pub tokens: Vec<String>,
    pub token_types: Vec<i32>,
}

impl std::fmt::Debug for GgufTokenizerInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GgufTokenizerInfo")
            .field("model", &self.model)
            .field("pre", &self.pre)
            .field("vocab", &self.tokens.len())
            .field("bos", &self.bos)
            .field("eos", &self.eos)
            .field("add_bos", &self.add_bos)
            .field("add_eos", &self.add_eos)
            .finish_non_exhaustive()
    }
}

/// Texts llama.cpp marks as end-of-generation (llama-vocab.cpp).
const EOG_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<｜end▁of▁sentence｜>",
];

fn tok_err(md: &Metadata, msg: impl Into<String>) -> GgufError {
    GgufError::Tokenizer { file: md.file_label().to_string(), msg: msg.into() }
}

/// Optional token id key; ids outside the vocabulary are ignored (as llama.cpp does).
fn token_id(md: &Metadata, key: &str, n_vocab: usize) -> Result<Option<u32>> {
    Ok(md.opt_i64(key)?.and_then(|v| u32::try_from(v).ok()).filter(|&v| (v as usize) < n_vocab))
}

/// Builds the tokenizer described by the GGUF metadata.
pub fn build_tokenizer(md: &Metadata) -> Result<GgufTokenizerInfo> {
    let model = md.get_str("tokenizer.ggml.model")?.to_string();
    let tokens = md.get_str_array("tokenizer.ggml.tokens")?.to_vec();
    let n = tokens.len();
    if n == 0 || n > u32::MAX as usize {
        return Err(tok_err(md, format!("vocabulary has {n} tokens")));
    }
    let token_types: Vec<i32> = match md.opt_int_array("tokenizer.ggml.token_type")? {
        Some(t) if t.len() >= n => t[..n].iter().map(|&x| x as i32).collect(),
        Some(t) => return Err(tok_err(md, format!("token_type has {} entries for {n} tokens", t.len()))),
        None => vec![token_type::NORMAL; n],
    };
    let pre = md.opt_str("tokenizer.ggml.pre")?.map(str::to_string);
    let is_spm = match model.as_str() {
        "llama" => true,
        "gpt2" => false,
        other => return Err(tok_err(md, format!("unsupported tokenizer model '{other}'"))),
    };
    let (default_bos, default_eos, default_unk) = if is_spm { (Some(1), Some(2), Some(0)) } else { (None, None, None) };
    let in_vocab = |v: Option<u32>| v.filter(|&v| (v as usize) < n);
    let bos = token_id(md, "tokenizer.ggml.bos_token_id", n)?.or(in_vocab(default_bos));
    let eos_id = token_id(md, "tokenizer.ggml.eos_token_id", n)?.or(in_vocab(default_eos));
    let unk = token_id(md, "tokenizer.ggml.unknown_token_id", n)?.or(in_vocab(default_unk));
    let pad = token_id(md, "tokenizer.ggml.padding_token_id", n)?;

    let (model_json, normalizer, pre_tokenizer, decoder, default_add_bos) = if is_spm {
        let scores = match md.opt_f32_array("tokenizer.ggml.scores")? {
            Some(s) if s.len() >= n => s,
            Some(s) => return Err(tok_err(md, format!("scores has {} entries for {n} tokens", s.len()))),
            None => vec![0.0; n],
        };
        let add_prefix = md.opt_bool("tokenizer.ggml.add_space_prefix")?.unwrap_or(true);
        let merges = spm_merges(&tokens, &scores);
        let unk_text = unk.map(|u| tokens[u as usize].clone());
        let m = bpe_json(&tokens, merges, unk_text, true, false);
        let mut norms = Vec::new();
        if add_prefix {
            norms.push(json!({"type": "Prepend", "prepend": "\u{2581}"}));
        }
        norms.push(json!({"type": "Replace", "pattern": {"String": " "}, "content": "\u{2581}"}));
        let mut decs = vec![
            json!({"type": "Replace", "pattern": {"String": "\u{2581}"}, "content": " "}),
            json!({"type": "ByteFallback"}),
            json!({"type": "Fuse"}),
        ];
        if add_prefix {
            decs.push(json!({"type": "Strip", "content": " ", "start": 1, "stop": 0}));
        }
        (
            m,
            json!({"type": "Sequence", "normalizers": norms}),
            Value::Null,
            json!({"type": "Sequence", "decoders": decs}),
            true,
        )
    } else {
        let pre_name = pre.as_deref().unwrap_or("default");
        let spec = pre_spec(pre_name)
            .ok_or_else(|| tok_err(md, format!("unsupported pre-tokenizer '{pre_name}' (tokenizer.ggml.pre)")))?;
        let merge_strs = md.get_str_array("tokenizer.ggml.merges")?;
        let merges = gpt2_merges(merge_strs);
        let m = bpe_json(&tokens, merges, None, false, spec.ignore_merges);
        let mut steps: Vec<Value> = spec
            .regexes
            .iter()
            .map(|r| json!({"type": "Split", "pattern": {"Regex": r}, "behavior": "Isolated", "invert": false}))
            .collect();
        steps.push(json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}));
        let normalizer = if spec.nfc { json!({"type": "NFC"}) } else { Value::Null };
        (
            m,
            normalizer,
            json!({"type": "Sequence", "pretokenizers": steps}),
            json!({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}),
            spec.add_bos,
        )
    };

    let add_bos = md.opt_bool("tokenizer.ggml.add_bos_token")?.unwrap_or(default_add_bos) && bos.is_some();
    let add_eos = md.opt_bool("tokenizer.ggml.add_eos_token")?.unwrap_or(false) && eos_id.is_some();

    let added: Vec<Value> = tokens
        .iter()
        .zip(&token_types)
        .enumerate()
        .filter(|(_, (_, &t))| matches!(t, token_type::CONTROL | token_type::UNKNOWN | token_type::USER_DEFINED))
        .map(|(id, (text, &t))| {
            json!({
                "id": id, "content": text, "single_word": false, "lstrip": false,
                "rstrip": false, "normalized": false, "special": t != token_type::USER_DEFINED,
            })
        })
        .collect();

    let post = post_processor(&tokens, add_bos.then_some(bos).flatten(), add_eos.then_some(eos_id).flatten());
    let doc = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": post,
        "decoder": decoder,
        "model": model_json,
    });
    let tokenizer =
        Tokenizer::from_str(&doc.to_string()).map_err(|e| tok_err(md, format!("building tokenizer failed: {e}")))?;

    let eos = eog_ids(md, &tokens, eos_id)?;
    Ok(GgufTokenizerInfo {
        tokenizer,
        model,
        pre,
        bos,
        eos,
        unk,
        pad,
        add_bos,
        add_eos,
        chat_template: md.opt_str("tokenizer.chat_template")?.map(str::to_string),
        tokens,
        token_types,
    })
}

fn post_processor(tokens: &[String], bos: Option<u32>, eos: Option<u32>) -> Value {
    if bos.is_none() && eos.is_none() {
        return Value::Null;
    }
    let special = |id: u32| json!({"SpecialToken": {"id": tokens[id as usize], "type_id": 0}});
    let mut specials = Map::new();
    for id in [bos, eos].into_iter().flatten() {
        let t = &tokens[id as usize];
        specials.insert(t.clone(), json!({"id": t, "ids": [id], "tokens": [t]}));
    }
    let wrap = |seq: Value| -> Vec<Value> {
        let mut v: Vec<Value> = bos.map(special).into_iter().collect();
        v.push(seq);
        v.extend(eos.map(special));
        v
    };
    let single = wrap(json!({"Sequence": {"id": "A", "type_id": 0}}));
    let mut pair = single.clone();
    pair.extend(wrap(json!({"Sequence": {"id": "B", "type_id": 1}})));
    json!({"type": "TemplateProcessing", "single": single, "pair": pair, "special_tokens": specials})
}

/// Vocabulary map (last id wins for duplicate texts, as in llama.cpp) and BPE model JSON.
fn bpe_json(
    tokens: &[String],
    merges: Vec<(String, String)>,
    unk: Option<String>,
    spm: bool,
    ignore_merges: bool,
) -> Value {
    let mut vocab = Map::new();
    for (id, t) in tokens.iter().enumerate() {
        vocab.insert(t.clone(), json!(id));
    }
    let merges: Vec<Value> = merges
        .into_iter()
        .filter(|(a, b)| vocab.contains_key(a) && vocab.contains_key(b) && vocab.contains_key(&format!("{a}{b}")))
        .map(|(a, b)| json!([a, b]))
        .collect();
    json!({
        "type": "BPE", "dropout": null, "unk_token": unk,
        "continuing_subword_prefix": null, "end_of_word_suffix": null,
        "fuse_unk": spm, "byte_fallback": spm, "ignore_merges": ignore_merges,
        "vocab": vocab, "merges": merges,
    })
}

/// Splits `"a b"` merge strings at the first space after the first byte,
/// like llama.cpp; keeps the first occurrence of duplicate pairs.
fn gpt2_merges(merges: &[String]) -> Vec<(String, String)> {
    let mut seen = HashSet::with_capacity(merges.len());
    let mut out = Vec::with_capacity(merges.len());
    for m in merges {
        // byte search like std::string::find(' ', 1); a space byte is always a char boundary
        let Some(pos) = m.bytes().skip(1).position(|b| b == b' ').map(|p| p + 1) else {
            continue;
        };
        let pair = (m[..pos].to_string(), m[pos + 1..].to_string());
        if seen.insert(pair.clone()) {
            out.push(pair);
        }
    }
    out
}

/// Hugging Face `SentencePieceExtractor.extract(vocab_scores)`: for each piece
/// (in id order) every split into two in-vocabulary pieces, ordered by the
/// parts' ids, then a stable sort by the piece's score, descending.
fn spm_merges(tokens: &[String], scores: &[f32]) -> Vec<(String, String)> {
    let mut ids: HashMap<&str, usize> = HashMap::with_capacity(tokens.len());
    for (i, t) in tokens.iter().enumerate() {
        ids.insert(t, i);
    }
    // Python dict semantics: first position, last score for duplicate pieces.
    let mut order: Vec<(&str, f32)> = Vec::with_capacity(tokens.len());
    let mut pos: HashMap<&str, usize> = HashMap::with_capacity(tokens.len());
    for (t, &s) in tokens.iter().zip(scores) {
        match pos.get(t.as_str()) {
            Some(&p) => order[p].1 = s,
            None => {
                pos.insert(t, order.len());
                order.push((t, s));
            }
        }
    }
    let mut merges: Vec<(usize, usize, f32)> = Vec::new();
    for (piece, score) in order {
        let start = merges.len();
        for (idx, _) in piece.char_indices().skip(1) {
            let (l, r) = piece.split_at(idx);
            if let (Some(&li), Some(&ri)) = (ids.get(l), ids.get(r)) {
                merges.push((li, ri, score));
            }
        }
        merges[start..].sort_by_key(|&(l, r, _)| (l, r));
    }
    let key = |s: f32| {
        if s.is_nan() {
            f32::NEG_INFINITY
        } else {
            s + 0.0
        }
    };
    merges.sort_by(|a, b| key(b.2).total_cmp(&key(a.2)));
    merges.into_iter().map(|(l, r, _)| (tokens[l].clone(), tokens[r].clone())).collect()
}

/// EOS first, then eot/eom and llama.cpp's EOG-by-text tokens.
fn eog_ids(md: &Metadata, tokens: &[String], eos: Option<u32>) -> Result<Vec<u32>> {
    let n = tokens.len();
    let mut out: Vec<u32> = Vec::new();
    let push = |id: u32, out: &mut Vec<u32>| {
        if !out.contains(&id) {
            out.push(id)
        }
    };
    if let Some(e) = eos {
        push(e, &mut out);
    }
    for key in ["tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"] {
        if let Some(id) = token_id(md, key, n)? {
            push(id, &mut out);
        }
    }
    for (id, t) in tokens.iter().enumerate() {
        if EOG_TEXTS.contains(&t.as_str()) {
            push(id as u32, &mut out);
        }
    }
    // llama.cpp: with <|return|> and <|call|> present (gpt-oss), <|end|> is not EOG.
    let has = |s: &str| out.iter().any(|&i| tokens[i as usize] == s);
    if has("<|return|>") && (has("<|call|>") || has("<|calls|>")) {
        out.retain(|&i| tokens[i as usize] != "<|end|>" || Some(i) == eos);
    }
    Ok(out)
}
