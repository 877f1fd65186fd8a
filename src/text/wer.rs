//! Word error rate over normalised text (lower case, punctuation removed):
//! the Levenshtein distance between word sequences over the reference length.

/// Lower-cases, drops everything but letters, digits, apostrophes and spaces, splits on whitespace.
pub fn normalize(text: &str) -> Vec<String> {
    text.to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '\'' { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// (substitutions + deletions + insertions) / reference words, on normalised text.
pub fn wer(reference: &str, hypothesis: &str) -> f64 {
    let (r, h) = (normalize(reference), normalize(hypothesis));
    if r.is_empty() {
        return if h.is_empty() { 0.0 } else { 1.0 };
    }
    let mut prev: Vec<usize> = (0..=h.len()).collect();
    for (i, rw) in r.iter().enumerate() {
        let mut cur = vec![i + 1; h.len() + 1];
        for (j, hw) in h.iter().enumerate() {
            let sub = prev[j] + usize::from(rw != hw);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[h.len()] as f64 / r.len() as f64
}

#[cfg(test)]
mod tests {
    use super::wer;

    #[test]
    fn counts_edits_over_reference_words() {
        assert_eq!(wer("Ever tried. Ever failed.", "ever tried, ever failed"), 0.0);
        assert_eq!(wer("a b c d", "a x c d"), 0.25);
        assert_eq!(wer("a b c d", "a c d"), 0.25);
        assert_eq!(wer("a b", "a b c d"), 1.0);
        assert_eq!(wer("", ""), 0.0);
    }
}
