//! Structured output over HTTP: `response_format` (json_object, json_schema) and the
//! `structured_outputs` extension (regex, choice, Lark grammar). The fixture has random weights,
//! so left alone it writes noise: every valid output here is the grammar's doing. Greedy output
//! equals a CPU replay of the engine's logits held to the same grammar.

mod http_support;

use std::sync::Arc;

use gerbil::models::llm::{Session, SessionOptions};
use gerbil::text::grammar::{greedy_tokens, GrammarCompiler, OutputFormat};
use gerbil::text::TextTokenizer;
use http_support::*;
use serde_json::{json, Value};

/// Every field bounded, so a sampled object ends well within max_tokens.
fn person_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "maxLength": 8 },
            "age": { "type": "integer", "minimum": 0, "maximum": 150 },
            "pets": { "type": "array", "items": { "enum": ["cat", "dog"] }, "maxItems": 3 },
            "retired": { "type": "boolean" }
        },
        "required": ["name", "age", "pets", "retired"],
        "additionalProperties": false
    })
}

fn assert_person(text: &str) {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"));
    assert!(v["name"].as_str().is_some_and(|s| s.chars().count() <= 8), "{text}");
    assert!(v["age"].as_u64().is_some_and(|a| a <= 150), "{text}");
    assert!(v["pets"].as_array().is_some_and(|p| p.len() <= 3 && p.iter().all(|x| x == "cat" || x == "dog")));
    assert!(v["retired"].is_boolean() && v.as_object().unwrap().len() == 4, "{text}");
}

fn chat(extra: Value) -> Value {
    let mut body = json!({"model": MODEL, "messages": [{"role": "user", "content": "Describe a person."}],
                          "max_tokens": 200});
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let (status, v) = shared().post("/v1/chat/completions", &body);
    assert_eq!(status, 200, "{v}");
    v
}

fn reasons(v: &Value) -> Vec<String> {
    v["choices"].as_array().unwrap().iter().map(|c| c["finish_reason"].as_str().unwrap().to_string()).collect()
}

#[test]
fn sampled_json_schema_choices_fit_the_schema() {
    let rf =
        json!({"type": "json_schema", "json_schema": {"name": "person", "schema": person_schema(), "strict": true}});
    let v = chat(json!({"response_format": rf, "temperature": 1.0, "seed": 7, "n": 3}));
    for text in texts(&v) {
        assert_person(&text);
    }
    assert_eq!(reasons(&v), vec!["stop"; 3]);
}

#[test]
fn a_structured_stream_is_one_whole_object() {
    let body = |format: Value, stream: bool| {
        let mut b = json!({"model": MODEL, "messages": [{"role": "user", "content": "Some JSON please."}],
                           "max_tokens": 200, "temperature": 0.8, "seed": 3, "stream": stream});
        b.as_object_mut().unwrap().extend(format.as_object().unwrap().clone());
        b
    };
    // A bounded schema ends within max_tokens: the streamed deltas make one whole object of it.
    // (Not compared with a whole response: sampled text may differ by the batch it ran in.)
    let format = json!({"structured_outputs": {"json": person_schema()}});
    let (texts, reasons) = stream_texts(&shared().stream("/v1/chat/completions", &body(format, true)));
    assert_person(&texts[0]);
    assert_eq!(reasons, vec!["stop"]);
}

#[test]
fn regex_choice_and_grammar_hold_completions() {
    let complete = |so: Value, n: u32| {
        let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 40, "temperature": 1.0, "seed": 11,
                          "n": n, "structured_outputs": so});
        let (status, v) = shared().post("/v1/completions", &body);
        assert_eq!(status, 200, "{v}");
        assert_eq!(reasons(&v), vec!["stop"; n as usize], "{v}");
        texts(&v)
    };
    for t in complete(json!({"regex": "[A-Z][a-z]{2,5} [0-9]{3}"}), 4) {
        let (word, num) = t.split_once(' ').unwrap_or_else(|| panic!("{t:?}"));
        assert!(word.len() >= 3 && word.len() <= 6 && word.chars().next().unwrap().is_ascii_uppercase(), "{t:?}");
        assert!(word.chars().skip(1).all(|c| c.is_ascii_lowercase()), "{t:?}");
        assert!(num.len() == 3 && num.chars().all(|c| c.is_ascii_digit()), "{t:?}");
    }
    let options = ["positive", "negative", "neutral"];
    for t in complete(json!({"choice": options}), 4) {
        assert!(options.contains(&t.as_str()), "{t:?}");
    }
    let lark = r#"start: greeting " " name "!"
greeting: "hi" | "hello"
name: /[a-z]{2,4}/"#;
    for t in complete(json!({"grammar": lark}), 3) {
        let (greeting, name) = t.strip_suffix('!').and_then(|t| t.split_once(' ')).unwrap_or_else(|| panic!("{t:?}"));
        assert!(greeting == "hi" || greeting == "hello", "{t:?}");
        assert!((2..=4).contains(&name.len()) && name.chars().all(|c| c.is_ascii_lowercase()), "{t:?}");
    }
}

#[test]
fn greedy_structured_output_equals_a_cpu_replay() {
    let r = Reference::get();
    let tok = Arc::new(TextTokenizer::from_dir(&fixture(), &r.tokenizer().eos).unwrap());
    let compiler = GrammarCompiler::new(tok.clone(), r.model.arch.vocab()).unwrap();
    let mut constraint = compiler.compile(&OutputFormat::JsonSchema(person_schema())).unwrap();
    let mut s = Session::new(&r.model, SessionOptions::default()).unwrap();
    s.prefill(&r.encode(PROMPT, true)).unwrap();
    let ids = greedy_tokens(
        &mut constraint,
        120,
        |id| tok.is_eos(id),
        |previous| {
            if let Some(id) = previous {
                s.set_next_token(id);
                s.decode_step().unwrap();
            }
            s.logits().unwrap()
        },
    )
    .unwrap();
    let want = r.decode(&ids);
    assert_person(&want);
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 120, "temperature": 0,
                      "response_format": {"type": "json_schema", "json_schema": {"name": "p", "schema": person_schema()}}});
    let (status, v) = shared().post("/v1/completions", &body);
    assert_eq!(status, 200, "{v}");
    assert_eq!(texts(&v), vec![want.clone()]);
    assert_eq!(v["usage"]["completion_tokens"], ids.len());
    // A complete grammar ends the output even where end-of-sequence tokens are ignored.
    let mut body = body;
    body["ignore_eos"] = json!(true);
    let (status, v) = shared().post("/v1/completions", &body);
    assert_eq!(status, 200, "{v}");
    assert_eq!((texts(&v), reasons(&v)), (vec![want], vec!["stop".to_string()]));
    assert_eq!(v["usage"]["completion_tokens"], ids.len());
}

#[test]
fn max_tokens_cuts_a_structured_output_short() {
    let rf = json!({"type": "json_schema", "json_schema": {"name": "person", "schema": person_schema()}});
    let v = chat(json!({"response_format": rf, "temperature": 0, "max_tokens": 3}));
    assert_eq!(reasons(&v), vec!["length"]);
    assert!(texts(&v)[0].starts_with("{\""), "{v}");
}

#[test]
fn grammars_that_do_not_compile_are_400_naming_the_field() {
    let post = |path: &str, body: Value| shared().post(path, &body);
    let msgs = json!([{"role": "user", "content": "hi"}]);
    let cases = [
        (
            "/v1/chat/completions",
            json!({"model": MODEL, "messages": msgs,
                   "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "nope"}}}}),
            "response_format.json_schema.schema",
        ),
        (
            "/v1/chat/completions",
            json!({"model": MODEL, "messages": msgs, "response_format": {"type": "yaml"}}),
            "response_format",
        ),
        (
            "/v1/completions",
            json!({"model": MODEL, "prompt": "x", "structured_outputs": {"regex": "(a"}}),
            "structured_outputs.regex",
        ),
        (
            "/v1/completions",
            json!({"model": MODEL, "prompt": "x", "structured_outputs": {"grammar": "start: missing"}}),
            "structured_outputs.grammar",
        ),
        (
            "/v1/completions",
            json!({"model": MODEL, "prompt": "x", "structured_outputs": {"regex": "a", "choice": ["b"]}}),
            "structured_outputs",
        ),
    ];
    for (path, body, param) in cases {
        let (status, v) = post(path, body);
        assert_eq!(status, 400, "{v}");
        assert_eq!(v["error"]["param"], param, "{v}");
        assert_eq!(v["error"]["type"], "invalid_request_error", "{v}");
    }
    // The server goes on serving.
    let (status, _) = post("/v1/completions", json!({"model": MODEL, "prompt": "x", "max_tokens": 2}));
    assert_eq!(status, 200);
}
