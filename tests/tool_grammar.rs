//! The grammar of forced tool calls (`text::tools::call_grammar`) on the fixture's vocabulary:
//! schemas with awkward text and with local `$ref`s compile, and the output they force parses
//! back into calls with arguments of the right tool.

use std::path::Path;
use std::sync::Arc;

use gerbil::text::grammar::{greedy_tokens, GrammarCompiler, OutputFormat};
use gerbil::text::tools::{call_grammar, parse_calls, Tool, ToolCall};
use gerbil::text::TextTokenizer;
use serde_json::{json, Value};

/// The calls a pseudo-random greedy walk through the forced-call grammar writes.
fn forced_calls(tools: &[Tool], max: usize) -> Vec<ToolCall> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen3");
    let tok = Arc::new(TextTokenizer::from_dir(&dir, &[0]).unwrap());
    let compiler = GrammarCompiler::new(tok.clone(), tok.vocab_size()).unwrap();
    let mut c = compiler.compile(&OutputFormat::Lark(call_grammar(tools, max))).unwrap();
    let mut step = 0u32;
    let ids = greedy_tokens(
        &mut c,
        300,
        |id| tok.is_eos(id),
        |_| {
            step += 1;
            (0..tok.vocab_size()).map(|i| ((i as u32 * 7919 + step * 104_729) % 1000) as f32).collect()
        },
    )
    .unwrap();
    let text = tok.decode(&ids).unwrap();
    let (content, calls) = parse_calls(&text, tools);
    assert!(content.is_empty() && !calls.is_empty() && calls.len() <= max, "{text:?}");
    calls
}

/// Descriptions and enum values with quotes, braces and backslashes survive the trip into the
/// Lark text.
#[test]
fn forced_calls_with_awkward_schemas_compile_and_parse() {
    let tools = vec![Tool {
        name: "say".into(),
        description: Some("quote \" brace } backslash \\ end".into()),
        parameters: json!({
            "type": "object",
            "properties": { "word": { "enum": ["a\"b", "c}d", "e\\f"], "description": "}{\"" } },
            "required": ["word"], "additionalProperties": false
        }),
    }];
    let calls = forced_calls(&tools, 1);
    let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
    assert!(["a\"b", "c}d", "e\\f"].contains(&args["word"].as_str().unwrap()), "{calls:?}");
}

/// Pydantic writes nested models as `$defs` + `$ref`; two tools may both call theirs "Inner".
#[test]
fn tool_schemas_with_local_refs_compile() {
    let tool = |name: &str, inner: Value| Tool {
        name: name.into(),
        description: None,
        parameters: json!({
            "$defs": { "Inner": inner },
            "type": "object",
            "properties": { "x": { "$ref": "#/$defs/Inner" } },
            "required": ["x"], "additionalProperties": false
        }),
    };
    let tools = vec![tool("first", json!({ "enum": ["one"] })), tool("second", json!({ "enum": ["two"] }))];
    for max in [1, 3] {
        for call in forced_calls(&tools, max) {
            let want = if call.name == "first" { "{\"x\":\"one\"}" } else { "{\"x\":\"two\"}" };
            assert_eq!(call.arguments, want);
        }
    }
}

/// Instance data that looks like a reference (a `const` holding `{"$ref": ...}`) is kept as
/// written when the schema moves under the calls' root; a property named like a keyword is
/// still a schema whose references move.
#[test]
fn reference_shaped_data_is_not_rehomed() {
    let tools = vec![Tool {
        name: "pin".into(),
        description: None,
        parameters: json!({
            "$defs": { "Inner": { "enum": ["one"] } },
            "type": "object",
            "properties": {
                "const": { "$ref": "#/$defs/Inner" },
                "literal": { "const": { "$ref": "#/$defs/Inner" } }
            },
            "required": ["const", "literal"], "additionalProperties": false
        }),
    }];
    let calls = forced_calls(&tools, 1);
    assert_eq!(calls[0].arguments, r##"{"const":"one","literal":{"$ref":"#/$defs/Inner"}}"##);
}
