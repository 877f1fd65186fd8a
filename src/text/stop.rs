//! Stop strings over streamed text. A stop string may span several tokens, so
//! text that could be the start of one is held back until the next piece
//! shows whether it is; text past a match is never released.

/// Finds the first occurrence of any stop string in a stream of text pieces.
#[derive(Debug, Default)]
pub struct StopMatcher {
    stops: Vec<String>,
    held: String,
    stopped: bool,
}

/// What one piece of text released.
#[derive(Debug, PartialEq, Eq)]
pub struct Released {
    /// Text that is certainly part of the output.
    pub text: String,
    /// A stop string matched: `text` ends right before it and nothing follows.
    pub stopped: bool,
}

impl StopMatcher {
    pub fn new(stops: Vec<String>) -> Self {
        StopMatcher {
            stops: stops.into_iter().filter(|s| !s.is_empty()).collect(),
            held: String::new(),
            stopped: false,
        }
    }

    pub fn stopped(&self) -> bool {
        self.stopped
    }

    pub fn push(&mut self, piece: &str) -> Released {
        if self.stopped {
            return Released { text: String::new(), stopped: true };
        }
        self.held.push_str(piece);
        if let Some(at) = self.first_match() {
            self.stopped = true;
            let text = self.held[..at].to_string();
            self.held.clear();
            return Released { text, stopped: true };
        }
        let keep = self.partial_suffix_len();
        let cut = self.held.len() - keep;
        let text = self.held[..cut].to_string();
        self.held.drain(..cut);
        Released { text, stopped: false }
    }

    /// The end of the stream: whatever was held back is output after all.
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }

    fn first_match(&self) -> Option<usize> {
        self.stops.iter().filter_map(|s| self.held.find(s.as_str())).min()
    }

    /// Length of the longest suffix of `held` that is a proper prefix of a
    /// stop string (and so might become a match with more text).
    fn partial_suffix_len(&self) -> usize {
        let h = &self.held;
        let mut best = 0;
        for s in &self.stops {
            let longest = (s.len() - 1).min(h.len());
            for len in (best + 1..=longest).rev() {
                let start = h.len() - len;
                if h.is_char_boundary(start) && s.starts_with(&h[start..]) {
                    best = len;
                    break;
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stops: &[&str], pieces: &[&str]) -> (String, bool) {
        let mut m = StopMatcher::new(stops.iter().map(|s| s.to_string()).collect());
        let mut out = String::new();
        for p in pieces {
            let r = m.push(p);
            out.push_str(&r.text);
            if r.stopped {
                return (out, true);
            }
        }
        out.push_str(&m.finish());
        (out, false)
    }

    #[test]
    fn match_spanning_pieces() {
        assert_eq!(run(&["lo wo"], &["hel", "lo", " w", "orld"]), ("hel".into(), true));
    }

    #[test]
    fn partial_prefix_is_released_when_it_fails() {
        assert_eq!(run(&["abc"], &["xa", "b", "d"]), ("xabd".into(), false));
        assert_eq!(run(&["abc"], &["xa", "b"]), ("xab".into(), false));
    }

    #[test]
    fn earliest_of_several_stops_wins() {
        assert_eq!(run(&["zz", "b"], &["abzz"]), ("a".into(), true));
    }

    #[test]
    fn holds_back_only_what_could_match() {
        let mut m = StopMatcher::new(vec!["END".into()]);
        assert_eq!(m.push("fine E").text, "fine ");
        assert_eq!(m.push("x").text, "Ex");
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        assert_eq!(run(&["é!"], &["café", "?"]), ("café?".into(), false));
        assert_eq!(run(&["é!"], &["caf", "é", "!"]), ("caf".into(), true));
    }

    /// Every push's release, and `stopped()`, along a stream.
    fn pushes(m: &mut StopMatcher, pieces: &[&str]) -> Vec<(String, bool, bool)> {
        pieces
            .iter()
            .map(|p| {
                let r = m.push(p);
                (r.text, r.stopped, m.stopped())
            })
            .collect()
    }

    fn rel(text: &str, stopped: bool) -> (String, bool, bool) {
        (text.to_string(), stopped, stopped)
    }

    #[test]
    fn stopped_is_false_until_a_match_then_true_for_good() {
        let mut m = StopMatcher::new(vec!["</s>".into()]);
        assert!(!m.stopped(), "a fresh matcher has not stopped");
        assert_eq!(pushes(&mut m, &["ab<", "/", "s"]), vec![rel("ab", false), rel("", false), rel("", false)]);
        assert!(!m.stopped(), "a held partial match is not a stop");
        // The last piece completes the stop string: nothing of it, nor after it, is released.
        assert_eq!(pushes(&mut m, &[">tail"]), vec![rel("", true)]);
        assert!(m.stopped());
        // Later pieces release nothing and keep saying stopped; nothing is left held.
        assert_eq!(pushes(&mut m, &["more", "</s>"]), vec![rel("", true), rel("", true)]);
        assert_eq!(m.finish(), "");
        assert!(m.stopped());
        // No stop strings (empty ones are dropped): nothing is held and nothing stops.
        let mut m = StopMatcher::new(vec![String::new()]);
        assert_eq!(pushes(&mut m, &["a", ""]), vec![rel("a", false), rel("", false)]);
        assert_eq!(m.finish(), "");
    }

    #[test]
    fn stop_completed_by_the_last_piece_releases_only_the_text_before_it() {
        // Spanning three pieces, completed by the last one (as on the last token max_tokens allows).
        let mut m = StopMatcher::new(vec!["STOP".into(), "never".into()]);
        assert_eq!(pushes(&mut m, &["go ST", "O", "P"]), vec![rel("go ", false), rel("", false), rel("", true)]);
        assert_eq!(m.finish(), "");
        // The same stream cut one piece earlier (the length limit came first): the held
        // partial match is output after all.
        let mut m = StopMatcher::new(vec!["STOP".into(), "never".into()]);
        assert_eq!(pushes(&mut m, &["go ST", "O"]), vec![rel("go ", false), rel("", false)]);
        assert_eq!(m.finish(), "STO");
        // A last piece that completes the stop string and goes on: the rest is cut.
        assert_eq!(run(&["STOP"], &["go ST", "OP and more"]), ("go ".into(), true));
        // A partial match that fails releases what it held, and a later one can still match.
        assert_eq!(run(&["STOP"], &["ST", "x ST", "OP"]), ("STx ".into(), true));
    }

    #[test]
    fn multibyte_stop_strings_hold_and_release_whole_characters() {
        // "日本語" is 9 bytes; a held "日本" is 6 bytes on char boundaries.
        let mut m = StopMatcher::new(vec!["日本語".into()]);
        assert_eq!(pushes(&mut m, &["a日", "本", "x"]), vec![rel("a", false), rel("", false), rel("日本x", false)]);
        // Held at the end of the stream: flushed whole by `finish`.
        let mut m = StopMatcher::new(vec!["日本語".into()]);
        assert_eq!(pushes(&mut m, &["a日", "本"]), vec![rel("a", false), rel("", false)]);
        assert_eq!(m.finish(), "日本");
        // Completed by the last piece.
        assert_eq!(run(&["日本語"], &["a日", "本", "語b"]), ("a".into(), true));
        // The byte-wise suffix search skips starts inside a character: after "本" (e6 9c ac)
        // the 1- and 2-byte suffixes are not sliced (that would panic) nor held.
        assert_eq!(run(&["é!"], &["本", "é"]), ("本é".into(), false));
        assert_eq!(run(&["é!"], &["本é", "!"]), ("本".into(), true));
        // U+FFFD (what a lossy decode makes of held bytes) is a character like any other.
        assert_eq!(run(&["s\u{FFFD}"], &["es", "\u{FFFD}"]), ("e".into(), true));
    }

    fn with_held(stops: &[&str], held: &str) -> StopMatcher {
        StopMatcher { stops: stops.iter().map(|s| s.to_string()).collect(), held: held.into(), stopped: false }
    }

    /// `partial_suffix_len` on its own: the longest suffix that is a PROPER prefix of a stop
    /// string. A whole stop string is not a proper prefix of itself (`push` never asks then, as
    /// `first_match` found it first, but the helper must not count it: `s.len() - 1` bounds the
    /// search).
    #[test]
    fn partial_suffix_is_a_proper_prefix_only() {
        assert_eq!(with_held(&["abc"], "xab").partial_suffix_len(), 2);
        assert_eq!(with_held(&["abc"], "ab").partial_suffix_len(), 2);
        assert_eq!(with_held(&["abc"], "xa").partial_suffix_len(), 1);
        assert_eq!(with_held(&["abc"], "xb").partial_suffix_len(), 0);
        assert_eq!(with_held(&["abc"], "").partial_suffix_len(), 0);
        // The whole stop string, alone or at the end: not a proper prefix.
        assert_eq!(with_held(&["abc"], "abc").partial_suffix_len(), 0);
        assert_eq!(with_held(&["abc"], "xabc").partial_suffix_len(), 0);
        assert_eq!(with_held(&["a"], "a").partial_suffix_len(), 0);
        assert_eq!(with_held(&["ab"], "xab").partial_suffix_len(), 0);
        // The longest over several stop strings, whichever comes first.
        assert_eq!(with_held(&["cde", "abcd"], "xabc").partial_suffix_len(), 3);
        assert_eq!(with_held(&["abcd", "cde"], "xabc").partial_suffix_len(), 3);
        assert_eq!(with_held(&["bcx", "abcd"], "zzbc").partial_suffix_len(), 2);
        // In bytes, on char boundaries: "é" is 2 bytes; "本" (3) cannot start "é!".
        assert_eq!(with_held(&["é!"], "café").partial_suffix_len(), 2);
        assert_eq!(with_held(&["é!"], "本").partial_suffix_len(), 0);
        assert_eq!(with_held(&["日本語"], "a日本").partial_suffix_len(), 6);
    }
}
