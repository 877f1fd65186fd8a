//! Structured output: the generated text is held to a grammar (a JSON schema, any JSON object, a
//! regex, a list of choices or a Lark grammar). llguidance's parser gives, before each token, the
//! set of tokens that keep the text a prefix of some sentence of the grammar; the sampler only
//! draws from that set, and the sequence ends when the grammar is complete.
//!
//! The vocabulary side (a byte trie of every token, llguidance's `ParserFactory`) is built once
//! per model, on its first constrained request; each sequence then gets its own `Constraint`.

use std::sync::Arc;

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::{TokEnv, TokRxInfo, TokTrie, TokenizerEnv};
use llguidance::{Matcher, ParserFactory};
use serde_json::Value;

use super::TextTokenizer;

/// What the output must match.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputFormat {
    /// Any JSON object (`response_format: {"type": "json_object"}`).
    JsonObject,
    /// A JSON value valid against this schema (an object).
    JsonSchema(Value),
    /// Text matching this regex, whole.
    Regex(String),
    /// Exactly one of these strings.
    Choice(Vec<String>),
    /// A Lark grammar in llguidance's dialect.
    Lark(String),
}

/// JSON is written on one line with `", "` and `": "` between items: a small model given free
/// whitespace can write newlines until max_tokens. A schema's own `x-guidance` settings win.
fn json_layout() -> Value {
    serde_json::json!({ "whitespace_flexible": false, "item_separator": ", ", "key_separator": ": " })
}

impl OutputFormat {
    fn grammar(&self) -> TopLevelGrammar {
        let with_layout = |mut schema: Value| {
            if let Some(obj) = schema.as_object_mut() {
                obj.entry("x-guidance").or_insert_with(json_layout);
            }
            TopLevelGrammar::from_json_schema(schema)
        };
        match self {
            OutputFormat::JsonObject => with_layout(serde_json::json!({ "type": "object" })),
            OutputFormat::JsonSchema(schema) => with_layout(schema.clone()),
            OutputFormat::Regex(rx) => TopLevelGrammar::from_regex(rx),
            OutputFormat::Choice(items) => {
                let alternatives: Vec<String> = items.iter().map(|s| regex_syntax::escape(s)).collect();
                TopLevelGrammar::from_regex(&format!("(?:{})", alternatives.join("|")))
            }
            OutputFormat::Lark(lark) => TopLevelGrammar::from_lark(lark.clone()),
        }
    }
}

/// llguidance's view of a model's vocabulary: each token's bytes (special tokens behind the
/// 0xFF marker, so no grammar spells them as text) and the real tokenizer.
struct Vocabulary {
    trie: TokTrie,
    tokenizer: Arc<TextTokenizer>,
    /// Whether the tokenizer gives back exactly the bytes it is given (byte-level BPE). A
    /// SentencePiece tokenizer prepends "▁" and a normalizer may recompose characters, so
    /// llguidance must not force its tokenizations.
    canonical: bool,
}

impl TokenizerEnv for Vocabulary {
    fn tok_trie(&self) -> &TokTrie {
        &self.trie
    }

    /// llguidance forces these tokens where the grammar allows only these bytes, so they must
    /// spell exactly `s`: the tokenizer's answer where it does, the trie's greedy split otherwise
    /// (bytes that end mid-character, a prepended space, a normalized character).
    fn tokenize_bytes(&self, s: &[u8]) -> Vec<u32> {
        if let Ok(text) = std::str::from_utf8(s) {
            if let Ok(ids) = self.tokenizer.encode(text, false) {
                if self.trie.decode_raw(&ids) == s {
                    return ids;
                }
            }
        }
        self.trie.greedy_tokenize(s)
    }

    fn tokenize_is_canonical(&self) -> bool {
        self.canonical
    }
}

/// A model's grammar compiler: built once, shared by its requests.
pub struct GrammarCompiler {
    factory: ParserFactory,
}

impl GrammarCompiler {
    /// `vocab` is the width of the model's logits (it may exceed the tokenizer's vocabulary;
    /// the ids past it are never allowed).
    pub fn new(tokenizer: Arc<TextTokenizer>, vocab: usize) -> Result<Self, String> {
        let eos = tokenizer.eos.iter().copied().filter(|&e| (e as usize) < vocab).collect::<Vec<_>>();
        let Some(&first_eos) = eos.first() else {
            return Err("the model has no end-of-sequence token to end a structured output with".into());
        };
        // Ids the tokenizer does not know (padding rows of the embedding) get no bytes: never allowed.
        let words: Vec<Vec<u8>> =
            (0..vocab as u32).map(|id| grammar_bytes(&tokenizer, id).unwrap_or_default()).collect();
        let info = TokRxInfo { tok_bos: tokenizer.bos, ..TokRxInfo::new(vocab as u32, first_eos) };
        let trie = TokTrie::from(&info, &words).with_eos_tokens(&eos);
        let canonical = tokenizer.spelling() == super::token_bytes::Spelling::ByteLevel;
        let env: TokEnv = Arc::new(Vocabulary { trie, tokenizer, canonical });
        let mut factory = ParserFactory::new_simple(&env).map_err(|e| e.to_string())?;
        factory.quiet();
        Ok(GrammarCompiler { factory })
    }

    /// A fresh constraint for one sequence, or why the format does not compile.
    pub fn compile(&self, format: &OutputFormat) -> Result<Constraint, String> {
        let parser = self.factory.create_parser(format.grammar()).map_err(|e| e.to_string())?;
        let matcher = Matcher::new(Ok(parser));
        if let Some(e) = matcher.get_error() {
            return Err(e);
        }
        Ok(Constraint { matcher })
    }
}

/// The bytes a grammar sees for a token: its text, or for a special token the marker and its
/// name (matched only by grammars that name special tokens). End-of-sequence tokens count as
/// special even where the vocabulary does not flag them: as text they would end the output
/// wherever the grammar allowed their spelling.
fn grammar_bytes(tokenizer: &TextTokenizer, id: u32) -> Result<Vec<u8>, super::TokenizerError> {
    let (_, bytes) = tokenizer.token_bytes(id)?;
    if tokenizer.is_special(id) || tokenizer.is_eos(id) {
        let mut marked = vec![TokTrie::SPECIAL_TOKEN_MARKER];
        marked.extend(bytes);
        return Ok(marked);
    }
    Ok(bytes)
}

/// One sequence's place in its grammar.
pub struct Constraint {
    matcher: Matcher,
}

impl std::fmt::Debug for Constraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Constraint").field("stopped", &self.matcher.is_stopped()).finish()
    }
}

impl Constraint {
    /// An independent copy at the same place (for the n choices of one request).
    pub fn fork(&self) -> Constraint {
        Constraint { matcher: self.matcher.deep_clone() }
    }

    /// Sets every token the grammar does not allow next to -inf. End-of-sequence tokens are
    /// allowed once the grammar is complete.
    pub fn restrict(&mut self, logits: &mut [f32]) -> Result<(), String> {
        let mask = self.matcher.compute_mask_or_eos().map_err(|e| e.to_string())?;
        let width = logits.len().min(mask.len());
        let (masked, beyond) = logits.split_at_mut(width);
        beyond.fill(f32::NEG_INFINITY);
        // Word by word (32 tokens a word); where few tokens are allowed (outside JSON strings,
        // the common case) keep those and clear the rest in one fill.
        if mask.num_set() < width / 8 {
            let mut kept = Vec::new();
            mask.iter_set_entries(|id| {
                if id < width {
                    kept.push((id, masked[id]));
                }
            });
            masked.fill(f32::NEG_INFINITY);
            for (id, l) in kept {
                masked[id] = l;
            }
        } else {
            mask.iter_unset_entries(|id| {
                if id < width {
                    masked[id] = f32::NEG_INFINITY;
                }
            });
        }
        Ok(())
    }

    /// Moves past a generated token.
    pub fn accept(&mut self, id: u32) -> Result<(), String> {
        self.matcher.consume_token(id).map_err(|e| e.to_string())
    }

    /// Whether the grammar allows nothing more: the sequence is done.
    pub fn is_complete(&self) -> bool {
        self.matcher.is_stopped()
    }
}

/// Greedy decoding held to a grammar (tests, tools): `logits_after(previous)` gives the model's
/// logits after the previous token (None: after the prompt). Stops at an end-of-sequence token, a
/// complete grammar or `max` tokens; returns the tokens generated.
pub fn greedy_tokens(
    c: &mut Constraint,
    max: usize,
    is_eos: impl Fn(u32) -> bool,
    mut logits_after: impl FnMut(Option<u32>) -> Vec<f32>,
) -> Result<Vec<u32>, String> {
    let mut ids = Vec::new();
    let mut previous = None;
    while ids.len() < max {
        let mut logits = logits_after(previous);
        c.restrict(&mut logits)?;
        let id = crate::text::sampling::argmax(&logits);
        if !logits[id as usize].is_finite() {
            return Err(format!("the grammar allows no token after {ids:?}"));
        }
        if is_eos(id) {
            break;
        }
        c.accept(id)?;
        ids.push(id);
        if c.is_complete() {
            break;
        }
        previous = Some(id);
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn compiler() -> (GrammarCompiler, Arc<TextTokenizer>) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen3");
        let tok = Arc::new(TextTokenizer::from_dir(&dir, &[0]).unwrap());
        // Wider than the tokenizer, as padded embeddings are: the extra ids must stay banned.
        let vocab = tok.vocab_size() + 16;
        (GrammarCompiler::new(tok.clone(), vocab).unwrap(), tok)
    }

    /// Greedy decoding over pseudo-random logits, held to the grammar; the text it ends with.
    /// After 24 tokens the logits favour quotes (closing a string), then brackets, so an open-ended grammar
    /// (any JSON object) ends too.
    fn generate(c: &mut Constraint, tok: &TextTokenizer, vocab: usize, seed: u64) -> String {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let known = tok.vocab_size();
        let closing = |id: u32| -> f32 {
            if tok.is_eos(id) {
                return 4.0;
            }
            let text = tok.token_bytes(id).map(|t| t.1).unwrap_or_default();
            [(b'"', 3.0), (b'}', 2.0), (b']', 2.0), (b':', 1.0)]
                .iter()
                .filter(|(c, _)| text == [*c])
                .map(|(_, b)| *b)
                .sum()
        };
        let mut step = 0;
        let ids = greedy_tokens(
            c,
            400,
            |id| tok.is_eos(id),
            |_| {
                step += 1;
                (0..vocab)
                    .map(|id| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        let r = (state >> 40) as f32 / (1u64 << 24) as f32;
                        if step > 24 && id < known {
                            r + closing(id as u32)
                        } else {
                            r
                        }
                    })
                    .collect()
            },
        )
        .unwrap();
        assert!(ids.iter().all(|&id| (id as usize) < known), "a padding id was allowed");
        let text = tok.decode(&ids).unwrap();
        assert!(ids.len() < 400, "no end after 400 tokens: {text:?}");
        text
    }

    #[test]
    fn json_schema_output_parses_and_fits_the_schema() {
        let (compiler, tok) = compiler();
        let vocab = tok.vocab_size() + 16;
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "maxLength": 6 },
                "age": { "type": "integer", "minimum": 0, "maximum": 150 },
                "tags": { "type": "array", "items": { "enum": ["a", "b"] }, "maxItems": 3 },
                "ok": { "type": "boolean" }
            },
            "required": ["name", "age", "tags", "ok"],
            "additionalProperties": false
        });
        let format = OutputFormat::JsonSchema(schema);
        for seed in 0..12 {
            let text = generate(&mut compiler.compile(&format).unwrap(), &tok, vocab, seed);
            let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert!(v["name"].as_str().is_some_and(|s| s.chars().count() <= 6), "{text}");
            assert!(v["age"].as_u64().is_some_and(|a| a <= 150), "{text}");
            assert!(v["tags"].as_array().is_some_and(|t| t.len() <= 3 && t.iter().all(|x| x == "a" || x == "b")));
            assert!(v["ok"].is_boolean() && v.as_object().unwrap().len() == 4, "{text}");
            // One line, with a space after each separator.
            assert!(!text.contains('\n') && text.contains("\"name\": "), "{text}");
        }
    }

    #[test]
    fn json_object_regex_and_choice_outputs_match() {
        let (compiler, tok) = compiler();
        let vocab = tok.vocab_size() + 16;
        let any_object = compiler.compile(&OutputFormat::JsonObject).unwrap();
        for seed in 0..6 {
            // Fork as the n choices of one request do: each copy goes its own way.
            let text = generate(&mut any_object.fork(), &tok, vocab, seed);
            let v: Result<Value, _> = serde_json::from_str(&text);
            assert!(v.as_ref().is_ok_and(Value::is_object), "{text:?}: {v:?}");
        }
        let rx = OutputFormat::Regex("[a-c]{3}-[0-9]{2}".into());
        for seed in 0..6 {
            let text = generate(&mut compiler.compile(&rx).unwrap(), &tok, vocab, seed);
            let b = text.as_bytes();
            assert!(b.len() == 6 && b[..3].iter().all(|c| b"abc".contains(c)) && b[3] == b'-', "{text:?}");
            assert!(b[4..].iter().all(u8::is_ascii_digit), "{text:?}");
        }
        let choices = vec!["yes (a+b)".to_string(), "no".to_string(), "maybe.".to_string()];
        for seed in 0..6 {
            let text =
                generate(&mut compiler.compile(&OutputFormat::Choice(choices.clone())).unwrap(), &tok, vocab, seed);
            assert!(choices.contains(&text), "{text:?}");
        }
    }

    #[test]
    fn bad_grammars_are_refused_with_a_reason() {
        let (compiler, _) = compiler();
        for bad in [
            OutputFormat::JsonSchema(serde_json::json!({ "type": "no-such-type" })),
            OutputFormat::Regex("(unclosed".into()),
            OutputFormat::Lark("start: undefined_rule".into()),
        ] {
            let err = compiler.compile(&bad).err().unwrap_or_else(|| panic!("{bad:?} compiled"));
            assert!(!err.is_empty());
        }
    }
}
