//! Splits input text at sentence boundaries so the first sentence can be synthesized and
//! sent while the rest waits.

/// Sentences of `text`: split after `.`, `!`, `?` (and runs of them, with closing quotes or
/// brackets) followed by whitespace, and at blank lines. Empty pieces are dropped.
pub fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        cur.push(c);
        let end_punct = matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？');
        let blank_line = c == '\n' && chars.get(i + 1) == Some(&'\n');
        if end_punct || blank_line {
            // Keep trailing punctuation, quotes and brackets with this sentence.
            while let Some(&n) = chars.get(i + 1) {
                if matches!(n, '.' | '!' | '?' | '"' | '\'' | ')' | ']' | '”' | '’') {
                    cur.push(n);
                    i += 1;
                } else {
                    break;
                }
            }
            let next_is_space = chars.get(i + 1).is_none_or(|n| n.is_whitespace());
            if next_is_space || blank_line {
                push(&mut out, &mut cur);
            }
        }
        i += 1;
    }
    push(&mut out, &mut cur);
    out
}

fn push(out: &mut Vec<String>, cur: &mut String) {
    let s = cur.trim();
    if s.chars().any(|c| c.is_alphanumeric()) {
        out.push(s.to_string());
    }
    cur.clear();
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_sentences() {
        assert_eq!(split("Hello world. How are you? Fine!"), ["Hello world.", "How are you?", "Fine!"]);
        assert_eq!(split("Version 1.5 is out... Really?!"), ["Version 1.5 is out...", "Really?!"]);
        assert_eq!(split("He said \"stop.\" Then left"), ["He said \"stop.\"", "Then left"]);
        assert_eq!(split("  ...  "), Vec::<String>::new());
        assert_eq!(split("one\n\ntwo"), ["one", "two"]);
    }
}
