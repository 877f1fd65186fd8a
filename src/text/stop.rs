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
}
