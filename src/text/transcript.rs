//! A transcript: timed segments and words, as a speech-to-text model hands them out
//! (`models::speech::SpeechModel`) and the HTTP layer renders them (OpenAI's verbose_json here,
//! SubRip and WebVTT in `subtitles`). Plain data, below the models that fill it.

/// One word and its time in seconds (OpenAI's verbose_json `words`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Word {
    pub word: String,
    pub start: f64,
    pub end: f64,
}

/// One timed piece of the transcript (OpenAI's verbose_json segment).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Segment {
    pub id: usize,
    /// Window start, in mel frames (10 ms each), as OpenAI reports it.
    pub seek: usize,
    pub start: f64,
    pub end: f64,
    pub text: String,
    pub tokens: Vec<u32>,
    pub temperature: f32,
    pub avg_logprob: f64,
    pub compression_ratio: f64,
    pub no_speech_prob: f64,
    /// The segment's words when word timestamps were asked for (reported at
    /// the top level of verbose_json, as OpenAI does).
    #[serde(skip)]
    pub words: Vec<Word>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Transcript {
    pub text: String,
    pub language: String,
    /// Seconds of audio.
    pub duration: f64,
    pub segments: Vec<Segment>,
}

impl Transcript {
    /// Every segment's words in order.
    pub fn words(&self) -> Vec<Word> {
        self.segments.iter().flat_map(|s| s.words.iter().cloned()).collect()
    }

    /// OpenAI's verbose_json body (without usage); `words` at the top level when asked for.
    pub fn verbose_json(&self, words: bool) -> serde_json::Value {
        let mut v = serde_json::json!({
            "task": "transcribe",
            "language": self.language,
            "duration": self.duration,
            "text": self.text,
            "segments": self.segments,
        });
        if words {
            v["words"] = serde_json::json!(self.words());
        }
        v
    }
}
