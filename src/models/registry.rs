//! Where the transcriber, encoder-embedder and voice families are registered: the transcribers and
//! encoders by config.json's `model_type`, the voices by the `kind` a `[[voices]]` entry names. Adding one is a folder and a
//! line here. (The text families are registered with the text model interface, in
//! `llm/architectures.rs`: a voice may speak through a text model, so the text model must not
//! depend on the voices.)

use std::path::Path;

use super::embedding::{EmbedConfig, EmbeddingModel};
use super::speech::SpeechModel;
use super::voice::{LoadedVoice, VoiceLoad, VoiceLoader};
use super::{bert, moonshine, outetts, piper, read_json, whisper, ModelError};
use crate::executor::Executor;

/// A transcriber family's loader: the executor and the folder holding its config.json.
pub type TranscriberLoader = fn(&Executor, &Path) -> Result<Box<dyn SpeechModel>, ModelError>;

/// config.json `model_type` of the speech-to-text families, and their loaders.
pub const TRANSCRIBER_FAMILIES: &[(&str, TranscriberLoader)] = &[
    ("whisper", |exec, dir| Ok(Box::new(whisper::WhisperTranscriber::load(exec, dir)?))),
    ("moonshine", |exec, dir| Ok(Box::new(moonshine::MoonshineTranscriber::load(exec, dir)?))),
];

/// Loads the speech model in `dir` by its config.json `model_type`.
pub fn load_transcriber(exec: &Executor, dir: &Path) -> Result<Box<dyn SpeechModel>, ModelError> {
    #[derive(serde::Deserialize)]
    struct Head {
        model_type: Option<String>,
    }
    let path = dir.join("config.json");
    let head: Head = read_json(&path)?;
    let kind = head.model_type.as_deref();
    match transcriber_family(kind) {
        Some((_, load)) => load(exec, dir),
        None => Err(ModelError::UnknownArchitecture {
            arch: kind.unwrap_or("(none)").to_string(),
            path,
            supported: TRANSCRIBER_FAMILIES.iter().map(|(t, _)| *t).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// The transcriber family whose `model_type` is `kind`, with its loader.
fn transcriber_family(kind: Option<&str>) -> Option<&'static (&'static str, TranscriberLoader)> {
    TRANSCRIBER_FAMILIES.iter().find(|(t, _)| Some(*t) == kind)
}

/// An encoder embedding family's loader: the folder, its pooling, and the most tokens an input may have.
/// (Decoder embedders are text models: `llm::embed`.)
pub type EncoderLoader = fn(&Executor, &Path, EmbedConfig, usize) -> Result<Box<dyn EmbeddingModel>, ModelError>;

/// config.json `model_type` of the encoder embedding families, and their loaders.
pub const ENCODER_EMBEDDERS: &[(&str, EncoderLoader)] =
    &[("bert", |exec, dir, config, max| Ok(Box::new(bert::load(exec, dir, config, max)?)))];

/// The encoder embedding family of the checkpoint in `dir`, where its config.json names one.
pub fn encoder_embedder(dir: &Path) -> Option<EncoderLoader> {
    #[derive(serde::Deserialize)]
    struct Head {
        model_type: Option<String>,
    }
    let head: Head = read_json(&dir.join("config.json")).ok()?;
    ENCODER_EMBEDDERS.iter().find(|(t, _)| head.model_type.as_deref() == Some(*t)).map(|(_, l)| *l)
}

/// Every voice family, by the `kind` a `[[voices]]` entry names (the first is the default).
pub const VOICE_FAMILIES: &[(&str, VoiceLoader)] = &[("piper", piper::voice::load), ("outetts", outetts::voice::load)];

/// The kinds a config may name, for messages.
pub fn known_voice_kinds() -> String {
    VOICE_FAMILIES.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}

/// Loads the voice `load.spec` describes with its family's loader.
pub fn load_voice(load: &VoiceLoad) -> Result<LoadedVoice, ModelError> {
    let kind = load.spec.kind.as_deref().unwrap_or(VOICE_FAMILIES[0].0);
    let (_, loader) = VOICE_FAMILIES
        .iter()
        .find(|(k, _)| *k == kind)
        .ok_or_else(|| ModelError::Unsupported(format!("voice kind '{kind}' (known: {})", known_voice_kinds())))?;
    loader(load)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each model_type finds its own family, anything else none.
    #[test]
    fn a_model_type_picks_its_own_transcriber() {
        for (kind, _) in TRANSCRIBER_FAMILIES {
            let found = transcriber_family(Some(kind)).unwrap_or_else(|| panic!("{kind}: no loader"));
            assert_eq!(found.0, *kind);
        }
        assert!(transcriber_family(Some("wav2vec2")).is_none());
        assert!(transcriber_family(None).is_none());
    }
}
