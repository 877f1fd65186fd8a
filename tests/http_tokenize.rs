//! POST /tokenize and /detokenize against the fixture: the tokens the generation endpoints
//! would use (the completion's prompt ids, the chat's rendered prompt count), and errors.

mod http_support;

use http_support::*;
use serde_json::json;

#[test]
fn tokenize_gives_the_ids_generation_uses() {
    let r = Reference::get();
    let (status, v) = shared().post("/tokenize", &json!({"model": MODEL, "prompt": PROMPT}));
    assert_eq!(status, 200, "{v}");
    let want = r.encode(PROMPT, true);
    assert_eq!(v["tokens"], json!(want));
    assert_eq!((v["count"].as_u64(), v["max_model_len"].as_u64()), (Some(want.len() as u64), Some(CONTEXT as u64)));
    let (_, v) = shared().post("/tokenize", &json!({"model": MODEL, "prompt": PROMPT, "add_special_tokens": false}));
    assert_eq!(v["tokens"], json!(r.encode(PROMPT, false)));
    // Chat messages count as chat completions count them.
    let messages = json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello there"}]);
    let (_, t) = shared().post("/tokenize", &json!({"model": MODEL, "messages": messages}));
    let (status, c) =
        shared().post("/v1/chat/completions", &json!({"model": MODEL, "messages": messages, "max_tokens": 1}));
    assert_eq!(status, 200, "{c}");
    assert_eq!(t["count"], c["usage"]["prompt_tokens"]);
    let (status, no_header) =
        shared().post("/tokenize", &json!({"model": MODEL, "messages": messages, "add_generation_prompt": false}));
    assert_eq!(status, 200, "{no_header}");
    assert!(no_header["count"].as_u64().unwrap() < t["count"].as_u64().unwrap(), "{no_header} vs {t}");
    // Tools are rendered as chat completions render them.
    let tools = json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]);
    let (status, with_tools) =
        shared().post("/tokenize", &json!({"model": MODEL, "messages": messages, "tools": tools}));
    assert_eq!(status, 200, "{with_tools}");
    assert!(with_tools["count"].as_u64().unwrap() > t["count"].as_u64().unwrap() + 100, "{with_tools} vs {t}");
    // Back to text.
    let plain = r.encode(PROMPT, false);
    let (status, d) = shared().post("/detokenize", &json!({"model": MODEL, "tokens": plain}));
    assert_eq!(status, 200, "{d}");
    assert_eq!(d["prompt"], PROMPT);
}

#[test]
fn tokenize_errors_name_the_field() {
    for (path, body, param) in [
        ("/tokenize", json!({"model": MODEL}), "prompt"),
        ("/tokenize", json!({"model": MODEL, "prompt": "a", "messages": [{"role": "user", "content": "b"}]}), "prompt"),
        ("/tokenize", json!({"model": MODEL, "messages": [{"role": "wizard", "content": "b"}]}), "messages[0].role"),
        ("/detokenize", json!({"model": MODEL, "tokens": [1, -2]}), "tokens"),
        ("/detokenize", json!({"model": MODEL, "tokens": [1_000_000]}), "tokens"),
    ] {
        let (status, v) = shared().post(path, &body);
        assert_eq!(status, 400, "{body}: {v}");
        assert_eq!(v["error"]["param"], param, "{v}");
    }
    let (status, v) = shared().post("/tokenize", &json!({"model": "missing", "prompt": "x"}));
    assert_eq!((status, &v["error"]["code"]), (404, &json!("model_not_found")), "{v}");
}
