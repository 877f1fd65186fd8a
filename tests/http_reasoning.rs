//! Thinking models over HTTP: for a chat template that thinks in `<think>...</think>` (here Qwen3's
//! layout on the fixture), what the model writes inside goes to `message.reasoning_content`
//! (`delta.reasoning_content` when streamed), never into `content` nor into tool-call parsing;
//! `chat_template_kwargs` reach the template (`enable_thinking: false` renders Qwen3's empty think
//! block) and `reasoning_effort: "none"` means the same; a template whose prompt opens the block
//! starts the output inside it. The fixture has random weights, so its output is held to a fixed
//! text with `structured_outputs.choice`.

mod http_support;

use gerbil::config::{ModelSpec, ServeConfig, WeightKind};
use http_support::*;
use serde_json::{json, Value};

/// Qwen3's template, cut to what thinking needs: ChatML turns, an empty think block when
/// `enable_thinking` is false, and (a test switch) the prompt opening the block itself.
const TEMPLATE: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}\
{% if add_generation_prompt %}<|im_start|>assistant\n\
{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}\
{% if open_think %}<think>\n{% endif %}{% endif %}";

fn thinking_config() -> ServeConfig {
    let dir = std::env::temp_dir().join(format!("gerbil-thinking-fixture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for entry in std::fs::read_dir(fixture()).expect("fixture") {
        let path = entry.expect("fixture entry").path();
        std::fs::copy(&path, dir.join(path.file_name().expect("name"))).expect("copy");
    }
    let path = dir.join("tokenizer_config.json");
    let mut tc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    tc["chat_template"] = TEMPLATE.into();
    std::fs::write(&path, tc.to_string()).unwrap();
    // Room for the tool-calling system prompt (as `long_context_config`).
    let path = dir.join("config.json");
    let mut declared: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    declared["max_position_embeddings"] = 2048.into();
    std::fs::write(&path, declared.to_string()).unwrap();
    let mut cfg = config();
    let mut spec = ModelSpec::from_source(&dir.to_string_lossy());
    spec.name = Some(MODEL.into());
    spec.format = WeightKind::Int4;
    cfg.models = vec![spec];
    cfg
}

fn chat(extra: Value) -> Value {
    let mut body = json!({
        "model": MODEL,
        "messages": [{"role": "user", "content": "Is it?"}],
        "max_tokens": 200,
        "temperature": 0,
    });
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    body
}

fn forced(text: &str) -> Value {
    json!({"structured_outputs": {"choice": [text]}})
}

/// Reasoning and content of a streamed response, each concatenated.
fn streamed(chunks: &[Value]) -> (String, String) {
    let (mut reasoning, mut content) = (String::new(), String::new());
    for c in chunks {
        let delta = &c["choices"][0]["delta"];
        reasoning += delta["reasoning_content"].as_str().unwrap_or("");
        content += delta["content"].as_str().unwrap_or("");
    }
    (reasoning, content)
}

#[test]
fn reasoning_goes_to_its_own_field() {
    let server = start(thinking_config());
    let text = "<think>\nweigh it: yes, no\n</think>\n\nYes.";
    let (status, v) = server.post("/v1/chat/completions", &chat(forced(text)));
    assert_eq!(status, 200, "{v}");
    let m = &v["choices"][0]["message"];
    assert_eq!(m["reasoning_content"], "\nweigh it: yes, no\n", "{v}");
    assert_eq!(m["content"], "Yes.", "{v}");
    let mut body = chat(forced(text));
    body["stream"] = json!(true);
    let chunks = server.stream("/v1/chat/completions", &body);
    assert_eq!(streamed(&chunks), ("\nweigh it: yes, no\n".to_string(), "Yes.".to_string()));
    assert!(chunks.iter().any(|c| c["choices"][0]["delta"]["reasoning_content"].is_string()));

    // An answer without a think block is all content, and no reasoning_content is sent.
    let (_, v) = server.post("/v1/chat/completions", &chat(forced("No.")));
    assert_eq!(v["choices"][0]["message"]["content"], "No.");
    assert!(v["choices"][0]["message"].get("reasoning_content").is_none(), "{v}");

    // A tool call written while thinking is not a call.
    let tools = json!([{"type": "function", "function": {"name": "look", "parameters": {"type": "object"}}}]);
    let text = "<think><tool_call>\n{\"name\": \"look\", \"arguments\": {}}\n</tool_call></think>No need.";
    let mut body = chat(forced(text));
    body["tools"] = tools;
    let (status, v) = server.post("/v1/chat/completions", &body);
    assert_eq!(status, 200, "{v}");
    let m = &v["choices"][0]["message"];
    assert!(m.get("tool_calls").is_none(), "{v}");
    assert_eq!(m["content"], "No need.");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert!(m["reasoning_content"].as_str().unwrap().contains("<tool_call>"));

    // The prompt opens the block (chat_template_kwargs reach the template): the output starts inside.
    let mut body = chat(forced("plan it</think>\n\nDone."));
    body["chat_template_kwargs"] = json!({"open_think": true});
    let (_, v) = server.post("/v1/chat/completions", &body);
    let m = &v["choices"][0]["message"];
    assert_eq!((&m["reasoning_content"], &m["content"]), (&json!("plan it"), &json!("Done.")), "{v}");
    body["stream"] = json!(true);
    assert_eq!(streamed(&server.stream("/v1/chat/completions", &body)), ("plan it".into(), "Done.".into()));
}

#[test]
fn thinking_is_switched_by_kwargs_and_reasoning_effort() {
    let server = start(thinking_config());
    let prompt_tokens = |extra: Value| {
        let mut body = chat(extra);
        body["max_tokens"] = json!(1);
        let (status, v) = server.post("/v1/chat/completions", &body);
        assert_eq!(status, 200, "{v}");
        v["usage"]["prompt_tokens"].as_u64().unwrap()
    };
    let on = prompt_tokens(json!({}));
    let off = prompt_tokens(json!({"chat_template_kwargs": {"enable_thinking": false}}));
    let r = Reference::get();
    let block = r.encode("<think>\n\n</think>\n\n", false).len() as u64;
    assert_eq!(off, on + block, "the empty think block is rendered");
    assert_eq!(prompt_tokens(json!({"reasoning_effort": "none"})), off);
    assert_eq!(prompt_tokens(json!({"reasoning_effort": "high"})), on);
    let both = json!({"reasoning_effort": "none", "chat_template_kwargs": {"enable_thinking": true}});
    assert_eq!(prompt_tokens(both), on, "the request's own enable_thinking wins");

    for (extra, param) in [
        (json!({"reasoning_effort": "extreme"}), "reasoning_effort"),
        (json!({"chat_template_kwargs": "enable_thinking"}), "chat_template_kwargs"),
        (json!({"chat_template_kwargs": {"messages": []}}), "chat_template_kwargs.messages"),
    ] {
        let (status, v) = server.post("/v1/chat/completions", &chat(extra));
        assert_eq!((status, v["error"]["param"].as_str()), (400, Some(param)), "{v}");
        assert_eq!(v["error"]["type"], "invalid_request_error");
    }
}

/// A template that does not think leaves `<think>` text in `content` and sends no reasoning field.
#[test]
fn other_templates_are_left_alone() {
    let server = start(config());
    let (status, v) = server.post("/v1/chat/completions", &chat(forced("<think>a</think>b")));
    assert_eq!(status, 200, "{v}");
    let m = &v["choices"][0]["message"];
    assert_eq!(m["content"], "<think>a</think>b");
    assert!(m.get("reasoning_content").is_none(), "{v}");
}
