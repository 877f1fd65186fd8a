//! An OuteTTS voice behind the model-agnostic voice interface (`models::voice`): its front end
//! splits sentences and normalizes them as outetts does; the GPU half prompts the backbone with a
//! sentence, samples its codes with outetts' recommended settings and decodes them with the DAC.

use std::sync::Arc;

use super::{prompt, CodeSampling, OuteTts};
use crate::config::WeightKind;
use crate::models::llm::LoadOptions;
use crate::models::voice::{
    wrong_unit, AudioSink, FrontEnd, FrontEndError, LoadedVoice, SpeechUnit, SpeechUnits, SynthOptions, Voice,
    VoiceInfo, VoiceLoad,
};
use crate::models::ModelError;
use crate::speech::sentences;
use crate::weights::sources::resolve_model;

/// Normalized sentences; the input tokens are their characters.
pub struct OuteFrontEnd;

impl FrontEnd for OuteFrontEnd {
    fn units(&self, input: &str) -> Result<SpeechUnits, FrontEndError> {
        let text: Vec<String> =
            sentences::split(input).iter().map(|s| prompt::normalize_text(s)).filter(|s| !s.is_empty()).collect();
        let input_tokens = text.iter().map(|s| s.chars().count()).sum();
        Ok(SpeechUnits { units: text.into_iter().map(SpeechUnit::Text).collect(), input_tokens })
    }
}

struct LoadedOute {
    tts: OuteTts,
    front_end: Arc<OuteFrontEnd>,
}

impl Voice for LoadedOute {
    /// The backbone sets its own pace: there is no rate to scale.
    fn info(&self) -> VoiceInfo {
        VoiceInfo {
            sample_rate: self.tts.sample_rate(),
            variable_speed: false,
            language: None,
            front_end: self.front_end.clone(),
        }
    }

    /// A sentence is hundreds of decode steps: generation stops early once the sink wants no more.
    fn synthesize(
        &mut self,
        unit: &SpeechUnit,
        opts: SynthOptions,
        sink: &mut dyn AudioSink,
    ) -> Result<(), ModelError> {
        let SpeechUnit::Text(text) = unit else { return Err(wrong_unit("outetts")) };
        let sampling = CodeSampling { seed: Some(opts.seed), ..Default::default() };
        let out = self.tts.synthesize_until(text, &sampling, &mut || sink.wants_more())?;
        sink.audio(out.audio);
        Ok(())
    }
}

/// `source` is the backbone and `codec` the DAC (each a folder or a repo id), `speaker` an
/// optional outetts v3 speaker profile.
pub fn load(load: &VoiceLoad) -> Result<LoadedVoice, ModelError> {
    let spec = load.spec;
    let codec = spec.codec_spec().ok_or_else(|| {
        ModelError::Unsupported(format!(
            "an outetts voice ('{}') without `codec` (the DAC folder or repo id)",
            spec.name
        ))
    })?;
    let backbone = resolve_model(&spec.path().to_string_lossy(), load.hub)?;
    let codec = resolve_model(&codec, load.hub)?;
    let opts = backbone_options(spec.format, load.max_context);
    let tts = OuteTts::load(&load.exec, &backbone, &codec, spec.speaker_path().as_deref(), opts)?;
    Ok(LoadedVoice {
        voice: Box::new(LoadedOute { tts, front_end: Arc::new(OuteFrontEnd) }),
        origin: spec.source.clone(),
    })
}

/// The backbone's load options: the voice's weight format, the server's context limit.
fn backbone_options(format: WeightKind, max_context: usize) -> LoadOptions {
    let format = match format {
        WeightKind::F32 => crate::weights::WeightFormat::F32,
        WeightKind::Int4 => crate::weights::WeightFormat::Int4 { group: 32 },
    };
    LoadOptions { format, max_context, ..Default::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::weights::WeightFormat;

    /// Both of the voice's formats and a context other than the default reach the backbone.
    #[test]
    fn the_backbone_loads_in_the_voices_format_within_the_servers_context() {
        let f32 = backbone_options(WeightKind::F32, 192);
        assert_eq!((f32.format, f32.max_context), (WeightFormat::F32, 192));
        let int4 = backbone_options(WeightKind::Int4, 5000);
        assert_eq!((int4.format, int4.max_context), (WeightFormat::Int4 { group: 32 }, 5000));
        assert_ne!(LoadOptions::default().max_context, 192);
    }

    /// One normalized sentence per unit (outetts' `normalize_text`: spaces squeezed), the input
    /// tokens their characters, nothing for input with nothing to say.
    #[test]
    fn units_are_normalized_sentences() {
        let got = OuteFrontEnd.units("Hello   there.  A second\tone!").unwrap();
        let want = ["Hello there.", "A second one!"];
        assert_eq!(got.units, want.map(|s| SpeechUnit::Text(s.into())));
        assert_eq!(got.input_tokens, want.iter().map(|s| s.chars().count()).sum::<usize>());
        assert_eq!(OuteFrontEnd.units("   ").unwrap(), SpeechUnits { units: vec![], input_tokens: 0 });
    }
}
