//! Scheduling over real HTTP: 16 concurrent streams (continuous batching)
//! each produce exactly their solo text; a full queue answers 429; a client
//! that disconnects (streaming or not) frees its slot; the request timeout
//! ends a stream with an SSE error event in OpenAI's error shape.
//!
//! The slow server sleeps `debug.step_delay_ms` per scheduler step so that
//! sequences stay in flight long enough to observe, whatever the machine.

mod http_support;

use std::time::{Duration, Instant};

use http_support::*;
use serde_json::{json, Value};

fn prompts() -> Vec<String> {
    let words = ["river", "fisherman", "quiet", "old", "walks", "down", "the", "and"];
    (0..16).map(|i| format!("{} {} {}", words[i % 8], words[(i / 8 + 3) % 8], words[(i * 5 + 2) % 8])).collect()
}

#[test]
fn sixteen_concurrent_streams_match_their_solo_text() {
    let mut cfg = config();
    cfg.limits.max_slots = 16;
    let server = start(cfg);
    let body = |p: &str| json!({"model": MODEL, "prompt": p, "max_tokens": 12, "temperature": 0, "ignore_eos": true, "stream": true});
    let solo: Vec<Vec<String>> =
        prompts().iter().map(|p| stream_texts(&server.stream("/v1/completions", &body(p))).0).collect();
    let r = Reference::get();
    assert_eq!(solo[0], vec![r.decode(&r.greedy(&r.encode(&prompts()[0], true), 12, true))]);
    let steps = |s: &TestServer, le: &str| {
        let all = s.metric("gerbil_decode_batch_rows_per_step_count", &[("model", MODEL)]);
        all - s.metric("gerbil_decode_batch_rows_per_step_bucket", &[("model", MODEL), ("le", le)])
    };
    assert_eq!(steps(&server, "1"), 0.0, "one stream at a time decodes one row per step");
    let together: Vec<Vec<String>> = std::thread::scope(|s| {
        let handles: Vec<_> = prompts()
            .into_iter()
            .map(|p| {
                let server = &server;
                s.spawn(move || stream_texts(&server.stream("/v1/completions", &body(&p))).0)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(together, solo);
    // The streams were decoded together: some steps carried many rows.
    assert!(steps(&server, "4") > 0.0, "no decode step had more than 4 rows:\n{}", server.get("/metrics").1);
    // Distinct prompts really gave distinct outputs (no slot mix-up could hide).
    let distinct: std::collections::HashSet<_> = solo.iter().collect();
    assert_eq!(distinct.len(), 16, "{solo:?}");
}

fn slow_server(slots: usize, queue: usize, timeout_s: u64) -> TestServer {
    let mut cfg = config();
    cfg.limits.max_slots = slots;
    cfg.limits.max_queue = queue;
    cfg.limits.request_timeout_s = timeout_s;
    cfg.debug.step_delay_ms = 25;
    start(cfg)
}

fn long_stream() -> Value {
    json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 200, "temperature": 0, "ignore_eos": true, "stream": true})
}

#[test]
fn full_queue_answers_429_and_disconnects_free_slots() {
    let s = slow_server(1, 1, 120);
    let cancelled = |s: &TestServer| s.metric("gerbil_sequences_finished_total", &[("reason", "cancelled")]);
    // A holds the only slot, B waits in the one queue place, C is refused.
    let mut a = raw_post(s.addr, "/v1/completions", &long_stream());
    read_until(&mut a, "data: ");
    s.wait_for("A to hold the slot", 10, |s| s.metric("gerbil_active_slots", &[("model", MODEL)]) == 1.0);
    let mut b = raw_post(s.addr, "/v1/completions", &long_stream());
    s.wait_for("B to queue", 30, |s| s.metric("gerbil_queue_depth", &[]) == 1.0);
    let r =
        client().post(s.url("/v1/completions")).json(&json!({"model": MODEL, "prompt": "hi", "max_tokens": 2})).send();
    let r = r.unwrap();
    let (status, retry) = (r.status().as_u16(), r.headers().get("retry-after").cloned());
    let v: serde_json::Value = r.json().unwrap();
    assert_eq!(status, 429, "{v}");
    assert_eq!(retry.as_ref().and_then(|h| h.to_str().ok()), Some("1"), "429 says when to retry");
    assert_eq!(v["error"]["type"], "rate_limit_error");
    assert_eq!(v["error"]["code"], "queue_full");
    // A disconnects mid-stream: its slot goes to B within a step or two.
    let before = cancelled(&s);
    let t0 = Instant::now();
    drop(a);
    s.wait_for("A's slot to be freed", 10, |s| cancelled(s) == before + 1.0);
    read_until(&mut b, "data: ");
    assert!(t0.elapsed() < Duration::from_secs(3), "freeing took {:?}", t0.elapsed());
    s.wait_for("the queue to empty", 10, |s| s.metric("gerbil_queue_depth", &[]) == 0.0);
    // A waiting client that disconnects leaves the queue without a slot.
    let c = raw_post(s.addr, "/v1/completions", &long_stream());
    s.wait_for("C to queue", 30, |s| s.metric("gerbil_queue_depth", &[]) == 1.0);
    drop(c);
    s.wait_for("C to leave the queue", 10, |s| s.metric("gerbil_queue_depth", &[]) == 0.0);
    drop(b);
    s.wait_for("all slots free", 10, |s| s.metric("gerbil_active_slots", &[("model", MODEL)]) == 0.0);
    // A non-streaming client that hangs up is cancelled too.
    let before = cancelled(&s);
    let mut body = long_stream();
    body["stream"] = json!(false);
    let d = raw_post(s.addr, "/v1/completions", &body);
    s.wait_for("D to start", 30, |s| s.metric("gerbil_active_slots", &[("model", MODEL)]) == 1.0);
    drop(d);
    s.wait_for("D to be cancelled", 10, |s| cancelled(s) == before + 1.0);
    s.wait_for("D's slot to be free", 10, |s| s.metric("gerbil_active_slots", &[("model", MODEL)]) == 0.0);
    assert!(s.metric("gerbil_time_to_first_token_seconds_count", &[("model", MODEL)]) >= 2.0);
}

#[test]
fn request_timeout_ends_a_stream_with_an_error_event() {
    let s = slow_server(2, 4, 1);
    let chunks = s.stream("/v1/completions", &long_stream());
    assert_eq!(chunks.last().unwrap(), "[DONE]");
    let err = &chunks[chunks.len() - 2];
    assert_eq!(err["error"]["code"], "request_timeout", "{err}");
    assert!(err["error"].as_object().unwrap().contains_key("param"));
    assert!(chunks.len() > 3, "some tokens arrived before the timeout");
    let mut body = long_stream();
    body["stream"] = json!(false);
    let (status, v) = s.post("/v1/completions", &body);
    assert_eq!(status, 408);
    assert_eq!(v["error"], err["error"], "same body streamed or not");
    s.wait_for("slots freed after timeouts", 10, |s| s.metric("gerbil_active_slots", &[("model", MODEL)]) == 0.0);
}
