//! OuteTTS 1.0 ("v3") prompts and speaker profiles, as outetts/version/v3/prompt_processor.py writes
//! them (`get_completion_prompt`): the text (the speaker's transcript, a separator, the input), then
//! the speaker's words each with its duration, features and interleaved c1/c2 codes, then an open
//! `<|word_start|>` for the model to continue. tools/make_fixtures_outetts.py holds the Python twin.

use std::path::Path;

use crate::models::ModelError;

pub const BOS: &str = "<|im_start|>";
pub const EOS: &str = "<|im_end|>";
pub const TEXT_START: &str = "<|text_start|>";
pub const TEXT_END: &str = "<|text_end|>";
pub const AUDIO_START: &str = "<|audio_start|>";
pub const AUDIO_END: &str = "<|audio_end|>";
pub const WORD_START: &str = "<|word_start|>";
pub const WORD_END: &str = "<|word_end|>";
pub const FEATURES: &str = "<|features|>";
pub const CODE: &str = "<|code|>";

/// One word of a speaker profile.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, PartialEq)]
pub struct SpeakerWord {
    pub word: String,
    /// Seconds.
    pub duration: f64,
    pub c1: Vec<u32>,
    pub c2: Vec<u32>,
    /// energy, spectral_centroid, pitch (integers 0..100 in outetts' profiles).
    #[serde(default)]
    pub features: serde_json::Map<String, serde_json::Value>,
}

/// An OuteTTS v3 speaker profile (`interface.create_speaker(...)` / `save_speaker` JSON).
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, PartialEq)]
pub struct Speaker {
    pub text: String,
    pub words: Vec<SpeakerWord>,
    #[serde(default)]
    pub global_features: Option<serde_json::Map<String, serde_json::Value>>,
}

impl Speaker {
    pub fn load(path: &Path) -> Result<Self, ModelError> {
        let s: Speaker = crate::models::read_json(path)?;
        let bad = |msg: String| ModelError::Config { path: path.into(), msg };
        if s.words.is_empty() {
            return Err(bad("the speaker profile has no words".into()));
        }
        if let Some(w) = s.words.iter().find(|w| w.c1.len() != w.c2.len()) {
            return Err(bad(format!("word '{}' has {} c1 codes but {} c2 codes", w.word, w.c1.len(), w.c2.len())));
        }
        Ok(s)
    }

    /// Largest code the profile uses (checked against the codec's codebook size at load).
    pub fn max_code(&self) -> u32 {
        self.words.iter().flat_map(|w| w.c1.iter().chain(&w.c2)).copied().max().unwrap_or(0)
    }
}

/// outetts `text_normalizations`: whitespace runs to one space, ellipsis to "...", curly quotes and
/// long dashes to ASCII, control characters dropped, trimmed.
pub fn normalize_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        match c {
            '\u{2026}' => out.push_str("..."),
            '\u{201c}' | '\u{201d}' => out.push('"'),
            '\u{2018}' | '\u{2019}' => out.push('\''),
            '\u{2013}' | '\u{2014}' => out.push('-'),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {}
            c => out.push(c),
        }
    }
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{309f}' | '\u{30a0}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}')
}

/// outetts `merge_speaker_text`: the speaker's transcript, a separator unless it already ends a
/// sentence, then the input. Returns the merged text and the separator (trimmed) that the profile's
/// last word gets.
pub fn merge_speaker_text(input: &str, speaker_text: &str) -> (String, String) {
    let st = speaker_text.trim();
    let cjk = st.chars().any(is_cjk);
    let sep = if cjk { "\u{3002}" } else { ". " };
    let allowed: &[char] = if cjk { &['\u{3002}', '\u{ff1f}', '\u{ff01}', '?', '!'] } else { &['.', '?', '!'] };
    let rs = match st.chars().last() {
        None => "",
        Some(c) if !allowed.contains(&c) => sep,
        Some(_) if !cjk => " ",
        Some(_) => "",
    };
    (format!("{st}{rs}{}", input.trim()), rs.trim().to_string())
}

/// `<|energy_E|><|spectral_centroid_S|><|pitch_P|>`, missing ones 0, numbers printed as Python does
/// for the JSON's ints (and floats with a fraction).
fn features(f: &serde_json::Map<String, serde_json::Value>) -> String {
    ["energy", "spectral_centroid", "pitch"]
        .iter()
        .map(|k| {
            let v = f.get(*k).map_or_else(|| "0".to_string(), |v| v.to_string());
            format!("<|{k}_{v}|>")
        })
        .collect()
}

fn create_codes(words: &[SpeakerWord]) -> String {
    let lines: Vec<String> = words
        .iter()
        .map(|w| {
            let codes: String = w.c1.iter().zip(&w.c2).map(|(a, b)| format!("<|c1_{a}|><|c2_{b}|>")).collect();
            format!(
                "{WORD_START}{}{FEATURES}<|t_{:.2}|>{}{CODE}{codes}{WORD_END}",
                w.word,
                w.duration,
                features(&w.features)
            )
        })
        .collect();
    lines.join("\n")
}

/// The completion prompt for `text` in the voice of `speaker` (none: the model picks a voice).
pub fn completion_prompt(text: &str, speaker: Option<&Speaker>) -> String {
    let text = normalize_text(text);
    match speaker {
        None => format!("{BOS}\n{TEXT_START}{text}{TEXT_END}\n{AUDIO_START}\n"),
        Some(s) => {
            let (merged, sep) = merge_speaker_text(&text, &s.text);
            let mut words = s.words.clone();
            if let Some(last) = words.last_mut() {
                last.word.push_str(&sep);
            }
            format!("{BOS}\n{TEXT_START}{merged}{TEXT_END}\n{AUDIO_START}\n{}\n{WORD_START}", create_codes(&words))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_like_outetts() {
        assert_eq!(normalize_text("  a\n\tb \u{201c}c\u{201d}\u{2026} d\u{2014}e\u{7} "), "a b \"c\"... d-e");
    }

    #[test]
    fn merges_with_separator() {
        assert_eq!(merge_speaker_text(" hello ", "Hi there"), ("Hi there. hello".into(), ".".into()));
        assert_eq!(merge_speaker_text("hello", "Hi there!"), ("Hi there! hello".into(), "".into()));
        assert_eq!(merge_speaker_text("hello", ""), ("hello".into(), "".into()));
    }
}
