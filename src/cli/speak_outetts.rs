//! `gerbil speak --codec <dac> --voice <backbone>`: OuteTTS 1.0 to an audio file, or with `--bench`
//! the backbone's code rate (tokens/s), the DAC's decode time, and the real-time factor, after a
//! warm-up, plus the DAC alone on 10 s of random codes.

use std::time::Instant;

use anyhow::Context;

use super::speak::SpeakArgs;
use crate::audio::AudioFormat;
use crate::models::llm::LoadOptions;
use crate::gpu::{Gpu, GpuOptions};
use crate::models::outetts::{CodeSampling, OuteTts};
use crate::speech::sentences;
use crate::weights::hub::resolve_model;
use crate::weights::WeightFormat;

const BENCH_TEXT: &str = "The quick brown fox jumps over the lazy dog. \
    A local inference server answers requests without sending data anywhere else.";

pub fn run(args: SpeakArgs, out_format: AudioFormat) -> anyhow::Result<()> {
    if args.speed != 1.0 {
        anyhow::bail!("--speed is not supported by OuteTTS voices");
    }
    let hub = crate::config::hub_options_from_env(true);
    let home = |p: &str| crate::config::VoiceSpec::piper("", p).path().to_string_lossy().into_owned();
    let backbone = resolve_model(&home(&args.voice), &hub)?;
    let codec = resolve_model(&home(args.codec.as_deref().unwrap_or_default()), &hub)?;
    let gpu = Gpu::new(&GpuOptions::default())?;
    eprintln!("adapter: {} ({})", gpu.caps.adapter_name, gpu.caps.backend);
    let format = if args.f32 { WeightFormat::F32 } else { WeightFormat::Int4 { group: 32 } };
    let speaker = args.speaker.as_deref().map(std::path::Path::new);
    let mut tts = OuteTts::load(&gpu, &backbone, &codec, speaker, LoadOptions { format, ..Default::default() })
        .with_context(|| format!("loading {} + {}", backbone.display(), codec.display()))?;
    let sampling = if args.greedy {
        CodeSampling::greedy(args.max_new_tokens)
    } else {
        CodeSampling { seed: Some(args.seed), max_new_tokens: args.max_new_tokens, ..Default::default() }
    };
    if args.bench {
        let _ = tts.synthesize("Warm up.", &sampling)?;
        let r = speak(&mut tts, BENCH_TEXT, &sampling)?;
        report("bench", &r, tts.sample_rate());
        // The DAC alone: 750 frames (10 s at 75 frames/s for the real codec).
        let frames = 750;
        let n = tts.dac.config.codebook_size as u32;
        let codes: Vec<Vec<u32>> = (0..2).map(|b| (0..frames).map(|i| (i * 7 + b * 13) % n).collect()).collect();
        let _ = tts.dac.decode(&codes)?;
        let t0 = Instant::now();
        let audio = tts.dac.decode(&codes)?;
        let dt = t0.elapsed().as_secs_f64();
        let secs = audio.len() as f64 / tts.sample_rate() as f64;
        println!("dac: {frames} frames -> {secs:.2} s of audio in {:.1} ms (RTF {:.5})", dt * 1e3, dt / secs);
        return Ok(());
    }
    let r = speak(&mut tts, &args.text, &sampling)?;
    let bytes = super::speak_out::encode(out_format, tts.sample_rate(), &r.samples)?;
    std::fs::write(&args.out, bytes).with_context(|| format!("writing {}", args.out.display()))?;
    report(&args.out.display().to_string(), &r, tts.sample_rate());
    Ok(())
}

struct Spoken {
    samples: Vec<f32>,
    first_audio_s: f64,
    total_s: f64,
    tokens: usize,
    frames: usize,
    /// Seconds in the backbone and in the DAC.
    stages: [f64; 2],
}

fn report(what: &str, r: &Spoken, rate: u32) {
    let audio_s = (r.samples.len() as f64 / rate as f64).max(1e-9);
    println!(
        "{what}: {audio_s:.2} s of audio in {:.3} s (RTF {:.4}), first audio after {:.1} ms; backbone {} tokens \
         ({} frames) in {:.3} s = {:.1} tok/s; dac {:.3} s",
        r.total_s,
        r.total_s / audio_s,
        r.first_audio_s * 1e3,
        r.tokens,
        r.frames,
        r.stages[0],
        r.tokens as f64 / r.stages[0].max(1e-9),
        r.stages[1]
    );
}

/// Sentence by sentence, as the server does.
fn speak(tts: &mut OuteTts, text: &str, s: &CodeSampling) -> anyhow::Result<Spoken> {
    let t0 = Instant::now();
    let (mut first, mut samples, mut stages, mut tokens, mut frames) = (None, Vec::new(), [0.0; 2], 0, 0);
    for (i, sentence) in sentences::split(text).iter().enumerate() {
        let p = CodeSampling { seed: s.seed.map(|x| x.wrapping_add(i as u64)), ..s.clone() };
        let out = tts.synthesize(sentence, &p)?;
        first.get_or_insert_with(|| t0.elapsed().as_secs_f64());
        stages[0] += out.timings[0];
        stages[1] += out.timings[1];
        tokens += out.generated.len();
        frames += out.codes[0].len();
        samples.extend(out.audio);
    }
    let total_s = t0.elapsed().as_secs_f64();
    Ok(Spoken { samples, first_audio_s: first.unwrap_or(total_s), total_s, tokens, frames, stages })
}
