//! Clients that are slow on purpose or by accident: headers or a body trickled in (slowloris) are
//! cut off by their read deadlines while other requests are served; a client that stops reading
//! its stream stalls nobody else and still gets every byte when it reads again; on shutdown, open
//! requests get the grace period and no more.

mod http_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use http_support::*;
use serde_json::{json, Value};

fn quick_request(s: &TestServer) {
    let t0 = Instant::now();
    let (status, v) = s.post("/v1/completions", &json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 3}));
    assert_eq!(status, 200, "{v}");
    assert!(t0.elapsed() < Duration::from_secs(30), "a plain request took {:?}", t0.elapsed());
}

/// Reads until the peer closes (or `limit` passes); the bytes and whether it closed.
fn read_to_close(s: &mut TcpStream, limit: Duration) -> (String, bool) {
    s.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    let (t0, mut seen, mut buf) = (Instant::now(), Vec::new(), [0u8; 4096]);
    while t0.elapsed() < limit {
        match s.read(&mut buf) {
            Ok(0) => return (String::from_utf8_lossy(&seen).into(), true),
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => return (String::from_utf8_lossy(&seen).into(), true),
        }
    }
    (String::from_utf8_lossy(&seen).into(), false)
}

#[test]
fn trickled_headers_and_bodies_hit_their_deadlines() {
    let mut cfg = config();
    cfg.limits.header_read_timeout_s = 1;
    cfg.limits.body_read_timeout_s = 2;
    let s = start(cfg);

    // Headers one byte at a time, never finished: the connection is closed without an answer, a
    // little after the header deadline (well before the body's and the request's).
    let mut slow = TcpStream::connect(s.addr).unwrap();
    let t0 = Instant::now();
    slow.write_all(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\n").unwrap();
    let mut closed = false;
    for b in b"Content-Type: application/json\r\n".iter().cycle().take(40) {
        std::thread::sleep(Duration::from_millis(100));
        if slow.write_all(&[*b]).is_err() {
            closed = true;
            break;
        }
        // Meanwhile the server serves others.
        if t0.elapsed() < Duration::from_millis(150) {
            quick_request(&s);
        }
    }
    let (answer, closed_now) = read_to_close(&mut slow, Duration::from_secs(5));
    assert!(closed || closed_now, "a trickled header was not cut off");
    assert!(!answer.contains("200 OK"), "{answer}");
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(6), "cut off after {took:?}");

    // A body announced at 1000 bytes, 20 sent: 408 in OpenAI's shape once the body deadline passes.
    for (path, ct) in
        [("/v1/completions", "application/json"), ("/v1/audio/transcriptions", "multipart/form-data; boundary=XyZ")]
    {
        let mut slow = TcpStream::connect(s.addr).unwrap();
        let t0 = Instant::now();
        write!(slow, "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {ct}\r\nContent-Length: 1000\r\n\r\n").unwrap();
        slow.write_all(if path.contains("audio") { b"--XyZ\r\nContent-Disp" } else { br#"{"model": "qwen3", "# })
            .unwrap();
        quick_request(&s);
        let (answer, _) = read_to_close(&mut slow, Duration::from_secs(10));
        let took = t0.elapsed();
        assert!(answer.starts_with("HTTP/1.1 408"), "{path}: {answer}");
        let body: Value = serde_json::from_str(
            answer
                .split("\r\n\r\n")
                .nth(1)
                .unwrap_or_default()
                .trim_start_matches(|c: char| c.is_ascii_hexdigit() || c.is_whitespace())
                .trim_end_matches(|c: char| c == '0' || c.is_whitespace()),
        )
        .unwrap_or_else(|e| panic!("{path}: {e}: {answer}"));
        assert_eq!(body["error"]["code"], "body_read_timeout", "{path}: {body}");
        assert_eq!(body["error"]["type"], "timeout_error", "{path}: {body}");
        assert!(body["error"]["message"].as_str().unwrap().contains("body_read_timeout_s"), "{body}");
        assert!(took >= Duration::from_millis(1900) && took < Duration::from_secs(8), "{path}: 408 after {took:?}");
    }

    // A body that arrives slowly but within the deadline is served.
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 2}).to_string();
    let mut c = TcpStream::connect(s.addr).unwrap();
    write!(c, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()).unwrap();
    for chunk in body.as_bytes().chunks(body.len() / 4 + 1) {
        std::thread::sleep(Duration::from_millis(200));
        c.write_all(chunk).unwrap();
    }
    let (answer, _) = read_to_close(&mut c, Duration::from_secs(30));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[test]
fn a_client_that_stops_reading_stalls_nobody_and_loses_nothing() {
    let mut cfg = config();
    cfg.limits.max_tokens = 200;
    let s = start(cfg);
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 200, "temperature": 0, "ignore_eos": true, "stream": true, "n": 4, "logprobs": 5, "echo": true});
    // A stream far larger than the socket buffers, not read for a while.
    let mut stalled = TcpStream::connect(s.addr).unwrap();
    let text = body.to_string();
    // HTTP/1.0: the answer is not chunked, so its lines are the SSE lines.
    write!(stalled, "POST /v1/completions HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}", text.len()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..3 {
        quick_request(&s);
    }
    // The same request read by a client that keeps up: the stalled one must get exactly this.
    let want = s.stream("/v1/completions", &body);
    let (answer, closed) = read_to_close(&mut stalled, Duration::from_secs(120));
    assert!(closed, "the stalled stream never ended");
    let got: Vec<Value> = answer
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap_or_else(|_| Value::String(d.to_string())))
        .collect();
    assert_eq!(got.len(), want.len(), "events lost or added");
    // The n choices' events interleave in any order; each choice's own sequence must be the same.
    let per_choice = |events: &[Value]| {
        let mut by_index = std::collections::BTreeMap::<String, Vec<Value>>::new();
        for e in events {
            let mut e = e.clone();
            let index = e["choices"][0]["index"].to_string();
            if let Some(o) = e.as_object_mut() {
                o.remove("id");
                o.remove("created");
            }
            by_index.entry(index).or_default().push(e);
        }
        by_index
    };
    let (got, want) = (per_choice(&got), per_choice(&want));
    assert_eq!(got.len(), 5, "4 choices and the [DONE]"); // "[DONE]" has no choices: index "null"
    assert_eq!(got, want);
}

#[test]
fn shutdown_gives_open_requests_the_grace_period_and_no_more() {
    let mut cfg = config();
    cfg.listen = "127.0.0.1:0".parse().unwrap();
    cfg.limits.shutdown_grace_s = 2;
    cfg.limits.max_tokens = 200;
    cfg.debug.step_delay_ms = 100; // 200 tokens: ~20 s, far past the grace period
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async move {
        let server = gerbil::server::start(cfg).await.unwrap();
        server.worker.wait_loaded().await.unwrap();
        let addr = server.addr;
        let reader = tokio::task::spawn_blocking(move || {
            let mut c = raw_post(addr, "/v1/completions", &long_stream());
            read_until(&mut c, "data: ");
            read_to_close(&mut c, Duration::from_secs(60))
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
        let t0 = Instant::now();
        server.shutdown().await;
        let took = t0.elapsed();
        assert!(took >= Duration::from_millis(1900) && took < Duration::from_secs(10), "shutdown took {took:?}");
        let (_, closed) = reader.await.unwrap();
        assert!(closed, "the open stream was not closed at the end of the grace period");
        assert!(TcpStream::connect(addr).is_err(), "still accepting after shutdown");
    });
}

fn long_stream() -> Value {
    json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 200, "temperature": 0, "ignore_eos": true, "stream": true})
}
