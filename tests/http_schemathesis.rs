//! The server against its own openapi.yaml, with schemathesis (property-based: requests generated
//! from the document, `--checks all`): every request the document calls valid is served, every one it
//! calls invalid is refused with a 4xx in OpenAI's error shape, every response and SSE event matches the
//! document, and nothing answers 5xx. tests/schemathesis/st_hooks.py adds what a static document cannot
//! state about this server (its models, voices, vocabulary and limits). Bounded example count and a
//! fixed seed, so CI runs the same cases each time; `GERBIL_ST_EXAMPLES` and `GERBIL_ST_SEED` widen it
//! by hand. Needs python3 with tests/http/requirements.txt; fails (does not skip) without them.

mod http_support;

use std::process::Command;

use gerbil::config::{ModelSpec, SttModelSpec, VoiceSpec};
use http_support::*;

const VOICE: &str = "joe";
const STT: &str = "whisper-tiny.en";
const EMBED: &str = "embed";

fn schemathesis(server: &TestServer, vocab: usize, extra: &[&str]) -> bool {
    let examples = std::env::var("GERBIL_ST_EXAMPLES").unwrap_or_else(|_| "25".into());
    let seed = std::env::var("GERBIL_ST_SEED").unwrap_or_else(|_| "20261206".into());
    let openai_voices =
        ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"];
    let voices = std::iter::once(VOICE).chain(openai_voices).collect::<Vec<_>>().join(",");
    let stt = [STT, "whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"].join(",");
    let cfg = config_for_test();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemathesis");
    let schema = server.url("/openapi.yaml");
    let mut args = vec![
        "-c",
        "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'schemathesis'; sys.exit(schemathesis())",
        "run",
        &schema,
        "--url",
        &server.base,
        "--checks",
        "all",
        "--max-examples",
        &examples,
        "--seed",
        &seed,
        "--generation-database",
        "none",
        "--request-timeout",
        "120",
        // Software Vulkan on a CI machine: a transcription or a speech request may take tens of seconds.
        "--max-response-time",
        "120",
        "--workers",
        "1",
        // Checks on the data generator itself, not the server: on a busy 2-core machine it may be slow,
        // and the hooks' filters reject some drafts by design.
        "--suppress-health-check",
        "too_slow,filter_too_much",
    ];
    args.extend_from_slice(extra);
    Command::new("python3")
        .args(&args)
        .env("PYTHONPATH", dir)
        .env("SCHEMATHESIS_HOOKS", "st_hooks")
        .env("GERBIL_ST_MAX_TOKENS", cfg.limits.max_tokens.to_string())
        .env("GERBIL_ST_MAX_N", cfg.limits.max_n.to_string())
        .env("GERBIL_ST_VOCAB", vocab.to_string())
        .env("GERBIL_ST_VOICES", voices)
        .env("GERBIL_ST_TEXT_MODELS", MODEL)
        .env("GERBIL_ST_STT_MODELS", stt)
        .env("GERBIL_ST_EMBED_MODELS", EMBED)
        // The embedding fixture: 64 wide, a 256-token context.
        .env("GERBIL_ST_EMBED_DIMS", "64")
        .env("GERBIL_ST_EMBED_TOKENS", "256")
        // ~4 bytes a character, a token a byte at most: 200 characters stay well inside 2048 positions.
        .env("GERBIL_ST_PROMPT_CHARS", "200")
        .env("GERBIL_ST_SPEECH_CHARS", "60")
        .status()
        .expect("run schemathesis")
        .success()
}

/// The fixture with a 2048-token context (room for a tool-calling prompt), the embedding fixture, a
/// voice, a transcription model, and a low max_tokens so that generation on software Vulkan stays short.
fn config_for_test() -> gerbil::config::ServeConfig {
    let assets = gerbil::config::test_assets_dir();
    let (voice, whisper) = (assets.join("piper/en_US-joe-medium"), assets.join("whisper-tiny-en"));
    assert!(voice.exists() && whisper.exists(), "run tools/fetch_test_assets.sh");
    let mut cfg = long_context_config();
    cfg.voices = vec![VoiceSpec::new(VOICE, &voice.to_string_lossy())];
    cfg.stt_models = vec![SttModelSpec { source: whisper, name: Some(STT.into()) }];
    let embed_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen3_embed");
    let mut embed = ModelSpec::from_source(&embed_dir.to_string_lossy());
    embed.name = Some(EMBED.into());
    cfg.models.push(embed);
    cfg.limits.max_tokens = 8;
    cfg.limits.max_n = 4;
    cfg.limits.request_timeout_s = 300;
    cfg
}

#[test]
fn the_server_keeps_to_its_openapi_document() {
    require_python_modules("schemathesis");
    let server = start(config_for_test());
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture().join("config.json")).unwrap()).unwrap();
    let vocab = config["vocab_size"].as_u64().expect("vocab_size") as usize;
    // The transcription route in its own run without the coverage phase: that phase sends its own
    // "binary" examples (a PNG, a ZIP) past the hook that makes `file` real audio, and random bytes
    // answering 400 naming `file` is tested in tests/http_errors.rs.
    let rest = schemathesis(&server, vocab, &["--exclude-path", "/v1/audio/transcriptions"]);
    let stt = schemathesis(
        &server,
        vocab,
        &["--include-path", "/v1/audio/transcriptions", "--phases", "examples,fuzzing,stateful"],
    );
    assert!(rest && stt, "schemathesis found requests or responses that break openapi.yaml (report above)");
}
