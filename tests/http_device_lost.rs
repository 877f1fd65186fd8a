//! The GPU lost under a running server (`[debug] lose_device_after_steps` destroys the device, as a
//! driver reset would): the requests in flight end with a 503 `device_lost` error (a JSON error, or
//! an error event once a stream has started), /metrics counts the loss, the worker opens the device
//! again and reloads, and the next request gets exactly its greedy text.

mod http_support;

use http_support::*;
use serde_json::{json, Value};

/// Serves until the device is lost after `steps` worker steps. Each step is followed by a pause,
/// so the client hears of the loss well before the worker's loop notices it: /ready must already
/// say "not ready" then, or a client retrying on /ready meets the reload.
fn losing_server(steps: u64) -> TestServer {
    let mut cfg = config();
    cfg.debug.lose_device_after_steps = Some(steps);
    cfg.debug.step_delay_ms = 200;
    start(cfg)
}

fn long_request(stream: bool) -> Value {
    json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 150, "ignore_eos": true, "stream": stream})
}

/// After the loss: the device came back, nothing is left busy, and the model computes what the
/// reference does.
fn assert_recovered(s: &TestServer) {
    s.wait_for("/ready after the reload", 120, |s| s.get("/ready").0 == 200);
    assert_eq!(s.metric("gerbil_device_lost_total", &[]), 1.0);
    assert_eq!(s.metric("gerbil_active_slots", &[("model", MODEL)]), 0.0);
    assert_eq!(s.metric("gerbil_queue_depth", &[]), 0.0);
    let (status, body) =
        s.post("/v1/completions", &json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 24, "temperature": 0}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(texts(&body), vec![Reference::get().greedy_text(PROMPT, 24)]);
}

#[test]
fn a_request_in_flight_gets_503_and_the_server_reloads() {
    let s = losing_server(3);
    let r = client().post(s.url("/v1/completions")).json(&long_request(false)).send().expect("request");
    assert_eq!(r.status().as_u16(), 503);
    assert_eq!(r.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("5"));
    let body: Value = r.json().expect("JSON error");
    assert_eq!(body["error"]["code"], "device_lost", "{body}");
    assert_eq!(body["error"]["type"], "server_error", "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("GPU device was lost"), "{body}");
    assert_eq!(s.metric("gerbil_sequences_finished_total", &[("model", MODEL), ("reason", "error")]), 1.0);
    assert_recovered(&s);
}

#[test]
fn a_stream_in_flight_ends_with_a_device_lost_event_and_the_server_reloads() {
    let s = losing_server(6);
    let events = s.stream("/v1/completions", &long_request(true));
    let chunks: Vec<Value> = events.iter().filter(|e| e.get("choices").is_some()).cloned().collect();
    let (texts, _) = stream_texts(&chunks);
    assert!(!texts.concat().is_empty(), "tokens streamed before the loss: {events:?}");
    let error = events.iter().find(|e| e.get("error").is_some()).expect("an error event");
    assert!(chunks.len() < 150, "the stream ended at the loss, not at max_tokens: {events:?}");
    assert_eq!(error["error"]["code"], "device_lost", "{error}");
    assert_eq!(error["error"]["type"], "server_error", "{error}");
    assert_recovered(&s);
}
