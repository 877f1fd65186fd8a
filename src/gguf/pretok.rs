//! Pre-tokenizer regexes selected by `tokenizer.ggml.pre`.
//!
//! Names, flags and regex lists mirror llama.cpp's `llama-vocab.cpp`
//! (llama-cpp-python 0.3.36 vendor copy). Where llama.cpp records the
//! original `tokenizer.json` regex (e.g. `(?i:...)` groups that std::regex
//! cannot parse), the original is used, since the `tokenizers` crate runs
//! the same Oniguruma engine as Hugging Face. Each list is applied as a
//! sequence of `Split(..., Isolated)` steps, which is what llama.cpp's
//! `unicode_regex_split` does, followed by byte-level mapping.
//!
//! Not supported (need custom splitters or non-byte-level BPE): gemma4,
//! granite-embed-multi-311m, sarvam-moe, whitespace, chameleon, superbpe,
//! kimi-k2, afmoe.

/// GPT-2's regex as in Hugging Face's `ByteLevel` pre-tokenizer (llama.cpp
/// drops the final `|\s+`, which changes nothing under isolated splitting).
const GPT2_RE: &str = r#"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"#;

/// What a `tokenizer.ggml.pre` value selects.
#[derive(Debug, Clone, Copy)]
pub struct PreSpec {
    pub regexes: &'static [&'static str],
    /// llama.cpp's `ignore_merges` (HF `BPE.ignore_merges`).
    pub ignore_merges: bool,
    /// llama.cpp's default for `add_bos` before `tokenizer.ggml.add_bos_token`.
    pub add_bos: bool,
    /// Hugging Face applies an NFC normalizer for these (Qwen family).
    pub nfc: bool,
}

/// Every `tokenizer.ggml.pre` value [`pre_spec`] accepts.
pub const SUPPORTED_PRE: &[&str] = &[
    "default",
    "minicpm5",
    "llama3",
    "llama-v3",
    "llama-bpe",
    "falcon3",
    "falcon-h1",
    "pixtral",
    "midm-2.0",
    "lfm2",
    "jina-v5-nano",
    "deepseek-llm",
    "deepseek-coder",
    "deepseek-v3",
    "spark2_5",
    "youtu",
    "falcon",
    "mpt",
    "starcoder",
    "gpt-2",
    "phi-2",
    "jina-es",
    "jina-de",
    "gigachat",
    "jina-v2-es",
    "jina-v2-de",
    "a.x-4.0",
    "mellum",
    "modern-bert",
    "jais-2",
    "jina-v1-en",
    "jina-v2-code",
    "roberta-bpe",
    "refact",
    "command-r",
    "qwen2",
    "deepseek-r1-qwen",
    "kormo",
    "f2llmv2",
    "qwen35",
    "stablelm2",
    "olmo",
    "dbrx",
    "smaug-bpe",
    "poro-chat",
    "chatglm-bpe",
    "glm4",
    "glm5",
    "viking",
    "jais",
    "tekken",
    "smollm",
    "codeshell",
    "bloom",
    "gpt3-finnish",
    "exaone",
    "exaone4",
    "exaone-moe",
    "minerva-7b",
    "megrez",
    "gpt-4o",
    "llama4",
    "kanana2",
    "talkie",
    "granite-embed-multi-97m",
    "tiny_aya",
    "cohere2moe",
    "trillion",
    "granite-docling",
    "bailingmoe",
    "bailingmoe2",
    "llada-moe",
    "seed-coder",
    "hunyuan",
    "hunyuan-dense",
    "hy_v4",
    "joyai-llm",
    "ufakzeka",
    "grok-2",
    "laguna",
    "minimax-m2",
    "solar-open",
    "mellum2",
];

/// Looks up a pre-tokenizer name; `None` when unsupported. A missing
/// `tokenizer.ggml.pre` should be passed as `"default"`, as llama.cpp does.
pub fn pre_spec(pre: &str) -> Option<PreSpec> {
    let (ty, ignore_merges, add_bos) = lookup(pre)?;
    Some(PreSpec {
        regexes: regexes(ty),
        ignore_merges,
        add_bos,
        nfc: matches!(pre, "qwen2" | "deepseek-r1-qwen" | "qwen35"),
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PreType {
    Bailingmoe,
    Bloom,
    Chatglm4,
    Codeshell,
    CommandR,
    Dbrx,
    Deepseek3Llm,
    DeepseekCoder,
    DeepseekLlm,
    Default,
    Exaone,
    ExaoneMoe,
    Falcon,
    Gpt2,
    Gpt3Finnish,
    Gpt4o,
    GraniteDocling,
    GraniteEmbMulti,
    Grok2,
    Hunyuan,
    HunyuanDense,
    HyV4,
    Jais,
    Jais2,
    JoyaiLlm,
    Laguna,
    Llama3,
    Mellum2,
    Minerva,
    Minicpm5,
    MinimaxM2,
    Mpt,
    Olmo,
    Poro,
    Qwen2,
    Qwen35,
    Refact,
    SeedCoder,
    Smaug,
    Smollm,
    SolarOpen,
    Spark25,
    Stablelm2,
    Starcoder,
    Tekken,
    TinyAya,
    Trillion,
    Ufakzeka,
    Viking,
    Youtu,
}

/// `tokenizer.ggml.pre` -> (pre-tokenizer, ignore_merges, add_bos default).
fn lookup(pre: &str) -> Option<(PreType, bool, bool)> {
    Some(match pre {
        "default" => (PreType::Default, false, false),
        "minicpm5" => (PreType::Minicpm5, true, false),
        "llama3" => (PreType::Llama3, true, true),
        "llama-v3" => (PreType::Llama3, true, true),
        "llama-bpe" => (PreType::Llama3, true, true),
        "falcon3" => (PreType::Llama3, true, true),
        "falcon-h1" => (PreType::Llama3, true, true),
        "pixtral" => (PreType::Llama3, true, true),
        "midm-2.0" => (PreType::Llama3, true, true),
        "lfm2" => (PreType::Llama3, true, true),
        "jina-v5-nano" => (PreType::Llama3, true, true),
        "deepseek-llm" => (PreType::DeepseekLlm, false, false),
        "deepseek-coder" => (PreType::DeepseekCoder, false, false),
        "deepseek-v3" => (PreType::Deepseek3Llm, false, false),
        "spark2_5" => (PreType::Spark25, false, false),
        "youtu" => (PreType::Youtu, true, false),
        "falcon" => (PreType::Falcon, false, false),
        "mpt" => (PreType::Mpt, false, false),
        "starcoder" => (PreType::Starcoder, false, false),
        "gpt-2" => (PreType::Gpt2, false, false),
        "phi-2" => (PreType::Gpt2, false, false),
        "jina-es" => (PreType::Gpt2, false, false),
        "jina-de" => (PreType::Gpt2, false, false),
        "gigachat" => (PreType::Gpt2, false, false),
        "jina-v2-es" => (PreType::Gpt2, false, false),
        "jina-v2-de" => (PreType::Gpt2, false, false),
        "a.x-4.0" => (PreType::Gpt2, false, false),
        "mellum" => (PreType::Gpt2, false, false),
        "modern-bert" => (PreType::Gpt2, false, false),
        "jais-2" => (PreType::Jais2, false, false),
        "jina-v1-en" => (PreType::Gpt2, false, false),
        "jina-v2-code" => (PreType::Gpt2, false, false),
        "roberta-bpe" => (PreType::Gpt2, false, false),
        "refact" => (PreType::Refact, false, false),
        "command-r" => (PreType::CommandR, false, false),
        "qwen2" => (PreType::Qwen2, false, false),
        "deepseek-r1-qwen" => (PreType::Qwen2, false, false),
        "kormo" => (PreType::Qwen2, false, false),
        "f2llmv2" => (PreType::Qwen2, false, false),
        "qwen35" => (PreType::Qwen35, false, false),
        "stablelm2" => (PreType::Stablelm2, false, false),
        "olmo" => (PreType::Olmo, false, false),
        "dbrx" => (PreType::Dbrx, false, false),
        "smaug-bpe" => (PreType::Smaug, false, false),
        "poro-chat" => (PreType::Poro, false, false),
        "chatglm-bpe" => (PreType::Chatglm4, false, false),
        "glm4" => (PreType::Chatglm4, true, false),
        "glm5" => (PreType::Chatglm4, true, false),
        "viking" => (PreType::Viking, false, false),
        "jais" => (PreType::Jais, false, false),
        "tekken" => (PreType::Tekken, true, true),
        "smollm" => (PreType::Smollm, false, false),
        "codeshell" => (PreType::Codeshell, false, false),
        "bloom" => (PreType::Bloom, false, false),
        "gpt3-finnish" => (PreType::Gpt3Finnish, false, false),
        "exaone" => (PreType::Exaone, false, false),
        "exaone4" => (PreType::Gpt2, false, false),
        "exaone-moe" => (PreType::ExaoneMoe, false, false),
        "minerva-7b" => (PreType::Minerva, false, false),
        "megrez" => (PreType::Qwen2, false, false),
        "gpt-4o" => (PreType::Gpt4o, false, false),
        "llama4" => (PreType::Gpt4o, false, false),
        "kanana2" => (PreType::Gpt4o, false, false),
        "talkie" => (PreType::Gpt4o, false, false),
        "granite-embed-multi-97m" => (PreType::GraniteEmbMulti, true, false),
        "tiny_aya" => (PreType::TinyAya, false, false),
        "cohere2moe" => (PreType::TinyAya, false, false),
        "trillion" => (PreType::Trillion, false, false),
        "granite-docling" => (PreType::GraniteDocling, false, false),
        "bailingmoe" => (PreType::Bailingmoe, false, false),
        "bailingmoe2" => (PreType::Bailingmoe, false, false),
        "llada-moe" => (PreType::Bailingmoe, false, false),
        "seed-coder" => (PreType::SeedCoder, false, false),
        "hunyuan" => (PreType::Hunyuan, false, false),
        "hunyuan-dense" => (PreType::HunyuanDense, false, false),
        "hy_v4" => (PreType::HyV4, false, false),
        "joyai-llm" => (PreType::JoyaiLlm, false, false),
        "ufakzeka" => (PreType::Ufakzeka, false, false),
        "grok-2" => (PreType::Grok2, false, false),
        "laguna" => (PreType::Laguna, false, false),
        "minimax-m2" => (PreType::MinimaxM2, false, false),
        "solar-open" => (PreType::SolarOpen, false, false),
        "mellum2" => (PreType::Mellum2, false, false),
        _ => return None,
    })
}

fn regexes(pre_type: PreType) -> &'static [&'static str] {
    match pre_type {
        // LLAMA_VOCAB_PRE_TYPE_BAILINGMOE (tokenizer.json original)
        PreType::Bailingmoe => &[
            r#"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_BLOOM (llama.cpp)
        PreType::Bloom => &[
            r#" ?[^(\s|.,!?…。，、।۔،)]+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_CHATGLM4 (llama.cpp)
        PreType::Chatglm4 => &[
            r#"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_CODESHELL (llama.cpp)
        PreType::Codeshell => &[
            r#"\p{N}"#,
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_COMMAND_R (llama.cpp)
        PreType::CommandR => &[
            r#"\p{N}"#,
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_DBRX (llama.cpp)
        PreType::Dbrx => &[
            r#"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_DEEPSEEK3_LLM (llama.cpp)
        PreType::Deepseek3Llm => &[
            r#"\p{N}{1,3}"#,
            r#"[一-龥぀-ゟ゠-ヿ]+"#,
            "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
        ],
        // LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_CODER (llama.cpp)
        PreType::DeepseekCoder => &[
            "[\r\n]",
            r#"\s?\p{L}+"#,
            r#"\s?\p{P}+"#,
            r#"[一-龥ࠀ-一가-퟿]+"#,
            r#"\p{N}"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_LLM (llama.cpp)
        PreType::DeepseekLlm => &[
            "[\r\n]",
            r#"\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+"#,
            r#"\s?[!-/:-~！-／：-～‘-‟　-。]+"#,
            r#"\s+$"#,
            r#"[一-龥ࠀ-一가-퟿]+"#,
            r#"\p{N}+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_DEFAULT (llama.cpp)
        PreType::Default => &[
            r#"[\p{P}\$\+<=>\^~\|]+"#,
            GPT2_RE,
            r#"\p{N}+"#,
            r#"[0-9][0-9][0-9]"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_EXAONE (llama.cpp)
        PreType::Exaone => &[
            r#"\p{N}"#,
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_EXAONE_MOE (tokenizer.json original)
        PreType::ExaoneMoe => &[
            r#"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_FALCON (llama.cpp)
        PreType::Falcon => &[
            r#"[\p{P}\$\+<=>\^~\|`]+"#,
            GPT2_RE,
            r#"[0-9][0-9][0-9]"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_GPT2 (llama.cpp)
        PreType::Gpt2 => &[
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_GPT3_FINNISH (llama.cpp)
        PreType::Gpt3Finnish => &[
            r#" ?[^(\s|.,!?…。，、।۔،)]+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_GPT4O (tokenizer.json original)
        PreType::Gpt4o => &[
            r#"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_GRANITE_DOCLING (llama.cpp)
        PreType::GraniteDocling => &[
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_GRANITE_EMB_MULTI (llama.cpp)
        PreType::GraniteEmbMulti => &[
            r#"[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))*((?=[\p{L}\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))+((?=[\p{L}\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_GROK_2 (tokenizer.json original)
        PreType::Grok2 => &[
            r#"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_HUNYUAN (tokenizer.json original)
        PreType::Hunyuan => &[
            r#"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_HUNYUAN_DENSE (llama.cpp)
        PreType::HunyuanDense => &[
            r#"\p{N}{1,3}"#,
            r#"[一-龥぀-ゟ゠-ヿ]+"#,
            "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
        ],
        // LLAMA_VOCAB_PRE_TYPE_HY_V4 (llama.cpp)
        PreType::HyV4 => &[
            r#"\p{N}{1,3}"#,
            r#"[一-龥぀-ゟ゠-ヿ]+"#,
            "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
        ],
        // LLAMA_VOCAB_PRE_TYPE_JAIS (llama.cpp)
        PreType::Jais => &[
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_JAIS2 (tokenizer.json original)
        PreType::Jais2 => &[
            r#"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1}"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_JOYAI_LLM (llama.cpp)
        PreType::JoyaiLlm => &[
            r#"\p{N}{1,3}"#,
            r#"[一-龥぀-ゟ゠-ヿ]+"#,
            "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
        ],
        // LLAMA_VOCAB_PRE_TYPE_LAGUNA (llama.cpp)
        PreType::Laguna => &[
            r#"[^\n]+|[\n]+"#,
            r#"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_LLAMA3 (tokenizer.json original)
        PreType::Llama3 => &[
            r#"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_MELLUM2 (llama.cpp)
        PreType::Mellum2 => &[
            r#"\p{N}"#,
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_MINERVA (llama.cpp)
        PreType::Minerva => &[
            r#"\p{N}"#,
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_MINICPM5 (llama.cpp)
        PreType::Minicpm5 => &[
            r#"\p{N}{1,3}"#,
            r#"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_MINIMAX_M2 (tokenizer.json original)
        PreType::MinimaxM2 => &[
            r#"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_MPT (llama.cpp)
        PreType::Mpt => &[
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_OLMO (llama.cpp)
        PreType::Olmo => &[
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_PORO (llama.cpp)
        PreType::Poro => &[
            r#" ?[^(\s|.,!?…。，、।۔،)]+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_QWEN2 (tokenizer.json original)
        PreType::Qwen2 => &[
            r#"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_QWEN35 (tokenizer.json original)
        PreType::Qwen35 => &[
            r#"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_REFACT (llama.cpp)
        PreType::Refact => &[
            r#"\p{N}"#,
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_SEED_CODER (tokenizer.json original)
        PreType::SeedCoder => &[
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\r\n]+|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
        ],
        // LLAMA_VOCAB_PRE_TYPE_SMAUG (llama.cpp)
        PreType::Smaug => &[
            r#"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_SMOLLM (llama.cpp)
        PreType::Smollm => &[
            r#"\p{N}"#,
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_SOLAR_OPEN (tokenizer.json original)
        PreType::SolarOpen => &[
            r#"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_SPARK2_5 (llama.cpp)
        PreType::Spark25 => &[
            r#"\p{N}{1,3}"#,
            r#"[一-龥぀-ゟ゠-ヿ]+"#,
            "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+",
            r#"\p{N}"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_STABLELM2 (tokenizer.json original)
        PreType::Stablelm2 => &[
            r#"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_STARCODER (llama.cpp)
        PreType::Starcoder => &[
            r#"\p{N}"#,
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_TEKKEN (tokenizer.json original)
        PreType::Tekken => &[
            r#"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_TINY_AYA (tokenizer.json original)
        PreType::TinyAya => &[
            r#"\d{1,3}(?=(?:\d{3})*\b)"#,
            r#"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_TRILLION (llama.cpp)
        PreType::Trillion => &[
            GPT2_RE,
        ],
        // LLAMA_VOCAB_PRE_TYPE_UFAKZEKA (llama.cpp)
        PreType::Ufakzeka => &[
            r#"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_VIKING (llama.cpp)
        PreType::Viking => &[
            r#" ?[^(\s|.,!?…。，、।۔،)]+"#,
            r#"\p{N}"#,
        ],
        // LLAMA_VOCAB_PRE_TYPE_YOUTU (llama.cpp)
        PreType::Youtu => &[
            r#"[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+"#,
            r#"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"#,
        ],
    }
}
