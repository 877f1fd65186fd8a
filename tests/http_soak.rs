//! The soak, short, on software Vulkan: 64 clients keep a stream open each for 20 s (twice the
//! slots, so half wait in the queue at any time). Every stream must end complete (its usage says
//! exactly max_tokens tokens, its finish_reason "length"), nothing may fail, and afterwards no slot
//! is busy, the queue is empty and every sequence is counted as finished by length. Resident memory
//! is printed, not asserted here: lavapipe (Mesa's software Vulkan) keeps ~300 KB inside the driver
//! per dispatch of one tiled kernel (see tests/http_cancel_storm.rs). Flat memory is measured on a
//! GPU for 5 minutes by tools/soak_server.py (BENCHMARKS.md).

mod http_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_support::*;
use serde_json::json;

const CLIENTS: usize = 64;
const SECONDS: u64 = 20;
const MAX_TOKENS: u64 = 16;

#[test]
fn sixty_four_streams_for_twenty_seconds_all_complete_and_leave_nothing_busy() {
    let mut cfg = config();
    cfg.limits.max_slots = 32;
    cfg.limits.max_queue = 256;
    let s = start(cfg);
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": MAX_TOKENS, "temperature": 0.7,
                      "ignore_eos": true, "stream": true, "stream_options": {"include_usage": true}});
    let done = AtomicUsize::new(0);
    let rss_start = rss_kib();
    let end = Instant::now() + Duration::from_secs(SECONDS);
    std::thread::scope(|scope| {
        for _ in 0..CLIENTS {
            let (s, body, done) = (&s, &body, &done);
            scope.spawn(move || {
                while Instant::now() < end {
                    let events = s.stream("/v1/completions", body);
                    assert_eq!(events.last().and_then(|e| e.as_str()), Some("[DONE]"), "{events:?}");
                    assert!(events.iter().all(|e| e.get("error").is_none()), "{events:?}");
                    let (_, reasons) = stream_texts(&events[..events.len() - 1]);
                    assert_eq!(reasons, vec!["length".to_string()]);
                    let usage = events.iter().rev().find_map(|e| e.get("usage").filter(|u| !u.is_null()));
                    assert_eq!(usage.expect("usage chunk")["completion_tokens"], MAX_TOKENS);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    let streams = done.load(Ordering::Relaxed);
    println!("{streams} streams in {SECONDS} s; resident memory {rss_start} -> {} KiB", rss_kib());
    assert!(streams >= CLIENTS, "every client finished at least one stream");
    assert_eq!(s.metric("gerbil_active_slots", &[("model", MODEL)]), 0.0);
    assert_eq!(s.metric("gerbil_queue_depth", &[]), 0.0);
    let finished = |reason| s.metric("gerbil_sequences_finished_total", &[("model", MODEL), ("reason", reason)]);
    assert_eq!(finished("length"), streams as f64);
    for other in ["error", "cancelled", "eos", "stop"] {
        assert_eq!(finished(other), 0.0, "{other}");
    }
}
