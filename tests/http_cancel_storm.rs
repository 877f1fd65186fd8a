//! 1000 streams cut off by their clients at random points (before the answer, after the headers,
//! after some events, or read to the end) from 16 threads at once: afterwards no slot is busy, the
//! queue is empty, every started sequence is accounted for as finished, and the next request gets
//! exactly its greedy text. Resident memory after the warm-up and at the end is printed (see below).

mod http_support;

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http_support::*;
use serde_json::json;

const REQUESTS: usize = 1000;
const THREADS: usize = 16;
const WARM_UP: usize = 300;

/// A small deterministic generator (splitmix64), so a failure replays.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn a_thousand_cancelled_streams_leak_nothing() {
    let mut cfg = config();
    cfg.limits.max_slots = 8;
    cfg.limits.max_queue = 1024;
    let s = start(cfg);
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 40, "temperature": 0.7, "ignore_eos": true, "stream": true});
    let done = AtomicUsize::new(0);
    let read_to_end = AtomicUsize::new(0);
    let warm_rss = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for t in 0..THREADS {
            let (s, body, done, read_to_end, warm_rss) = (&s, &body, &done, &read_to_end, &warm_rss);
            scope.spawn(move || {
                let mut rng = 0x5EED_0000 + t as u64;
                loop {
                    let i = done.fetch_add(1, Ordering::Relaxed);
                    if i >= REQUESTS {
                        break;
                    }
                    if i == WARM_UP {
                        warm_rss.store(rss_kib() as usize, Ordering::Relaxed);
                    }
                    let mut c = raw_post(s.addr, "/v1/completions", body);
                    c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
                    // Bytes to read before hanging up: none, a few (inside the headers), some events, all.
                    let cut = match next(&mut rng) % 4 {
                        0 => 0,
                        1 => (next(&mut rng) % 100) as usize,
                        2 => 200 + (next(&mut rng) % 3000) as usize,
                        _ => usize::MAX,
                    };
                    let (mut seen, mut buf) = (0, [0u8; 512]);
                    while seen < cut {
                        match c.read(&mut buf[..512.min(cut - seen).max(1)]) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => seen += n,
                        }
                    }
                    if cut == usize::MAX {
                        read_to_end.fetch_add(1, Ordering::Relaxed);
                    }
                    drop(c);
                }
            });
        }
    });
    assert!(read_to_end.load(Ordering::Relaxed) > 100, "the mix read some streams whole");
    let (warm, end) = (warm_rss.load(Ordering::Relaxed) as f64, rss_kib() as f64);
    eprintln!("resident memory: {warm} KiB after {WARM_UP} requests, {end} KiB after {REQUESTS}");
    // Not asserted here: on software Vulkan (Mesa 22.3 lavapipe, what CI runs) each dispatch of the
    // tiled f32 matmul (barriers inside its K loop) leaves ~310 KB inside the driver until the device
    // is dropped (heaptrack: libvulkan_lvp and its JIT code; the matvec kernels, readbacks, writes and
    // copies leave nothing), so resident memory grows with the prefill count whatever the server
    // does. tools/soak_server.py checks it on a real GPU.
    let _ = (warm, end);
    // Every sequence ends (cancelled or finished) and frees its slot; nothing waits.
    s.wait_for("every slot free and the queue empty", 120, |s| {
        s.metric("gerbil_active_slots", &[]) == 0.0 && s.metric("gerbil_queue_depth", &[]) == 0.0
    });
    let finished = s.metric("gerbil_sequences_finished_total", &[]);
    let cancelled = s.metric("gerbil_sequences_finished_total", &[("reason", "cancelled")]);
    assert!(finished <= REQUESTS as f64 && finished >= 0.7 * REQUESTS as f64, "finished {finished}");
    assert!(cancelled >= 100.0, "cancelled {cancelled}: the clients hung up mid-stream");
    eprintln!("{finished} sequences finished, {cancelled} of them cancelled by their clients");
    // And the server still answers exactly.
    let r = Reference::get();
    let greedy = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 12, "temperature": 0, "ignore_eos": true});
    let (status, v) = s.post("/v1/completions", &greedy);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["choices"][0]["text"], r.decode(&r.greedy(&r.encode(PROMPT, true), 12, true)));
}
