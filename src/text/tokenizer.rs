//! tokenizer.json through the `tokenizers` crate, plus the special tokens
//! (bos/eos) from tokenizer_config.json and generation_config.json.

use std::path::{Path, PathBuf};

use super::token_bytes::{self, Spelling};

#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error("{path}: cannot load tokenizer: {msg}")]
    Load { path: PathBuf, msg: String },
    #[error("tokenizer failed: {0}")]
    Encode(String),
}

pub struct TextTokenizer {
    inner: tokenizers::Tokenizer,
    /// How the vocabulary spells bytes (for `token_bytes`).
    spelling: Spelling,
    /// Added (special) tokens' ids: their text is their content, not vocabulary spelling.
    added: std::collections::HashSet<u32>,
    /// The added tokens marked special (bos, eos, turn markers): never text to a grammar.
    special: std::collections::HashSet<u32>,
    pub eos: Vec<u32>,
    pub bos: Option<u32>,
    pub chat_template: Option<String>,
}

fn token_text(v: &serde_json::Value) -> Option<String> {
    v.as_str().map(String::from).or_else(|| v["content"].as_str().map(String::from))
}

impl TextTokenizer {
    /// Loads `dir/tokenizer.json`; eos ids are the union of the model config's,
    /// generation_config.json's and tokenizer_config.json's eos token.
    pub fn from_dir(dir: &Path, config_eos: &[u32]) -> Result<Self, TokenizerError> {
        let path = dir.join("tokenizer.json");
        let inner = tokenizers::Tokenizer::from_file(&path)
            .map_err(|e| TokenizerError::Load { path: path.clone(), msg: e.to_string() })?;
        let mut eos: Vec<u32> = config_eos.to_vec();
        let read = |name: &str| -> Option<serde_json::Value> {
            std::fs::read_to_string(dir.join(name)).ok().and_then(|t| serde_json::from_str(&t).ok())
        };
        if let Some(gen) = read("generation_config.json") {
            match &gen["eos_token_id"] {
                serde_json::Value::Number(n) => eos.extend(n.as_u64().map(|v| v as u32)),
                serde_json::Value::Array(a) => eos.extend(a.iter().filter_map(|v| v.as_u64().map(|v| v as u32))),
                _ => {}
            }
        }
        let tc = read("tokenizer_config.json");
        let mut bos = None;
        let mut chat_template = None;
        if let Some(tc) = &tc {
            if let Some(id) = token_text(&tc["eos_token"]).and_then(|t| inner.token_to_id(&t)) {
                eos.push(id);
            }
            bos = token_text(&tc["bos_token"]).and_then(|t| inner.token_to_id(&t));
            chat_template = tc["chat_template"].as_str().map(String::from);
        }
        eos.sort();
        eos.dedup();
        Ok(Self::from_tokenizer(inner, eos, bos, chat_template))
    }

    pub fn from_tokenizer(
        inner: tokenizers::Tokenizer,
        eos: Vec<u32>,
        bos: Option<u32>,
        chat_template: Option<String>,
    ) -> Self {
        let decoder = inner.get_added_tokens_decoder();
        let added = decoder.keys().copied().collect();
        let special = decoder.iter().filter(|(_, t)| t.special).map(|(&id, _)| id).collect();
        TextTokenizer { spelling: Spelling::of(&inner), added, special, inner, eos, bos, chat_template }
    }

    /// Token ids of `text`; `add_special` applies the tokenizer's post-processor (e.g. bos).
    pub fn encode(&self, text: &str, add_special: bool) -> Result<Vec<u32>, TokenizerError> {
        let enc = self.inner.encode(text, add_special).map_err(|e| TokenizerError::Encode(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    pub fn decode(&self, ids: &[u32]) -> Result<String, TokenizerError> {
        self.inner.decode(ids, true).map_err(|e| TokenizerError::Encode(e.to_string()))
    }

    /// One token's own text, special tokens included (`decode` drops them): what logprobs list.
    pub fn token_text(&self, id: u32) -> Result<String, TokenizerError> {
        self.inner.decode(&[id], false).map_err(|e| TokenizerError::Encode(e.to_string()))
    }

    /// One token's raw bytes and the text logprobs show for it (`token_bytes::display`). A
    /// byte-level token holding part of a character has bytes its decoded text cannot show.
    /// Special (added) tokens are their text.
    pub fn token_bytes(&self, id: u32) -> Result<(String, Vec<u8>), TokenizerError> {
        let bytes = match self.inner.id_to_token(id) {
            Some(piece) if !self.added.contains(&id) => self.spelling.bytes(&piece),
            _ => None,
        };
        let bytes = match bytes {
            Some(b) => b,
            None => self.token_text(id)?.into_bytes(),
        };
        Ok((token_bytes::display(&bytes), bytes))
    }

    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// How the vocabulary spells bytes.
    pub fn spelling(&self) -> Spelling {
        self.spelling
    }

    /// Whether the token is a special added token (a control token, not text).
    pub fn is_special(&self, id: u32) -> bool {
        self.special.contains(&id)
    }

    pub fn is_eos(&self, id: u32) -> bool {
        self.eos.contains(&id)
    }
}

/// Incremental detokenizer: emits text only once it is stable (no dangling
/// UTF-8 from a partially decoded byte-level token), by decoding a short
/// window of tokens and diffing against the previous decode.
#[derive(Default)]
pub struct StreamDecoder {
    ids: Vec<u32>,
    prefix_offset: usize,
    read_offset: usize,
}

impl StreamDecoder {
    pub fn push(&mut self, tok: &TextTokenizer, id: u32) -> Result<String, TokenizerError> {
        self.ids.push(id);
        let prefix = tok.decode(&self.ids[self.prefix_offset..self.read_offset])?;
        let full = tok.decode(&self.ids[self.prefix_offset..])?;
        if full.len() > prefix.len() && !full.ends_with('\u{FFFD}') && full.starts_with(&prefix) {
            let new = full[prefix.len()..].to_string();
            self.prefix_offset = self.read_offset;
            self.read_offset = self.ids.len();
            Ok(new)
        } else {
            Ok(String::new())
        }
    }
}
