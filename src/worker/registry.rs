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

/// A loaded text-to-speech voice, as the HTTP layer needs it to validate and phonemize.
pub struct VoiceEntry {
    pub name: String,
    /// Index of the voice inside the worker.
    pub index: usize,
    pub sample_rate: u32,
    /// Piper voices take phoneme ids (espeak at the edge); OuteTTS voices take the text itself.
    pub kind: crate::config::VoiceKind,
    pub espeak_voice: String,
    pub phoneme_id_map: Arc<std::collections::HashMap<String, Vec<i64>>>,
    pub defaults: crate::models::piper::InferenceConfig,
}

#[derive(Default)]
pub struct Registry {
    pub models: Vec<ModelEntry>,
    pub speech: Vec<SpeechEntry>,
    pub voices: Vec<VoiceEntry>,
    pub failures: Vec<LoadFailure>,
}

impl Registry {
    pub fn find(&self, id: &str) -> Option<&ModelEntry> {
        self.models.iter().find(|m| m.id == id)
    }

    /// Every id the server answers for: LLMs, transcription models and voices.
    pub fn served(&self) -> Vec<&str> {
        let llms = self.models.iter().map(|m| m.id.as_str());
        llms.chain(self.speech.iter().map(|m| m.id.as_str()))
            .chain(self.voices.iter().map(|v| v.name.as_str()))
            .collect()
    }

    pub fn find_speech(&self, id: &str) -> Option<&SpeechEntry> {
        self.speech.iter().find(|m| m.id == id)
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
