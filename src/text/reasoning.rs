//! Reasoning text apart from the answer, for models that think before they answer in
//! `<think>...</think>` (Qwen3, QwQ, DeepSeek-R1 and their distills): what is inside goes to the
//! response's `reasoning_content` (vLLM's and llama-server's field), the rest to `content`, and tool
//! calls are parsed from `content` only. Works on streamed text: a piece that may be the start of a
//! tag is held back until the next piece says whether it is one.

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing but whitespace yet: an opening tag may still come.
    Start,
    Reasoning,
    /// After the closing tag: whitespace before the answer is dropped.
    AfterClose,
    Content,
}

#[derive(Debug, Clone)]
pub struct ReasoningSplitter {
    state: State,
    held: String,
}

/// Text released by one piece: reasoning and answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Split {
    pub reasoning: String,
    pub content: String,
}

/// The length of the longest end of `text` that is a proper start of `tag`.
fn partial_tag(text: &str, tag: &str) -> usize {
    (1..tag.len().min(text.len() + 1))
        .rev()
        .find(|&n| text.is_char_boundary(text.len() - n) && tag.starts_with(&text[text.len() - n..]))
        .unwrap_or(0)
}

impl ReasoningSplitter {
    /// `inside`: the prompt itself opened the reasoning (templates that end the generation prompt
    /// with `<think>`), so the text starts inside it.
    pub fn new(inside: bool) -> Self {
        ReasoningSplitter { state: if inside { State::Reasoning } else { State::Start }, held: String::new() }
    }

    /// Whether a prompt the chat template rendered leaves the model inside its reasoning.
    pub fn prompt_opens(prompt: &str) -> bool {
        prompt.trim_end().ends_with(OPEN)
    }

    pub fn push(&mut self, piece: &str) -> Split {
        let mut out = Split::default();
        self.held.push_str(piece);
        loop {
            let text = std::mem::take(&mut self.held);
            match self.state {
                State::Start => {
                    let body = text.trim_start();
                    if let Some(rest) = body.strip_prefix(OPEN) {
                        self.state = State::Reasoning;
                        self.held = rest.to_string();
                        continue;
                    }
                    if OPEN.starts_with(body) {
                        // Whitespace, or the tag's start: wait for more.
                        self.held = text;
                    } else {
                        self.state = State::Content;
                        out.content.push_str(&text);
                    }
                }
                State::Reasoning => match text.find(CLOSE) {
                    Some(at) => {
                        out.reasoning.push_str(&text[..at]);
                        self.state = State::AfterClose;
                        self.held = text[at + CLOSE.len()..].to_string();
                        continue;
                    }
                    None => {
                        let keep = partial_tag(&text, CLOSE);
                        out.reasoning.push_str(&text[..text.len() - keep]);
                        self.held = text[text.len() - keep..].to_string();
                    }
                },
                State::AfterClose => {
                    let body = text.trim_start();
                    if !body.is_empty() {
                        self.state = State::Content;
                        out.content.push_str(body);
                    }
                }
                State::Content => out.content.push_str(&text),
            }
            return out;
        }
    }

    /// The end of the text: what was held goes out (an unclosed reasoning stays reasoning).
    pub fn finish(&mut self) -> Split {
        let text = std::mem::take(&mut self.held);
        match self.state {
            State::Reasoning => Split { reasoning: text, content: String::new() },
            State::AfterClose => Split::default(),
            State::Start | State::Content => Split { reasoning: String::new(), content: text },
        }
    }

    /// A whole text at once.
    pub fn split(text: &str, inside: bool) -> Split {
        let mut s = ReasoningSplitter::new(inside);
        let mut out = s.push(text);
        let rest = s.finish();
        out.reasoning.push_str(&rest.reasoning);
        out.content.push_str(&rest.content);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(reasoning: &str, content: &str) -> Split {
        Split { reasoning: reasoning.into(), content: content.into() }
    }

    /// Every way of cutting `text` into two and three pieces gives the whole text's split.
    fn streamed_like_whole(text: &str, inside: bool) {
        let whole = ReasoningSplitter::split(text, inside);
        let cuts: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        for &a in &cuts {
            for &b in cuts.iter().filter(|&&b| b >= a) {
                let mut s = ReasoningSplitter::new(inside);
                let mut got = Split::default();
                for piece in [&text[..a], &text[a..b], &text[b..]] {
                    let o = s.push(piece);
                    got.reasoning.push_str(&o.reasoning);
                    got.content.push_str(&o.content);
                }
                let o = s.finish();
                got.reasoning.push_str(&o.reasoning);
                got.content.push_str(&o.content);
                assert_eq!(got, whole, "{text:?} cut at {a}, {b}");
            }
        }
    }

    #[test]
    fn reasoning_and_answer_are_told_apart() {
        let r = ReasoningSplitter::split;
        assert_eq!(r("<think>\nhm, 2+2\n</think>\n\nIt is 4.", false), split("\nhm, 2+2\n", "It is 4."));
        assert_eq!(r("\n <think>a</think>b", false), split("a", "b"), "whitespace before the tag");
        assert_eq!(r("It is 4.", false), split("", "It is 4."));
        assert_eq!(
            r("It is <think>4</think>.", false),
            split("", "It is <think>4</think>."),
            "a tag inside the answer"
        );
        assert_eq!(r("hm</think>\n\nIt is 4.", true), split("hm", "It is 4."), "the prompt opened it");
        assert_eq!(r("<think>still thinking", false), split("still thinking", ""), "cut off while thinking");
        assert_eq!(r("<think>a</think>", false), split("a", ""));
        assert_eq!(r("<thin", false), split("", "<thin"), "the start of a tag, never finished");
        assert_eq!(r("a < b </thi", true), split("a < b </thi", ""));
        assert_eq!(r("", false), split("", ""));
    }

    #[test]
    fn streamed_pieces_split_as_the_whole_text() {
        for (text, inside) in [
            ("<think>\nhm, é 2+2\n</think>\n\nIt is 4.", false),
            ("  <think>a</think>  b <think>c", false),
            ("<thinx>no", false),
            ("x </think> y </think>\n z", true),
            ("é</thi", true),
        ] {
            streamed_like_whole(text, inside);
        }
    }

    #[test]
    fn pieces_are_released_as_soon_as_they_cannot_be_a_tag() {
        let mut s = ReasoningSplitter::new(false);
        assert_eq!(s.push("\n<th"), Split::default(), "held: may open the reasoning");
        assert_eq!(s.push("ink>step one </"), split("step one ", ""));
        assert_eq!(s.push("b>"), split("</b>", ""), "not the closing tag");
        assert_eq!(s.push("</think>\n"), Split::default());
        assert_eq!(s.push("\nAnswer"), split("", "Answer"));
        assert_eq!(s.push(" <"), split("", " <"), "the answer is not held");
        assert_eq!(ReasoningSplitter::new(false).push("Hi"), split("", "Hi"));
        assert!(ReasoningSplitter::prompt_opens("<|im_start|>assistant\n<think>\n"));
        assert!(!ReasoningSplitter::prompt_opens("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
    }
}
