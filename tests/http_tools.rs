//! Tool calling over HTTP against the random-weight fixture. Its ChatML template knows nothing of
//! tools, so the tools go into the system prompt (checked by token count against the fallback
//! rendering). Forced calls (a named tool, "required") are held to the calls' grammar, so even noise
//! weights produce well-formed calls with arguments valid against the tool's schema.

mod http_support;

use std::sync::OnceLock;

use gerbil::text::chat::{ChatMessage, ChatTemplate};
use gerbil::text::tools::{fallback_messages, Tool};
use http_support::*;
use serde_json::{json, Value};

fn tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "get_weather", "description": "Weather in a city",
         "parameters": {"type": "object", "properties": {
             "city": {"type": "string", "maxLength": 12},
             "unit": {"enum": ["celsius", "fahrenheit"]}},
          "required": ["city", "unit"], "additionalProperties": false}}},
        {"type": "function", "function": {"name": "add",
         "parameters": {"type": "object", "properties": {
             "a": {"type": "integer", "minimum": -99, "maximum": 99},
             "b": {"type": "integer", "minimum": -99, "maximum": 99}},
          "required": ["a", "b"], "additionalProperties": false}}}
    ])
}

/// The fixture with room for the tool prompt (`long_context_config`).
fn server() -> &'static TestServer {
    static S: OnceLock<TestServer> = OnceLock::new();
    S.get_or_init(|| start(long_context_config()))
}

fn ask(extra: Value) -> Value {
    let mut body = json!({"model": MODEL, "messages": [{"role": "user", "content": "Weather in Oslo?"}],
                          "max_tokens": 120, "tools": tools()});
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let (status, v) = server().post("/v1/chat/completions", &body);
    assert_eq!(status, 200, "{v}");
    v
}

/// Checks a call against its tool's schema; returns the tool's name.
fn assert_valid_call(call: &Value) -> String {
    assert!(call["id"].as_str().is_some_and(|id| id.starts_with("call_")), "{call}");
    assert_eq!(call["type"], "function");
    let name = call["function"]["name"].as_str().unwrap().to_string();
    let args: Value = serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    match name.as_str() {
        "get_weather" => {
            assert!(args["city"].as_str().is_some_and(|c| c.chars().count() <= 12), "{args}");
            assert!(args["unit"] == "celsius" || args["unit"] == "fahrenheit", "{args}");
        }
        "add" => {
            assert!(args["a"].as_i64().is_some_and(|a| a.abs() <= 99) && args["b"].is_i64(), "{args}");
        }
        other => panic!("unknown tool {other}"),
    }
    assert_eq!(args.as_object().unwrap().len(), 2, "{args}");
    name
}

#[test]
fn a_named_tool_choice_gets_one_valid_call() {
    let choice = json!({"type": "function", "function": {"name": "add"}});
    let v = ask(json!({"tool_choice": choice, "temperature": 1.0, "seed": 4, "n": 3}));
    for c in v["choices"].as_array().unwrap() {
        let msg = &c["message"];
        assert_eq!(msg["content"], Value::Null, "{v}");
        let calls = msg["tool_calls"].as_array().unwrap();
        assert_eq!(calls.len(), 1, "{v}");
        assert_eq!(assert_valid_call(&calls[0]), "add");
        assert_eq!(c["finish_reason"], "tool_calls");
    }
}

#[test]
fn required_without_parallel_calls_gets_exactly_one_call() {
    let v =
        ask(json!({"tool_choice": "required", "parallel_tool_calls": false, "temperature": 1.0, "seed": 9, "n": 4}));
    for c in v["choices"].as_array().unwrap() {
        let calls = c["message"]["tool_calls"].as_array().unwrap_or_else(|| panic!("{v}"));
        assert_eq!(calls.len(), 1, "{v}");
        assert_valid_call(&calls[0]);
        assert_eq!(c["finish_reason"], "tool_calls");
    }
}

#[test]
fn a_streamed_call_equals_the_whole_one() {
    let extra = json!({"tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "temperature": 0});
    let whole = ask(extra.clone());
    let want = &whole["choices"][0]["message"]["tool_calls"][0];
    let mut body = json!({"model": MODEL, "messages": [{"role": "user", "content": "Weather in Oslo?"}],
                          "max_tokens": 120, "tools": tools(), "stream": true});
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let chunks = server().stream("/v1/chat/completions", &body);
    let deltas: Vec<&Value> = chunks.iter().filter_map(|c| c["choices"].get(0)).collect();
    let calls: Vec<&Value> = deltas.iter().filter_map(|d| d["delta"].get("tool_calls")).collect();
    assert_eq!(calls.len(), 1, "{chunks:?}");
    let got = &calls[0][0];
    assert_eq!(got["index"], 0);
    assert_eq!(
        (&got["function"]["name"], &got["function"]["arguments"]),
        (&want["function"]["name"], &want["function"]["arguments"])
    );
    // No content was streamed beyond the opening empty delta.
    let text: String = deltas.iter().filter_map(|d| d["delta"]["content"].as_str()).collect();
    assert_eq!(text, "");
    assert_eq!(deltas.last().unwrap()["finish_reason"], "tool_calls");
}

/// The prompt the fallback renders, in tokens.
fn fallback_prompt_tokens(messages: &[ChatMessage], tools: &[Tool]) -> usize {
    let r = Reference::get();
    let tok = r.tokenizer();
    let template = ChatTemplate::new(tok.chat_template.as_deref().unwrap(), None, None).unwrap();
    let text = template.render(&fallback_messages(messages, tools), true).unwrap();
    r.encode(&text, false).len()
}

fn weather_tool() -> Tool {
    let t = &tools()[0]["function"];
    Tool {
        name: "get_weather".into(),
        description: Some("Weather in a city".into()),
        parameters: t["parameters"].clone(),
    }
}

#[test]
fn auto_lists_the_tools_in_the_system_prompt_and_history_renders() {
    let only_weather = json!([tools()[0]]);
    let body = json!({"model": MODEL, "messages": [{"role": "user", "content": "Weather in Oslo?"}],
                      "max_tokens": 4, "temperature": 0, "tools": only_weather});
    let (status, v) = server().post("/v1/chat/completions", &body);
    assert_eq!(status, 200, "{v}");
    let user = ChatMessage::text("user", "Weather in Oslo?");
    assert_eq!(v["usage"]["prompt_tokens"], fallback_prompt_tokens(std::slice::from_ref(&user), &[weather_tool()]));
    // Noise weights write no call: plain content.
    assert!(
        v["choices"][0]["message"]["content"].is_string() && v["choices"][0]["message"].get("tool_calls").is_none()
    );

    // A history with a call and its result.
    let call = json!({"id": "call_1", "type": "function", "function": {"name": "get_weather",
                                                                       "arguments": "{\"city\": \"Oslo\", \"unit\": \"celsius\"}"}});
    let body = json!({"model": MODEL, "max_tokens": 4, "temperature": 0, "tools": only_weather, "messages": [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": null, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "4 C, rain"}]});
    let (status, v) = server().post("/v1/chat/completions", &body);
    assert_eq!(status, 200, "{v}");
    let as_template = json!({"id": "call_1", "type": "function",
                             "function": {"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"}}});
    let history = vec![
        user,
        ChatMessage { tool_calls: Some(vec![as_template]), ..ChatMessage::text("assistant", "") },
        ChatMessage { tool_call_id: Some("call_1".into()), ..ChatMessage::text("tool", "4 C, rain") },
    ];
    assert_eq!(v["usage"]["prompt_tokens"], fallback_prompt_tokens(&history, &[weather_tool()]));
}

#[test]
fn bad_tool_requests_are_400_naming_the_field() {
    let msgs = json!([{"role": "user", "content": "hi"}]);
    let cases = [
        (json!({"tools": tools(), "tool_choice": {"type": "function", "function": {"name": "nope"}}}), "tool_choice"),
        (json!({"tools": [{"type": "function", "function": {"name": "bad name"}}]}), "tools[0].function.name"),
        (json!({"tool_choice": "required"}), "tool_choice"),
        (
            json!({"tools": tools(), "tool_choice": "required", "response_format": {"type": "json_object"}}),
            "tool_choice",
        ),
        (
            json!({"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "nope"}}}], "tool_choice": "required"}),
            "tools",
        ),
        (json!({"functions": [{"name": "f"}]}), "functions"),
    ];
    for (extra, param) in cases {
        let mut body = json!({"model": MODEL, "messages": msgs, "max_tokens": 2});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let (status, v) = server().post("/v1/chat/completions", &body);
        assert_eq!(status, 400, "{extra}: {v}");
        assert_eq!(v["error"]["param"], param, "{v}");
    }
    let bad_history = json!({"model": MODEL, "max_tokens": 2,
                             "messages": [{"role": "user", "content": "x", "tool_calls": []}]});
    let (status, v) = server().post("/v1/chat/completions", &bad_history);
    assert_eq!((status, &v["error"]["param"]), (400, &json!("messages[0].tool_calls")), "{v}");
}
