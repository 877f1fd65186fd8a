//! Every voice family through the one voice interface (`models::voice`), as the worker and
//! `gerbil speak` drive it: loaded by its `kind`, its front end's units synthesized into a sink.
//! The interface must give exactly what the family's own API gives for the same settings (the
//! request's speed mapped onto the family's rate, the seed passed through), refuse another family's
//! units, stop a long synthesis once the sink wants no more, and fail a misconfigured voice alone.

mod common;

use std::path::PathBuf;

use common::exec;
use gerbil::config::VoiceSpec;
use gerbil::models::load_voice;
use gerbil::models::piper::{PiperVoice, SynthParams};
use gerbil::models::voice::{AudioSink, LoadedVoice, SpeechUnit, SynthOptions, VoiceLoad};
use gerbil::models::ModelError;

/// Collects audio; wants no more after `budget` checks (None: always wants more).
struct Sink {
    chunks: Vec<Vec<f32>>,
    budget: Option<std::cell::Cell<usize>>,
}

impl Sink {
    fn new() -> Self {
        Sink { chunks: Vec::new(), budget: None }
    }
    fn samples(&self) -> Vec<f32> {
        self.chunks.concat()
    }
}

impl AudioSink for Sink {
    fn wants_more(&self) -> bool {
        match &self.budget {
            None => true,
            Some(left) => {
                let n = left.get();
                left.set(n.saturating_sub(1));
                n > 0
            }
        }
    }
    fn audio(&mut self, samples: Vec<f32>) {
        self.chunks.push(samples);
    }
}

fn load(spec: &VoiceSpec) -> Result<LoadedVoice, ModelError> {
    let hub = gerbil::config::hub_options_from_env(true);
    load_voice(&VoiceLoad { exec: exec(), spec, hub: &hub, max_context: 192 })
}

fn piper_dir() -> PathBuf {
    let p = gerbil::config::test_assets_dir().join("piper/en_US-joe-medium");
    assert!(p.join("model.safetensors").exists(), "{} is missing: run tools/fetch_test_assets.sh", p.display());
    p
}

fn outetts_spec() -> VoiceSpec {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outetts");
    let mut spec = VoiceSpec::new("oute", &dir.join("llama").to_string_lossy());
    spec.kind = Some("outetts".into());
    spec.codec = Some(dir.join("dac").to_string_lossy().into_owned());
    spec.speaker = Some(dir.join("speaker.json").to_string_lossy().into_owned());
    spec
}

/// The default kind is Piper's; speed 2 and seed 5 through the interface are the voice's own
/// length scale halved and seed 5 through `PiperVoice::synthesize`, sample for sample.
#[test]
fn piper_through_the_interface_is_piper_with_the_requests_rate_and_seed() {
    let spec = VoiceSpec::new("joe", &piper_dir().to_string_lossy());
    let mut voice = load(&spec).unwrap().voice;
    let info = voice.info();
    assert_eq!((info.sample_rate, info.variable_speed, info.language.as_deref()), (22050, true, Some("en-us")));
    let units = info.front_end.units("Hello world. A second sentence!").unwrap();
    assert_eq!(units.units.len(), 2, "{units:?}");
    let SpeechUnit::Ids(ids) = &units.units[0] else { panic!("piper units are phoneme ids: {units:?}") };
    assert!(units.input_tokens > ids.len() / 2, "input tokens count phonemes: {units:?}");

    let direct = PiperVoice::load(&exec(), &piper_dir()).unwrap();
    let c = direct.config.inference;
    for (speed, seed) in [(2.0, 5), (0.5, 9)] {
        let mut sink = Sink::new();
        voice.synthesize(&units.units[0], SynthOptions { speed, seed }, &mut sink).unwrap();
        let want = SynthParams {
            noise_scale: c.noise_scale,
            length_scale: (c.length_scale as f64 / speed) as f32,
            noise_w: c.noise_w,
            seed,
        };
        let want = direct.synthesize(ids, want).unwrap().audio;
        assert_eq!(sink.samples(), want, "speed {speed}, seed {seed}");
    }
    let err =
        voice.synthesize(&SpeechUnit::Text("hello".into()), SynthOptions { speed: 1.0, seed: 0 }, &mut Sink::new());
    assert!(err.is_err(), "a text unit is another family's");
    let silent = info.front_end.units(" ... ").unwrap();
    assert!(silent.units.is_empty() && silent.input_tokens == 0, "nothing to say: no units, {silent:?}");
}

/// OuteTTS reads normalized text at its own pace; a sink that stops wanting audio stops the
/// backbone's generation early (fewer codes, so less audio).
#[test]
fn outetts_through_the_interface_reads_text_and_stops_when_nobody_listens() {
    let mut voice = load(&outetts_spec()).unwrap().voice;
    let info = voice.info();
    assert_eq!((info.sample_rate, info.variable_speed, info.language), (24000, false, None));
    let units = info.front_end.units("Hello there.   A second one!").unwrap();
    assert_eq!(units.units, [SpeechUnit::Text("Hello there.".into()), SpeechUnit::Text("A second one!".into())]);
    assert_eq!(units.input_tokens, "Hello there.".len() + "A second one!".len());

    let opts = SynthOptions { speed: 1.0, seed: 3 };
    let mut whole = Sink::new();
    voice.synthesize(&units.units[0], opts, &mut whole).unwrap();
    let mut again = Sink::new();
    voice.synthesize(&units.units[0], opts, &mut again).unwrap();
    assert_eq!(whole.samples(), again.samples(), "the same seed gives the same audio");
    let mut cut = Sink { chunks: Vec::new(), budget: Some(std::cell::Cell::new(2)) };
    voice.synthesize(&units.units[0], opts, &mut cut).unwrap();
    assert!(
        cut.samples().len() < whole.samples().len(),
        "stopped after 2 tokens: {} samples, whole: {}",
        cut.samples().len(),
        whole.samples().len()
    );
    let ids = SpeechUnit::Ids(vec![1, 2, 3]);
    assert!(voice.synthesize(&ids, opts, &mut Sink::new()).is_err(), "phoneme ids are another family's");
}

/// A kind nobody registered, a family's required field missing, another family's field given:
/// each is that voice's own load error, naming what is wrong.
#[test]
fn misconfigured_voices_fail_their_own_load_with_the_reason() {
    let mut unknown = VoiceSpec::new("x", &piper_dir().to_string_lossy());
    unknown.kind = Some("nosuchfamily".into());
    let e = load(&unknown).err().expect("unknown kind").to_string();
    assert!(e.contains("'nosuchfamily'") && e.contains("piper, outetts"), "{e}");

    let mut no_codec = outetts_spec();
    no_codec.codec = None;
    let e = load(&no_codec).err().expect("no codec").to_string();
    assert!(e.contains("`codec`"), "{e}");

    let mut piper_with_codec = VoiceSpec::new("joe", &piper_dir().to_string_lossy());
    piper_with_codec.codec = Some("somewhere".into());
    let e = load(&piper_with_codec).err().expect("codec on a piper voice").to_string();
    assert!(e.contains("`codec`"), "{e}");
}
