//! The `gerbil` binary: one CLI over the library.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "gerbil", version, about = "Local inference server: OpenAI-compatible HTTP over a wgpu engine")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate a completion for one prompt and print it with tokens/s.
    Complete(gerbil::cli::complete::CompleteArgs),
    /// Measure kernels and whole-model decode with random weights of real configs.
    Bench(gerbil::cli::bench::BenchArgs),
    /// Write the post-fusion decode dispatch list as JSON.
    DumpGraph(gerbil::cli::dump_graph::DumpGraphArgs),
    /// Time one decode step per dispatch with GPU timestamps.
    Profile(gerbil::cli::profile::ProfileArgs),
    /// Transcribe an audio file (speech to text).
    Transcribe(gerbil::cli::transcribe::TranscribeArgs),
    /// Serve the OpenAI-compatible HTTP API.
    Serve(gerbil::cli::serve::ServeArgs),
    /// Synthesize speech to an audio file, format by --out's extension (or --bench: time to first audio, RTF).
    Speak(gerbil::cli::speak::SpeakArgs),
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn,gerbil=info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match Cli::parse().command {
        Command::Complete(args) => gerbil::cli::complete::run(args),
        Command::Bench(args) => gerbil::cli::bench::run(args),
        Command::DumpGraph(args) => gerbil::cli::dump_graph::run(args),
        Command::Profile(args) => gerbil::cli::profile::run(args),
        Command::Serve(args) => gerbil::cli::serve::run(args),
        Command::Transcribe(args) => gerbil::cli::transcribe::run(args),
        Command::Speak(args) => gerbil::cli::speak::run(args),
    }
}
