//! `gerbil transcribe FILE`: decode an audio file, transcribe it, print the
//! transcript (text, json, verbose_json, srt or vtt); `--bench` prints the
//! real-time factor on stderr.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

use crate::audio;
use crate::executor::Executor;
use crate::gpu::GpuOptions;
use crate::models::speech::TranscribeOptions;
use crate::text::subtitles;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    #[value(name = "verbose_json")]
    VerboseJson,
    Srt,
    Vtt,
}

#[derive(clap::Args, Debug)]
pub struct TranscribeArgs {
    /// Audio file (wav, flac, mp3, ogg/vorbis, m4a/aac).
    pub file: PathBuf,
    /// Speech model: a Hugging Face repo id or a folder (transformers layout, CTranslate2
    /// Whisper model.bin, or Moonshine .ort files). Default: the server's (Whisper tiny.en).
    #[arg(long, env = "GERBIL_STT_MODEL")]
    pub model: Option<String>,
    #[arg(long)]
    pub language: Option<String>,
    /// Initial prompt (spelling, style).
    #[arg(long)]
    pub prompt: Option<String>,
    /// 0: greedy with fallback; > 0: sampling (at most 1, as the HTTP route).
    #[arg(long, default_value_t = 0.0, value_parser = temperature)]
    pub temperature: f32,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print audio seconds, wall time and real-time factor (wall / audio) on stderr.
    #[arg(long)]
    pub bench: bool,
    /// Repeat the clip until it lasts at least this many seconds (benchmarks of long audio).
    #[arg(long)]
    pub tile_to: Option<f64>,
    /// Time each word too (verbose_json then lists `words`).
    #[arg(long)]
    pub word_timestamps: bool,
    /// Runs (with --bench: the first warms up, the rest are timed).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
}

/// `--temperature`: a number in [0, 1], as the HTTP route takes.
fn temperature(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("must be a number between 0 and 1, got '{s}'")),
    }
}

pub fn run(args: TranscribeArgs) -> anyhow::Result<()> {
    // As the HTTP route: words only where verbose_json has a place for them.
    if args.word_timestamps && args.format != Format::VerboseJson {
        anyhow::bail!("--word-timestamps needs --format verbose_json (the other formats have no place for words)");
    }
    let bytes = std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let ext = args.file.extension().and_then(|e| e.to_str()).map(str::to_lowercase);
    let mut pcm =
        audio::load_16k(bytes, ext.as_deref()).with_context(|| format!("decoding {}", args.file.display()))?;
    // Silence is refused as the HTTP route refuses it (Whisper "hears" words in it); before
    // tiling, which would loop forever on a clip resampled to nothing.
    audio::check_not_silent(&pcm).with_context(|| format!("{} has nothing to transcribe", args.file.display()))?;
    if let Some(secs) = args.tile_to {
        let want = (secs * audio::MODEL_RATE as f64) as usize;
        let clip = pcm.clone();
        while pcm.len() < want {
            pcm.extend_from_slice(&clip);
        }
    }
    // Resolved (perhaps downloaded) only once the audio is known to be worth it.
    let source = args.model.clone().unwrap_or_else(crate::config::default_stt_model);
    let source = crate::config::expand_home(&source).to_string_lossy().into_owned();
    let dir = crate::weights::sources::speech_model(&source, &crate::config::hub_options_from_env(true))?.path;
    let exec = Executor::new(&GpuOptions::default())?;
    let t0 = Instant::now();
    let mut model =
        crate::models::load_transcriber(&exec, &dir).with_context(|| format!("loading {}", dir.display()))?;
    let load_s = t0.elapsed().as_secs_f64();
    // As the HTTP route: a language the model does not know is refused, not silently ignored.
    let language = args.language.as_deref().map(|l| l.trim().to_lowercase());
    if let Some(l) = &language {
        let known = model.languages();
        if !known.iter().any(|x| x == l) {
            anyhow::bail!("--language '{l}' is not supported by {} (supported: {})", dir.display(), known.join(", "));
        }
    }
    if args.word_timestamps && !model.word_timestamps() {
        anyhow::bail!("--word-timestamps: {} does not time words", dir.display());
    }
    let opts = TranscribeOptions {
        language,
        prompt: args.prompt.clone(),
        temperature: args.temperature,
        seed: None,
        word_timestamps: args.word_timestamps,
    };
    let audio_s = pcm.len() as f64 / audio::MODEL_RATE as f64;
    let mut times = Vec::new();
    let mut result = None;
    for _ in 0..args.runs {
        let t = Instant::now();
        result = Some(model.transcribe(&pcm, &opts, &mut |_| std::ops::ControlFlow::Continue(()))?);
        times.push(t.elapsed().as_secs_f64());
    }
    let tr = result.expect("one run");
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Text => writeln!(out, "{}", tr.text)?,
        Format::Json => writeln!(out, "{}", serde_json::json!({ "text": tr.text }))?,
        Format::VerboseJson => {
            writeln!(out, "{}", serde_json::to_string_pretty(&tr.verbose_json(args.word_timestamps))?)?
        }
        Format::Srt => write!(out, "{}", subtitles::srt(&tr.segments))?,
        Format::Vtt => write!(out, "{}", subtitles::vtt(&tr.segments))?,
    }
    if args.bench {
        let timed = if times.len() > 1 { &times[1..] } else { &times[..] };
        let wall = timed.iter().sum::<f64>() / timed.len() as f64;
        eprintln!(
            "audio {:.2}s | load {:.2}s | transcribe {:.3}s (mean of {} run(s)) | RTF {:.4} ({:.1}x real time) | {} segments | {}",
            audio_s,
            load_s,
            wall,
            timed.len(),
            wall / audio_s,
            audio_s / wall,
            tr.segments.len(),
            exec.caps().adapter_name
        );
    }
    Ok(())
}
