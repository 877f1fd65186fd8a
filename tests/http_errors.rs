//! Errors over real HTTP: every invalid field answers 400 in OpenAI's shape
//! with `param` naming it; unknown model 404; bad routes, methods and bodies;
//! the API key (401); and the plain routes (/v1/models, /health, /ready,
//! /openapi.yaml, /metrics).

mod http_support;

use http_support::*;
use serde_json::{json, Value};

/// Asserts OpenAI's error shape, exactly these four keys.
fn assert_error_shape(v: &Value) {
    let e = v["error"].as_object().unwrap_or_else(|| panic!("no error object: {v}"));
    let mut keys: Vec<&str> = e.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "message", "param", "type"], "{v}");
    assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(e["type"].is_string());
}

fn merged(base: &Value, patch: &Value) -> Value {
    let mut out = base.clone();
    for (k, v) in patch.as_object().unwrap() {
        if v.is_null() {
            out.as_object_mut().unwrap().remove(k);
        } else {
            out[k] = v.clone();
        }
    }
    out
}

#[test]
fn every_invalid_completion_field_names_its_param() {
    let base = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 4});
    let cases: Vec<(Value, &str)> = vec![
        (json!({"temperature": 2.5}), "temperature"),
        (json!({"temperature": -0.1}), "temperature"),
        (json!({"top_p": 1.5}), "top_p"),
        (json!({"top_k": -5}), "top_k"),
        (json!({"min_p": 1.5}), "min_p"),
        (json!({"min_p": -0.1}), "min_p"),
        (json!({"repetition_penalty": 0}), "repetition_penalty"),
        (json!({"repetition_penalty": -1.2}), "repetition_penalty"),
        (json!({"repetition_penalty": 10.5}), "repetition_penalty"),
        (json!({"n": 0}), "n"),
        (json!({"n": 1000}), "n"),
        (json!({"n": "two"}), "n"),
        (json!({"presence_penalty": 2.5}), "presence_penalty"),
        (json!({"frequency_penalty": -3}), "frequency_penalty"),
        (json!({"logit_bias": {"abc": 1}}), "logit_bias"),
        (json!({"logit_bias": {"999999": 1}}), "logit_bias"),
        (json!({"logit_bias": {"5": 500}}), "logit_bias"),
        (json!({"logit_bias": {"5": "x"}}), "logit_bias.5"),
        (json!({"stop": ["a", "b", "c", "d", "e"]}), "stop"),
        (json!({"stop": ""}), "stop"),
        (json!({"stop": 3}), "stop"),
        (json!({"max_tokens": 100000}), "max_tokens"),
        (json!({"max_tokens": 250}), "max_tokens"),
        (json!({"max_tokens": 0}), "max_tokens"),
        (json!({"max_tokens": -1}), "max_tokens"),
        (json!({"logprobs": 6}), "logprobs"),
        (json!({"best_of": 3}), "best_of"),
        (json!({"suffix": "and then"}), "suffix"),
        (json!({"echo": "yes"}), "echo"),
        (json!({"seed": "x"}), "seed"),
        (json!({"stream_options": {"include_usage": true}}), "stream_options"),
        (json!({"stream": true, "stream_options": {"include_usage": 1}}), "stream_options.include_usage"),
        (json!({"prompt": 5}), "prompt"),
        (json!({"prompt": []}), "prompt"),
        (json!({"prompt": [[]]}), "prompt"),
        (json!({"prompt": [99999]}), "prompt"),
        (json!({"prompt": [-1]}), "prompt"),
        (json!({"prompt": [[1, 2], "a"]}), "prompt"),
        (json!({"prompt": "x ".repeat(300)}), "prompt"),
        (json!({"prompt": null}), "prompt"),
        (json!({"model": null}), "model"),
        (json!({"model": 7}), "model"),
        // Fields this server does not know: a setting the client believes took effect.
        (json!({"guided_json": {"type": "object"}}), "guided_json"),
        (json!({"typical_p": 0.5}), "typical_p"),
    ];
    for (patch, param) in cases {
        let (status, v) = shared().post("/v1/completions", &merged(&base, &patch));
        assert_eq!(status, 400, "{patch} -> {v}");
        assert_error_shape(&v);
        assert_eq!(v["error"]["param"], param, "{patch} -> {v}");
        assert_eq!(v["error"]["type"], "invalid_request_error");
    }
    // OpenAI's bookkeeping fields, accepted and ignored.
    let ok = json!({"store": true, "metadata": {"k": "v"}, "service_tier": "default", "user": "u", "prompt_cache_key": "c", "safety_identifier": "s"});
    let (status, v) = shared().post("/v1/completions", &merged(&base, &ok));
    assert_eq!(status, 200, "{v}");
}

#[test]
fn every_invalid_chat_field_names_its_param() {
    let base = json!({"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4});
    let cases: Vec<(Value, &str)> = vec![
        (json!({"messages": []}), "messages"),
        (json!({"messages": null}), "messages"),
        (json!({"messages": [{"role": "wizard", "content": "x"}]}), "messages[0].role"),
        (
            json!({"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": [{"type": "image_url"}]}]}),
            "messages[1].content",
        ),
        (json!({"messages": [{"role": "user", "content": 5}]}), "messages[0].content"),
        (json!({"messages": [{"content": "x"}]}), "messages[0].role"),
        (json!({"tools": [{"type": "function"}]}), "tools"),
        (json!({"tool_choice": "required"}), "tool_choice"),
        (json!({"tools": [], "tool_choice": "required"}), "tool_choice"),
        (json!({"tools": "none"}), "tools"),
        (json!({"tool_choice": []}), "tool_choice"),
        (json!({"messages": [{"role": "user"}]}), "messages[0].content"),
        (
            json!({"messages": [{"role": "system", "content": null}, {"role": "user", "content": "x"}]}),
            "messages[0].content",
        ),
        (json!({"top_logprobs": 3}), "top_logprobs"),
        (json!({"logprobs": true, "top_logprobs": 21}), "top_logprobs"),
        (json!({"response_format": {"type": "xml"}}), "response_format"),
        (json!({"modalities": ["text", "audio"]}), "modalities"),
        (json!({"audio": {"voice": "alloy", "format": "wav"}}), "audio"),
        (json!({"max_completion_tokens": 0}), "max_completion_tokens"),
        (json!({"max_tokens": 100000}), "max_tokens"),
        (json!({"max_completion_tokens": 5, "max_tokens": 100000}), "max_tokens"),
        (
            json!({"tools": [{"type": "function", "function": {"name": "f", "strict": "yes"}}]}),
            "tools[0].function.strict",
        ),
        (json!({"n": 1.5}), "n"),
        (json!({"modalities": []}), "modalities"),
        (json!({"temperature": 9}), "temperature"),
        (json!({"stop": [1]}), "stop"),
        (json!({"web_search_options": {}}), "web_search_options"),
        (json!({"mirostat": 2}), "mirostat"),
    ];
    for (patch, param) in cases {
        let (status, v) = shared().post("/v1/chat/completions", &merged(&base, &patch));
        assert_eq!(status, 400, "{patch} -> {v}");
        assert_error_shape(&v);
        assert!(v["error"]["param"].as_str().is_some_and(|p| p.starts_with(param)), "{patch} -> {v}");
    }
    // Asking for text only, or for no tools, is fine; so is an assistant turn without content.
    for ok in [
        json!({"modalities": ["text"]}),
        json!({"tools": [], "tool_choice": "none"}),
        json!({"tool_choice": "none"}),
        json!({"tools": [], "tool_choice": "auto"}),
        // OpenAI's bookkeeping fields, accepted and ignored.
        json!({"store": false, "metadata": {"k": "v"}, "service_tier": "auto", "user": "u", "prompt_cache_key": "c", "safety_identifier": "s"}),
        json!({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": null}, {"role": "user", "content": "b"}]}),
    ] {
        let (status, v) = shared().post("/v1/chat/completions", &merged(&base, &ok));
        assert_eq!(status, 200, "{ok} -> {v}");
    }
}

/// JSON has one number type: `2.0` is the integer 2 (JSON Schema's `integer` says so, and Python's json
/// writes whole floats that way), in every integer field; a fraction is still refused.
#[test]
fn whole_numbers_written_as_floats_are_integers() {
    let s = shared();
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 3.0, "n": 2.0, "temperature": 0, "seed": 7.0, "ignore_eos": true});
    let (status, v) = s.post("/v1/completions", &body);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["choices"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["usage"]["completion_tokens"], 6, "{v}");
    let (status, v) = s.post("/detokenize", &json!({"model": MODEL, "tokens": [30.0, 3.1e1]}));
    assert_eq!(status, 200, "{v}");
    let (_, want) = s.post("/detokenize", &json!({"model": MODEL, "tokens": [30, 31]}));
    assert_eq!(v, want);
    let (status, v) = s.post("/v1/completions", &json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 2.5}));
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["error"]["param"], "max_tokens", "{v}");
}

#[test]
fn unknown_model_route_method_and_bad_json() {
    let (status, v) = shared().post("/v1/completions", &json!({"model": "nope", "prompt": "x"}));
    assert_eq!(status, 404);
    assert_error_shape(&v);
    assert_eq!((v["error"]["param"].as_str(), v["error"]["code"].as_str()), (Some("model"), Some("model_not_found")));
    // A `model` is only ever a loaded model's id: never a file to load or a hub repo to fetch, even
    // where one exists (the served fixture's own folder, a real hub id), and quickly (nothing loads).
    let folder = fixture().to_string_lossy().to_string();
    for model in [folder.as_str(), "HuggingFaceTB/SmolLM2-135M-Instruct", "../../etc/passwd", "/dev/zero"] {
        let t0 = std::time::Instant::now();
        for route in ["/v1/completions", "/tokenize"] {
            let (status, v) = shared().post(route, &json!({"model": model, "prompt": "x"}));
            assert_eq!((status, v["error"]["code"].as_str()), (404, Some("model_not_found")), "{route} {model}: {v}");
        }
        assert!(t0.elapsed() < std::time::Duration::from_secs(5), "{model}: {:?}", t0.elapsed());
    }
    let (status, body) = shared().get("/v2/nothing");
    assert_eq!(status, 404);
    assert_error_shape(&serde_json::from_str(&body).unwrap());
    let (status, body) = shared().get("/v1/completions");
    assert_eq!(status, 405);
    assert_error_shape(&serde_json::from_str(&body).unwrap());
    let r = client().post(shared().url("/v1/completions")).body("{not json").send().unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let v: Value = r.json().unwrap();
    assert_error_shape(&v);
    assert!(v["error"]["param"].is_null());
    // An extractor's own rejection (here a path segment that is not UTF-8) stays a 400.
    let (status, body) = shared().get("/v1/models/%FF");
    assert_eq!(status, 400, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_error_shape(&v);
    assert_eq!(v["error"]["type"], "invalid_request_error");
}

#[test]
fn oversized_body_is_413_in_openai_shape() {
    let mut cfg = config();
    cfg.limits.body_limit_bytes = 1000;
    let server = start(cfg);
    let big = json!({"model": MODEL, "prompt": "x".repeat(5000)});
    let (status, v) = server.post("/v1/completions", &big);
    assert_eq!(status, 413);
    assert_error_shape(&v);
    // Chunked (no Content-Length): the limit still holds.
    let body = reqwest::blocking::Body::new(std::io::Cursor::new(big.to_string().into_bytes()));
    let r = client().post(server.url("/v1/completions")).body(body).send().unwrap();
    assert_eq!(r.status().as_u16(), 413);
    assert_error_shape(&r.json().unwrap());
}

#[test]
fn api_key_is_required_on_v1_only() {
    let mut cfg = config();
    cfg.api_key = Some("sekret-key".into());
    let server = start(cfg);
    let body = json!({"model": MODEL, "prompt": "hi", "max_tokens": 2});
    let send = |key: Option<&str>| {
        let mut req = client().post(server.url("/v1/completions")).json(&body);
        if let Some(k) = key {
            req = req.bearer_auth(k);
        }
        let r = req.send().unwrap();
        (r.status().as_u16(), r.json::<Value>().unwrap())
    };
    for key in [None, Some("wrong"), Some("sekret-ke"), Some("sekret-key2")] {
        let (status, v) = send(key);
        assert_eq!(status, 401, "{key:?}");
        assert_error_shape(&v);
        assert_eq!(v["error"]["code"], "invalid_api_key");
    }
    assert_eq!(send(Some("sekret-key")).0, 200);
    let r = client().get(server.url("/v1/models")).send().unwrap();
    assert_eq!(r.status().as_u16(), 401);
    assert_eq!(server.get("/health").0, 200);
    assert_eq!(server.get("/ready").0, 200);
    assert_eq!(server.get("/metrics").0, 200);
}

#[test]
fn models_health_ready_openapi_metrics() {
    let s = shared();
    let (status, body) = s.get("/v1/models");
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["object"], "list");
    assert_eq!(v["data"][0]["id"], MODEL);
    assert_eq!(v["data"][0]["object"], "model");
    let (status, body) = s.get(&format!("/v1/models/{MODEL}"));
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["id"], MODEL);
    assert_eq!(s.get("/v1/models/other").0, 404);
    let (status, body) = s.get("/health");
    assert_eq!((status, serde_json::from_str::<Value>(&body).unwrap()), (200, json!({"status": "ok"})));
    let (status, body) = s.get("/ready");
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["models"], json!([MODEL]));
    let (status, body) = s.get("/openapi.yaml");
    assert_eq!(status, 200);
    assert_eq!(body, std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.yaml")).unwrap());
    let (status, text) = s.get("/metrics");
    assert_eq!(status, 200);
    for name in [
        "gerbil_http_requests_total",
        "gerbil_queue_depth",
        "gerbil_active_slots",
        "gerbil_tokens_per_second",
        "gerbil_time_to_first_token_seconds_bucket",
        "gerbil_generated_tokens_total",
    ] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name} missing from /metrics:\n{text}");
    }
}

#[test]
fn a_model_that_fails_to_load_is_skipped() {
    let mut cfg = config();
    let mut broken = gerbil::config::ModelSpec::from_source("/nonexistent/model/dir");
    broken.name = Some("broken".into());
    cfg.models.push(broken);
    // `start` asserts no failures, so drive this one by hand.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let server = gerbil::server::start(cfg).await.unwrap();
        let registry = server.worker.wait_loaded().await.unwrap();
        assert_eq!(registry.models.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), [MODEL]);
        assert_eq!(registry.failures.len(), 1);
        assert_eq!(registry.failures[0].id, "broken");
        let url = format!("http://{}/ready", server.addr);
        let body: Value =
            tokio::task::spawn_blocking(move || client().get(url).send().unwrap().json().unwrap()).await.unwrap();
        assert_eq!(body["status"], "ready");
        assert_eq!(body["failed"][0]["id"], "broken");
        server.shutdown().await;
    });
}

#[test]
fn cors_is_off_by_default_and_on_when_configured() {
    let preflight = |s: &TestServer| {
        client()
            .request(reqwest::Method::OPTIONS, s.url("/v1/completions"))
            .header("Origin", "http://app.example")
            .header("Access-Control-Request-Method", "POST")
            // The OpenAI JS SDK sends its x-stainless-* headers from a browser.
            .header("Access-Control-Request-Headers", "authorization,content-type,x-stainless-os")
            .send()
            .unwrap()
    };
    assert!(preflight(shared()).headers().get("access-control-allow-origin").is_none());
    let mut cfg = config();
    cfg.cors_origins = vec!["http://app.example".into()];
    cfg.api_key = Some("k".into());
    let server = start(cfg);
    let r = preflight(&server);
    assert!(r.status().is_success(), "preflight must not need the API key: {}", r.status());
    assert_eq!(r.headers()["access-control-allow-origin"], "http://app.example");
    let allowed = r.headers()["access-control-allow-headers"].to_str().unwrap().to_ascii_lowercase();
    for h in ["authorization", "content-type", "x-stainless-os"] {
        assert!(allowed.contains(h), "preflight allows {h}: {allowed}");
    }
}

#[test]
fn json_is_compressed_and_streams_are_not() {
    let r = client().get(shared().url("/openapi.yaml")).header("Accept-Encoding", "gzip").send().unwrap();
    assert_eq!(r.headers().get("content-encoding").map(|v| v.to_str().unwrap()), Some("gzip"));
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 3, "stream": true});
    let r =
        client().post(shared().url("/v1/completions")).header("Accept-Encoding", "gzip").json(&body).send().unwrap();
    assert!(r.headers().get("content-encoding").is_none());
    assert!(r.text().unwrap().ends_with("data: [DONE]\n\n"));
}

/// The real binary: config from GERBIL_* variables (clap `env`), the API key
/// enforced, and a graceful exit on SIGTERM.
#[test]
fn cli_serve_reads_env_and_exits_on_sigterm() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gerbil"))
        .arg("serve")
        .env("GERBIL_LISTEN", format!("127.0.0.1:{port}"))
        .env("GERBIL_MODELS", fixture())
        .env("GERBIL_API_KEY", "env-key")
        .env("GERBIL_MAX_SLOTS", "2")
        .env("XDG_RUNTIME_DIR", "/tmp/xdg")
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let t0 = std::time::Instant::now();
    while client().get(format!("{base}/ready")).send().map(|r| r.status().as_u16()).unwrap_or(0) != 200 {
        assert!(t0.elapsed().as_secs() < 120, "gerbil serve not ready");
        assert!(child.try_wait().unwrap().is_none(), "gerbil serve exited early");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let model = fixture().to_string_lossy().to_string();
    let body = json!({"model": model, "prompt": "hi", "max_tokens": 2});
    let r = client().post(format!("{base}/v1/completions")).json(&body).send().unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = client().post(format!("{base}/v1/completions")).bearer_auth("env-key").json(&body).send().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let metrics = client().get(format!("{base}/metrics")).send().unwrap().text().unwrap();
    assert_eq!(metric_value(&metrics, "gerbil_slots", &[]), 2.0);
    // The default KV cache's bytes for each layer's K and V values of a token; the caches hold the model's
    // whole context (256 positions, under max_context) for the 2 slots and the scratch sequence.
    let cfg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture().join("config.json")).unwrap()).unwrap();
    let dim = |k: &str| cfg[k].as_f64().unwrap();
    let value_bytes = gerbil::config::ModelSpec::from_source("").kv_dtype.bytes() as f64;
    let per_token = value_bytes * 2.0 * dim("num_hidden_layers") * dim("num_key_value_heads") * dim("head_dim");
    assert_eq!(metric_value(&metrics, "gerbil_kv_bytes_per_token", &[]), per_token);
    let positions = dim("max_position_embeddings");
    assert_eq!(metric_value(&metrics, "gerbil_kv_cache_bytes", &[]), per_token * positions * 3.0);
    let killed = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let t0 = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(t0.elapsed().as_secs() < 30, "no exit after SIGTERM");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
}
