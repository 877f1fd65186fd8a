//! OuteTTS 1.0: a Llama (or Qwen3) backbone whose vocabulary carries the audio tokens `<|c1_N|>` and
//! `<|c2_N|>` of a 2-codebook DAC, prompted with a speaker profile (prompt.rs), decoded by the text
//! engine (greedy on the GPU, or sampled on the CPU with outetts' recommended settings), its codes
//! parsed back out and decoded to 24 kHz audio by the DAC on the GPU (models/dac).

pub mod prompt;
pub mod sampling;
pub mod voice;

use std::collections::HashMap;
use std::path::Path;

pub use prompt::{completion_prompt, Speaker};
pub use sampling::CodeSampling;

use crate::executor::Executor;
use crate::models::dac::Dac;
use crate::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use crate::models::ModelError;
use crate::text::TextTokenizer;

/// A loaded OuteTTS voice: backbone, codec, speaker, and one reusable sequence.
pub struct OuteTts {
    pub model: TextModel,
    pub dac: Dac,
    pub speaker: Option<Speaker>,
    session: Session,
    /// Token id -> (codebook 0 or 1, code).
    audio_tokens: HashMap<u32, (usize, u32)>,
    stop: Vec<u32>,
}

/// One synthesis: the prompt, what the backbone wrote, the codes parsed from it and the audio.
pub struct OuteSynthesis {
    pub prompt_ids: Vec<u32>,
    pub generated: Vec<u32>,
    pub codes: [Vec<u32>; 2],
    pub audio: Vec<f32>,
    /// Seconds in generation (backbone) and decoding (DAC).
    pub timings: [f64; 2],
}

fn tokenizer(model: &TextModel) -> Result<&TextTokenizer, ModelError> {
    model.tokenizer.as_ref().ok_or_else(|| ModelError::Config {
        path: model.dir.join("tokenizer.json"),
        msg: "an OuteTTS backbone needs its tokenizer.json".into(),
    })
}

/// The single id `text` encodes to, if it is one token.
fn single(tok: &TextTokenizer, text: &str) -> Option<u32> {
    match tok.encode(text, false).ok()?.as_slice() {
        [id] => Some(*id),
        _ => None,
    }
}

impl OuteTts {
    /// Backbone folder (transformers layout with tokenizer.json), DAC folder, optional speaker file.
    pub fn load(
        exec: &Executor,
        backbone: &Path,
        codec: &Path,
        speaker: Option<&Path>,
        opts: LoadOptions,
    ) -> Result<Self, ModelError> {
        let model = TextModel::load(exec, backbone, opts)?;
        let dac = Dac::load(exec, codec)?;
        let tok = tokenizer(&model)?;
        let bad = |msg: String| ModelError::Config { path: backbone.join("tokenizer.json"), msg };
        if dac.config.n_codebooks != 2 {
            return Err(bad(format!("OuteTTS writes 2 codebooks; the codec has {}", dac.config.n_codebooks)));
        }
        // outetts' extract_audio_from_tokens maps exactly these strings to codes.
        let mut audio_tokens = HashMap::new();
        for (book, prefix) in ["c1", "c2"].iter().enumerate() {
            for code in 0..dac.config.codebook_size as u32 {
                let id = single(tok, &format!("<|{prefix}_{code}|>"))
                    .ok_or_else(|| bad(format!("<|{prefix}_{code}|> is not one token: not an OuteTTS tokenizer")))?;
                audio_tokens.insert(id, (book, code));
            }
        }
        let mut stop: Vec<u32> = [prompt::EOS, prompt::AUDIO_END].iter().filter_map(|t| single(tok, t)).collect();
        stop.extend(&tok.eos);
        stop.sort_unstable();
        stop.dedup();
        let speaker = match speaker {
            Some(p) => {
                let s = Speaker::load(p)?;
                if s.max_code() as usize >= dac.config.codebook_size {
                    return Err(ModelError::Config {
                        path: p.into(),
                        msg: format!("code {} is past the codec's {} codes", s.max_code(), dac.config.codebook_size),
                    });
                }
                Some(s)
            }
            None => None,
        };
        let session = Session::new(&model, SessionOptions::default())?;
        Ok(OuteTts { model, dac, speaker, session, audio_tokens, stop })
    }

    pub fn sample_rate(&self) -> u32 {
        self.dac.sample_rate()
    }

    /// Prompt ids for `text` with the loaded speaker (outetts encodes without special-token additions).
    pub fn prompt_ids(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        Ok(tokenizer(&self.model)?.encode(&completion_prompt(text, self.speaker.as_ref()), false)?)
    }

    /// outetts `extract_audio_from_tokens`: the c1 and c2 codes in order, cut to the shorter list.
    pub fn parse_codes(&self, ids: &[u32]) -> [Vec<u32>; 2] {
        let mut codes = [Vec::new(), Vec::new()];
        for id in ids {
            if let Some(&(book, code)) = self.audio_tokens.get(id) {
                codes[book].push(code);
            }
        }
        let t = codes[0].len().min(codes[1].len());
        codes.iter_mut().for_each(|c| c.truncate(t));
        codes
    }

    /// Speaks `text`: prompt, generate until <|audio_end|> / <|im_end|> (or `max_new_tokens`, or the
    /// context), parse the codes, decode them.
    pub fn synthesize(&mut self, text: &str, s: &CodeSampling) -> Result<OuteSynthesis, ModelError> {
        self.synthesize_until(text, s, &mut || true)
    }

    /// `synthesize`, asking `keep_going` after every generated token: false stops generation there
    /// (a client that went away), and the codes so far are decoded.
    pub fn synthesize_until(
        &mut self,
        text: &str,
        s: &CodeSampling,
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Result<OuteSynthesis, ModelError> {
        let t0 = std::time::Instant::now();
        let prompt_ids = self.prompt_ids(text)?;
        let room = self.session.max_seq().saturating_sub(prompt_ids.len());
        if room == 0 {
            return Err(ModelError::ContextFull { need: prompt_ids.len() + 1, max: self.session.max_seq() });
        }
        let max_new = s.max_new_tokens.min(room);
        self.session.reset();
        let stop = self.stop.clone();
        let generated = if s.is_greedy() {
            self.session.generate(&prompt_ids, max_new, |t| !stop.contains(&t) && keep_going())?
        } else {
            sampling::generate(&mut self.session, &prompt_ids, max_new, &stop, s, keep_going)?
        };
        let t1 = std::time::Instant::now();
        let codes = self.parse_codes(&generated);
        let audio = self.dac.decode(&codes)?;
        let timings = [(t1 - t0).as_secs_f64(), t1.elapsed().as_secs_f64()];
        Ok(OuteSynthesis { prompt_ids, generated, codes, audio, timings })
    }
}
