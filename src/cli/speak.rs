//! `gerbil speak`: synthesize text with a voice of any family to an audio file (wav, mp3, flac,
//! opus or pcm, by `--out`'s extension; see speak_out.rs), or with `--bench` measure time to first
//! audio and real-time factor on a 1-sentence and a 20-sentence input. The voice is loaded and
//! driven through `models::voice`, as the server does.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

use crate::config::{VoiceSpec, WeightKind};
use crate::executor::Executor;
use crate::gpu::GpuOptions;
use crate::models::load_voice;
use crate::models::voice::{AudioSink, SynthOptions, Voice, VoiceLoad};

#[derive(clap::Args, Debug)]
pub struct SpeakArgs {
    /// The voice's weights: a file, a folder or a hub path, as its family reads them
    /// (docs/text-to-speech.md). Default: the server's default voice.
    #[arg(long)]
    pub voice: Option<String>,
    /// The voice family (as `kind` in a config's [[voices]]). Default: the first family.
    #[arg(long)]
    pub kind: Option<String>,
    #[arg(long, default_value = "Hello from gerbil. This voice runs on the GPU.")]
    pub text: String,
    /// Output file; its extension picks the format: wav, mp3, flac, opus or pcm (raw s16le).
    #[arg(long, default_value = "speech.wav")]
    pub out: PathBuf,
    /// Speaking rate (0.25 - 4.0), for voices that take one.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f32,
    /// Noise seed of the first sentence (the next ones count up from it).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Time to first audio and real-time factor for 1 and 20 sentences (after a warm-up).
    #[arg(long)]
    pub bench: bool,
    /// For families whose codes a separate codec decodes: the codec (folder or repo id).
    #[arg(long)]
    pub codec: Option<String>,
    /// For families that clone a speaker: the speaker profile file.
    #[arg(long)]
    pub speaker: Option<String>,
    /// For families with a text-model backbone: its weights in f32 instead of INT4.
    #[arg(long)]
    pub f32: bool,
    /// Context limit of a text-model backbone.
    #[arg(long, default_value_t = 8192)]
    pub max_context: usize,
}

const BENCH_SENTENCES: &[&str] = &[
    "The quick brown fox jumps over the lazy dog.",
    "A local inference server answers requests without sending data anywhere else.",
    "Every kernel is tested against a plain reference on random inputs.",
    "The weather today is clear, with a light breeze from the west.",
    "Please remember to water the plants before you leave for the weekend.",
];

/// The voice the flags describe; without --voice, the server's default voice.
fn spec(args: &SpeakArgs) -> anyhow::Result<VoiceSpec> {
    let mut spec = match &args.voice {
        Some(source) => VoiceSpec::new("cli", source),
        None => crate::config::default_voice().context("the built-in configuration names no voice")?,
    };
    if args.kind.is_some() {
        spec.kind = args.kind.clone();
    }
    spec.codec = args.codec.clone().or(spec.codec);
    spec.speaker = args.speaker.clone().or(spec.speaker);
    if args.f32 {
        spec.format = WeightKind::F32;
    }
    Ok(spec)
}

pub fn run(args: SpeakArgs) -> anyhow::Result<()> {
    if args.text.trim().is_empty() && !args.bench {
        anyhow::bail!("--text is empty: nothing to speak");
    }
    if !(0.25..=4.0).contains(&args.speed) {
        anyhow::bail!("--speed must be between 0.25 and 4.0");
    }
    let format = super::speak_out::format_of(&args.out)?;
    let spec = spec(&args)?;
    let hub = crate::config::hub_options_from_env(true);
    crate::speech::espeak::set_data_root(hub.cache_dir.clone());
    let exec = Executor::new(&GpuOptions::default())?;
    eprintln!("adapter: {} ({})", exec.caps().adapter_name, exec.caps().backend);
    let load = VoiceLoad { exec, spec: &spec, hub: &hub, max_context: args.max_context };
    let mut voice = load_voice(&load).with_context(|| format!("loading the voice {}", spec.source))?.voice;
    let info = voice.info();
    if args.speed != 1.0 && !info.variable_speed {
        anyhow::bail!("--speed: this voice speaks at its own pace");
    }
    let opts = SynthOptions { speed: args.speed as f64, seed: args.seed };
    if args.bench {
        speak(voice.as_mut(), BENCH_SENTENCES[0], opts)?; // warm-up: pipelines compiled, caches filled
        for n in [1, 20] {
            let text: Vec<&str> = (0..n).map(|i| BENCH_SENTENCES[i % BENCH_SENTENCES.len()]).collect();
            let r = speak(voice.as_mut(), &text.join(" "), opts)?;
            let audio_s = r.samples.len() as f64 / info.sample_rate as f64;
            println!(
                "{n:>2} sentence(s): first audio after {:.1} ms, {audio_s:.2} s of audio in {:.3} s, RTF {:.4}",
                r.first_audio_s * 1e3,
                r.total_s,
                r.total_s / audio_s.max(1e-9),
            );
        }
        return Ok(());
    }
    let r = speak(voice.as_mut(), &args.text, opts)?;
    let bytes = super::speak_out::encode(format, info.sample_rate, &r.samples)?;
    std::fs::write(&args.out, bytes).with_context(|| format!("writing {}", args.out.display()))?;
    let audio_s = r.samples.len() as f64 / info.sample_rate as f64;
    eprintln!(
        "{}: {audio_s:.2} s of audio in {:.3} s (RTF {:.4}), first audio after {:.1} ms",
        args.out.display(),
        r.total_s,
        r.total_s / audio_s.max(1e-9),
        r.first_audio_s * 1e3,
    );
    Ok(())
}

/// Every sample a voice hands over, and when the first came.
struct Collect {
    t0: Instant,
    first_audio_s: Option<f64>,
    samples: Vec<f32>,
}

impl AudioSink for Collect {
    fn wants_more(&self) -> bool {
        true
    }

    fn audio(&mut self, samples: Vec<f32>) {
        self.first_audio_s.get_or_insert_with(|| self.t0.elapsed().as_secs_f64());
        self.samples.extend(samples);
    }
}

struct Spoken {
    samples: Vec<f32>,
    first_audio_s: f64,
    total_s: f64,
}

/// Unit by unit, as the server does: the voice's front end, then each unit with its own seed.
fn speak(voice: &mut dyn Voice, text: &str, opts: SynthOptions) -> anyhow::Result<Spoken> {
    let t0 = Instant::now();
    let units = voice.info().front_end.units(text)?;
    let mut sink = Collect { t0, first_audio_s: None, samples: Vec::new() };
    for (i, unit) in units.units.iter().enumerate() {
        voice.synthesize(unit, SynthOptions { seed: opts.seed.wrapping_add(i as u64), ..opts }, &mut sink)?;
    }
    let total_s = t0.elapsed().as_secs_f64();
    Ok(Spoken { first_audio_s: sink.first_audio_s.unwrap_or(total_s), samples: sink.samples, total_s })
}
