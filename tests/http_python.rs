//! Runs the Python suite (tests/http: the official `openai` SDK, and
//! openapi-core checks of every response against openapi.yaml) against a
//! server started here, with an API key. Needs python3 with the packages in
//! tests/http/requirements.txt; fails (does not skip) without them.

mod http_support;

use std::process::Command;

use gerbil::config::ModelSpec;
use http_support::*;

#[test]
fn python_openai_sdk_and_openapi_suite() {
    require_python_modules("openai, pytest, openapi_core, openapi_spec_validator, jsonschema, yaml");
    // Room for the tool-calling prompt (test_tool_calls_parse_into_the_sdk_types).
    let mut cfg = long_context_config();
    cfg.api_key = Some("python-suite-key".into());
    // The decoder-embedder fixture beside it, for the SDK's embeddings call.
    let embed_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen3_embed");
    let mut embed = ModelSpec::from_source(&embed_dir.to_string_lossy());
    embed.name = Some("embed".into());
    cfg.models.push(embed);
    let server = start(cfg);
    let status = Command::new("python3")
        .args(["-m", "pytest", "tests/http", "-q", "--tb=short", "-p", "no:cacheprovider"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GERBIL_BASE_URL", &server.base)
        .env("GERBIL_API_KEY", "python-suite-key")
        .env("GERBIL_MODEL", MODEL)
        .env("GERBIL_EMBED_MODEL", "embed")
        .status()
        .expect("run pytest");
    assert!(status.success(), "the Python HTTP suite failed (output above)");
}
