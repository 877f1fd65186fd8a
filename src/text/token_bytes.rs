//! A token's raw bytes, as OpenAI's logprobs report them (`bytes`, and a `token` string that
//! shows them where they are not whole UTF-8). Byte-level BPE (GPT-2, Llama 3, Qwen, SmolLM2)
//! splits characters across tokens, so decoding one such token alone gives U+FFFD; its vocabulary
//! string maps back byte for byte instead. SentencePiece vocabularies spell a space `▁` and a
//! byte-fallback token `<0xHH>`.

use std::sync::OnceLock;

/// How a vocabulary spells bytes, from the tokenizer's decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// GPT-2's byte-to-unicode table (a `ByteLevel` decoder).
    ByteLevel,
    /// SentencePiece: `▁` for a space, `<0xHH>` for a byte, UTF-8 otherwise.
    SentencePiece,
    /// Anything else (WordPiece, no decoder): a token is its decoded text.
    Other,
}

impl Spelling {
    /// From the tokenizer's decoder chain: `ByteLevel` is GPT-2's spelling; `Metaspace`,
    /// `ByteFallback` or a `▁` -> space replacement is SentencePiece's.
    pub fn of(tokenizer: &tokenizers::Tokenizer) -> Spelling {
        let decoder = tokenizer.get_decoder().and_then(|d| serde_json::to_string(d).ok()).unwrap_or_default();
        if decoder.contains("\"ByteLevel\"") {
            Spelling::ByteLevel
        } else if ["\"Metaspace\"", "\"ByteFallback\"", "\u{2581}"].iter().any(|k| decoder.contains(k)) {
            Spelling::SentencePiece
        } else {
            Spelling::Other
        }
    }

    /// The bytes a vocabulary string stands for; None where it is not one this spelling makes.
    pub fn bytes(self, piece: &str) -> Option<Vec<u8>> {
        match self {
            Spelling::ByteLevel => piece.chars().map(byte_of_char).collect(),
            Spelling::SentencePiece => {
                if let Some(hex) = piece.strip_prefix("<0x").and_then(|r| r.strip_suffix('>')) {
                    if hex.len() == 2 {
                        return u8::from_str_radix(hex, 16).ok().map(|b| vec![b]);
                    }
                }
                Some(piece.replace('\u{2581}', " ").into_bytes())
            }
            Spelling::Other => None,
        }
    }
}

/// GPT-2's table, inverted: printable Latin-1 bytes are their own character; the other 68 bytes
/// are U+0100.. in byte order.
fn byte_of_char(c: char) -> Option<u8> {
    static TABLE: OnceLock<std::collections::HashMap<char, u8>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let printable = |b: u8| (b'!'..=b'~').contains(&b) || (0xA1..=0xAC).contains(&b) || b >= 0xAE;
        let mut next = 0u32;
        (0..=255u8)
            .map(|b| {
                if printable(b) {
                    (char::from(b), b)
                } else {
                    next += 1;
                    (char::from_u32(255 + next).expect("U+0100.."), b)
                }
            })
            .collect()
    });
    table.get(&c).copied()
}

/// What logprobs show as a token's text: the bytes as UTF-8, or, where they are not whole
/// characters, `bytes:` and each byte escaped (OpenAI's legacy spelling), so that two different
/// partial tokens never read the same.
pub fn display(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let escaped: String = bytes.iter().map(|b| format!("\\x{b:02x}")).collect();
            format!("bytes:{escaped}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_level_pieces_map_back_to_their_bytes() {
        // "Ġ" is the space; 🦀 is F0 9F A6 80, spelled "ðŁ" + "¦Ģ" where split in two.
        assert_eq!(Spelling::ByteLevel.bytes("Ġhello"), Some(b" hello".to_vec()));
        assert_eq!(Spelling::ByteLevel.bytes("ðŁ"), Some(vec![0xF0, 0x9F]));
        assert_eq!(Spelling::ByteLevel.bytes("¦Ģ"), Some(vec![0xA6, 0x80]));
        assert_eq!(Spelling::ByteLevel.bytes("Ċ"), Some(b"\n".to_vec()));
        assert_eq!(Spelling::ByteLevel.bytes("a\u{2581}"), None);
        // Every byte has exactly one character.
        let all: String = (0..=255u8).map(|b| *table_char(b)).collect();
        assert_eq!(Spelling::ByteLevel.bytes(&all), Some((0..=255u8).collect()));
    }

    fn table_char(b: u8) -> &'static char {
        static CHARS: OnceLock<Vec<char>> = OnceLock::new();
        &CHARS.get_or_init(|| {
            (0..=255u8)
                .map(|b| (0..0x200u32).filter_map(char::from_u32).find(|&c| byte_of_char(c) == Some(b)).unwrap())
                .collect()
        })[b as usize]
    }

    #[test]
    fn sentencepiece_pieces() {
        assert_eq!(Spelling::SentencePiece.bytes("\u{2581}Hello"), Some(b" Hello".to_vec()));
        assert_eq!(Spelling::SentencePiece.bytes("<0xF0>"), Some(vec![0xF0]));
        assert_eq!(Spelling::SentencePiece.bytes("é"), Some("é".as_bytes().to_vec()));
    }

    /// A one-word vocabulary with `decoder` as its decoder chain.
    fn with_decoder(decoder: &str) -> tokenizers::Tokenizer {
        let json = format!(
            r#"{{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "normalizer": null,
                "pre_tokenizer": null, "post_processor": null, "decoder": {decoder},
                "model": {{"type": "WordLevel", "vocab": {{"a": 0}}, "unk_token": "a"}}}}"#
        );
        json.parse().unwrap()
    }

    #[test]
    fn spelling_comes_from_the_decoder_chain() {
        assert_eq!(
            Spelling::of(&with_decoder(
                r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#
            )),
            Spelling::ByteLevel
        );
        let spm = r#"{"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}]}"#;
        assert_eq!(Spelling::of(&with_decoder(spm)), Spelling::SentencePiece);
        assert_eq!(Spelling::of(&with_decoder("null")), Spelling::Other);
        assert_eq!(
            Spelling::of(&with_decoder(r###"{"type": "WordPiece", "prefix": "##", "cleanup": true}"###)),
            Spelling::Other
        );
        assert_eq!(Spelling::Other.bytes("##ing"), None);
    }

    #[test]
    fn partial_characters_display_as_escaped_bytes() {
        assert_eq!(display(b" hi"), " hi");
        assert_eq!(display(&[0xF0, 0x9F]), "bytes:\\xf0\\x9f");
        assert_ne!(display(&[0xA6]), display(&[0x80]));
    }
}
