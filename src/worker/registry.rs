//! What the HTTP layer knows about the loaded models: ids, tokenizers and
//! chat templates (used at the edge to validate and tokenize), limits.
//! Published once by the worker when loading is over.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::text::chat::ChatTemplate;
use crate::text::grammar::GrammarCompiler;
use crate::text::TextTokenizer;

pub struct ModelEntry {
    pub id: String,
    /// Index of the model's scheduler inside the worker.
    pub index: usize,
    pub tokenizer: Arc<TextTokenizer>,
    /// The compiled chat template, or why there is none.
    pub chat: Result<Arc<ChatTemplate>, String>,
    pub vocab: usize,
    pub max_context: usize,
    pub slots: usize,
    /// Unix seconds when the model finished loading.
    pub created: u64,
    /// The structured-output compiler: built in the background once the model is loaded
    /// (`prepare_grammar`), or by the first request that needs it, whichever comes first.
    pub grammar: Arc<OnceLock<Result<Arc<GrammarCompiler>, String>>>,
}

type GrammarCell = OnceLock<Result<Arc<GrammarCompiler>, String>>;

fn build_grammar(
    cell: &GrammarCell,
    tokenizer: &Arc<TextTokenizer>,
    vocab: usize,
) -> Result<Arc<GrammarCompiler>, String> {
    cell.get_or_init(|| GrammarCompiler::new(tokenizer.clone(), vocab).map(Arc::new)).clone()
}

impl ModelEntry {
    /// The model's grammar compiler; blocks while it is being built.
    pub fn grammar(&self) -> Result<Arc<GrammarCompiler>, String> {
        build_grammar(&self.grammar, &self.tokenizer, self.vocab)
    }

    /// Starts building the grammar compiler on a thread of its own (a second or two for a 150k-token
    /// vocabulary), so the first structured request does not wait for it.
    pub fn prepare_grammar(&self) {
        let (cell, tokenizer, vocab, id) = (self.grammar.clone(), self.tokenizer.clone(), self.vocab, self.id.clone());
        let spawned = std::thread::Builder::new().name("grammar-index".into()).spawn(move || {
            if let Err(e) = build_grammar(&cell, &tokenizer, vocab) {
                tracing::warn!(model = %id, "structured output unavailable: {e}");
            }
        });
        if let Err(e) = spawned {
            tracing::warn!("could not start the grammar index thread (the first request builds it): {e}");
        }
    }
}

#[derive(Debug, Clone)]
pub struct LoadFailure {
    pub id: String,
    pub error: String,
}

/// A loaded speech-to-text model.
pub struct SpeechEntry {
    pub id: String,
    /// Index of the model in the worker's speech list.
    pub index: usize,
    /// ISO codes `language` may take.
    pub languages: Vec<String>,
    /// Whether it can time words (timestamp_granularities[]=word).
    pub words: bool,
    pub created: u64,
}

/// A loaded text-to-speech voice, as the HTTP layer needs it to validate a request and run the
/// voice's text front end.
pub struct VoiceEntry {
    pub name: String,
    /// Index of the voice inside the worker.
    pub index: usize,
    pub info: crate::models::voice::VoiceInfo,
}

/// A loaded embedding model, as the HTTP layer needs it to tokenize and validate a request.
pub struct EmbedEntry {
    pub id: String,
    /// Index of the model in the worker's embedding list.
    pub index: usize,
    pub tokenizer: Arc<TextTokenizer>,
    pub vocab: usize,
    /// The full vector's width.
    pub dims: usize,
    /// Most tokens one input may have.
    pub max_tokens: usize,
    /// The widths `dimensions` may ask for (empty: any up to `dims`); None: no truncation.
    pub matryoshka: Option<Vec<usize>>,
    /// Whether vectors are L2-normalised (a truncated one is normalised again).
    pub normalize: bool,
    pub created: u64,
}

#[derive(Default)]
pub struct Registry {
    pub models: Vec<ModelEntry>,
    pub embedders: Vec<EmbedEntry>,
    pub speech: Vec<SpeechEntry>,
    pub voices: Vec<VoiceEntry>,
    pub failures: Vec<LoadFailure>,
    /// OpenAI's transcription model and voice names, mapped onto what is loaded.
    pub openai: crate::config::OpenAiNames,
    /// The health of the device these models live on (None without a GPU). Once it is lost the
    /// registry is stale: the handle stops offering it before the worker has failed what was in
    /// flight, so a client told "device lost" never sees /ready answer 200 from before the loss.
    pub device: Option<Arc<crate::gpu::DeviceHealth>>,
}

impl Registry {
    pub fn find(&self, id: &str) -> Option<&ModelEntry> {
        self.models.iter().find(|m| m.id == id)
    }

    /// Every id the server answers for: LLMs, transcription models and voices.
    pub fn served(&self) -> Vec<&str> {
        let llms = self.models.iter().map(|m| m.id.as_str());
        llms.chain(self.embedders.iter().map(|m| m.id.as_str()))
            .chain(self.speech.iter().map(|m| m.id.as_str()))
            .chain(self.voices.iter().map(|v| v.name.as_str()))
            .collect()
    }

    pub fn find_embedder(&self, id: &str) -> Option<&EmbedEntry> {
        self.embedders.iter().find(|m| m.id == id)
    }

    /// A transcription model by id; OpenAI's names (`whisper-1`, ...) mean the first one.
    pub fn find_speech(&self, id: &str) -> Option<&SpeechEntry> {
        let exact = self.speech.iter().find(|m| m.id == id);
        exact
            .or_else(|| self.openai.transcription_models.iter().any(|n| n == id).then(|| self.speech.first()).flatten())
    }

    /// The index of a voice by name; an OpenAI voice name (`alloy`, ...) means the voice the
    /// table maps it to, or the first voice where that one is not loaded.
    pub fn voice_index(&self, name: &str) -> Option<usize> {
        let by_name = |n: &str| self.voices.iter().position(|v| v.name == n);
        by_name(name).or_else(|| {
            let target = self.openai.voices.get(name)?;
            by_name(target).or_else(|| (!self.voices.is_empty()).then_some(0))
        })
    }
}

/// The chat template of a model folder, compiled; bos/eos strings come from
/// tokenizer_config.json since templates refer to them by text.
pub fn chat_template_for(tok: &TextTokenizer, dir: &Path) -> Result<Arc<ChatTemplate>, String> {
    let source = tok
        .chat_template
        .as_deref()
        .ok_or("the model ships no chat template (tokenizer_config.json has no chat_template)")?;
    let config: serde_json::Value = std::fs::read_to_string(dir.join("tokenizer_config.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let text = |v: &serde_json::Value| v.as_str().or_else(|| v["content"].as_str()).map(String::from);
    ChatTemplate::new(source, text(&config["bos_token"]), text(&config["eos_token"]))
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn voice(name: &str, index: usize) -> VoiceEntry {
        struct Silent;
        impl crate::models::voice::FrontEnd for Silent {
            fn units(&self, _: &str) -> Result<crate::models::voice::SpeechUnits, crate::models::voice::FrontEndError> {
                Ok(crate::models::voice::SpeechUnits { units: vec![], input_tokens: 0 })
            }
        }
        let info = crate::models::voice::VoiceInfo {
            sample_rate: 22050,
            variable_speed: true,
            language: Some("en-us".into()),
            front_end: Arc::new(Silent),
        };
        VoiceEntry { name: name.into(), index, info }
    }

    fn speech(id: &str, index: usize) -> SpeechEntry {
        SpeechEntry { id: id.into(), index, languages: vec!["en".into()], words: true, created: 0 }
    }

    fn registry() -> Registry {
        let openai = crate::config::OpenAiNames {
            transcription_models: vec!["whisper-1".into(), "gpt-4o-transcribe".into()],
            voices: [("alloy", "amy"), ("echo", "joe"), ("nova", "gone")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        Registry {
            speech: vec![speech("whisper-tiny.en", 0), speech("moonshine-base", 1)],
            voices: vec![voice("joe", 0), voice("amy", 1)],
            openai,
            ..Registry::default()
        }
    }

    #[test]
    fn openai_transcription_names_mean_the_first_model_and_real_ids_win() {
        let r = registry();
        assert_eq!(r.find_speech("whisper-1").map(|m| m.index), Some(0));
        assert_eq!(r.find_speech("gpt-4o-transcribe").map(|m| m.index), Some(0));
        assert_eq!(r.find_speech("moonshine-base").map(|m| m.index), Some(1));
        assert!(r.find_speech("gpt-4o-mini-transcribe").is_none(), "only the configured names");
        assert!(r.find_speech("whisper-2").is_none());
        let empty = Registry { openai: r.openai.clone(), ..Registry::default() };
        assert!(empty.find_speech("whisper-1").is_none(), "no model loaded: nothing to alias");
    }

    #[test]
    fn openai_voices_follow_the_table_then_fall_back_to_the_first_voice() {
        let r = registry();
        assert_eq!(r.voice_index("amy"), Some(1));
        assert_eq!(r.voice_index("alloy"), Some(1), "mapped to amy");
        assert_eq!(r.voice_index("echo"), Some(0), "mapped to joe");
        assert_eq!(r.voice_index("nova"), Some(0), "its voice is not loaded: the first one");
        assert_eq!(r.voice_index("shimmer"), None, "not in the table");
        assert_eq!(r.voice_index("Joe"), None, "names are exact");
        let empty = Registry { openai: r.openai.clone(), ..Registry::default() };
        assert_eq!(empty.voice_index("alloy"), None);
    }
}
