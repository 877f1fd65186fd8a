//! Piper's phoneme -> id rules: BOS `^`, then every phoneme (a Unicode code point of the
//! espeak IPA string) followed by the pad `_`, then EOS `$`. Clauses are joined by a space.
//! Code points missing from the voice's map are skipped (as Piper does, with a warning).

use std::collections::HashMap;

pub fn ids(clauses: &[String], map: &HashMap<String, Vec<i64>>) -> Vec<i64> {
    let get = |s: &str| map.get(s).cloned().unwrap_or_default();
    let pad = get("_");
    let mut out = get("^");
    out.extend(&pad);
    let text = clauses.join(" ");
    let mut missing = 0;
    for ch in text.chars() {
        match map.get(ch.encode_utf8(&mut [0; 4]) as &str) {
            Some(id) => {
                out.extend(id);
                out.extend(&pad);
            }
            None => missing += 1,
        }
    }
    if missing > 0 {
        tracing::debug!(missing, "phonemes not in the voice's phoneme_id_map were skipped");
    }
    out.extend(get("$"));
    out
}

/// Phoneme characters in one synthesis unit at most. A sentence is one unit where it fits; a
/// longer one (a run-on paragraph) is cut at clause ends, then between words: the text encoder's
/// attention grows with the square of a unit's length, and VITS voices are trained on sentences.
/// 400 phonemes are about 25 s of speech.
pub const MAX_UNIT_PHONEMES: usize = 400;

/// `clauses` (espeak's, of one sentence) grouped into units of at most `max` characters:
/// whole clauses where they fit, a longer clause cut between words (at spaces), a longer word
/// cut anywhere.
pub fn units(clauses: &[String], max: usize) -> Vec<Vec<String>> {
    let max = max.max(1);
    let mut pieces: Vec<String> = Vec::new();
    for clause in clauses {
        if clause.chars().count() <= max {
            pieces.push(clause.clone());
            continue;
        }
        let mut cur = String::new();
        for word in clause.split(' ').filter(|w| !w.is_empty()) {
            let chars: Vec<char> = word.chars().collect();
            for part in chars.chunks(max) {
                let len = cur.chars().count();
                if len > 0 && len + 1 + part.len() > max {
                    pieces.push(std::mem::take(&mut cur));
                }
                if !cur.is_empty() {
                    cur.push(' ');
                }
                cur.extend(part);
            }
        }
        if !cur.is_empty() {
            pieces.push(cur);
        }
    }
    // Clauses are joined by a space inside a unit (as `ids` does).
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut len = 0;
    for p in pieces {
        let n = p.chars().count();
        match out.last_mut() {
            Some(u) if len + 1 + n <= max => {
                u.push(p);
                len += 1 + n;
            }
            _ => {
                out.push(vec![p]);
                len = n;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::units;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn short_sentences_stay_whole() {
        let c = s(&["həlˈoʊ,", "wˈɜːld."]);
        assert_eq!(units(&c, 400), vec![c.clone()]);
    }

    #[test]
    fn long_sentences_cut_at_clauses_then_words_then_anywhere() {
        // Clauses grouped while their joined length (with a space) fits 11.
        assert_eq!(units(&s(&["abcd,", "efgh,", "ijk."]), 11), vec![s(&["abcd,", "efgh,"]), s(&["ijk."])]);
        // A clause over the limit is cut between words; each unit within 7 characters.
        let u = units(&s(&["aa bbb cc dddd e"]), 7);
        assert_eq!(u, vec![s(&["aa bbb"]), s(&["cc dddd"]), s(&["e"])]);
        // A word over the limit is cut anywhere; nothing is lost.
        let u = units(&s(&["abcdefghij"]), 4);
        assert_eq!(u, vec![s(&["abcd"]), s(&["efgh"]), s(&["ij"])]);
        for max in [1, 3, 5, 8] {
            let c = s(&["xy zzzzzzz w,", "q r s."]);
            let u = units(&c, max);
            assert!(u.iter().all(|unit| unit.join(" ").chars().count() <= max), "max {max}: {u:?}");
            let kept: String = u.iter().flatten().flat_map(|p| p.chars()).filter(|c| *c != ' ').collect();
            let want: String = c.iter().flat_map(|p| p.chars()).filter(|c| *c != ' ').collect();
            assert_eq!(kept, want, "max {max}");
        }
    }
}
