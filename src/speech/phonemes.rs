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
