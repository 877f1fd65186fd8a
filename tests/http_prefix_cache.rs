//! The prefix cache over HTTP against the fixture model: a request whose prompt starts with what an
//! earlier one left in the cache prefills only the rest, says so in `usage.prompt_tokens_details.
//! cached_tokens` (OpenAI's field) and in /metrics, and gives the same greedy text as the engine
//! prefilling the whole prompt. `limits.prefix_cache = false` turns it off.

mod http_support;

use http_support::*;
use serde_json::{json, Value};

fn cached(v: &Value) -> u64 {
    v["usage"]["prompt_tokens_details"]["cached_tokens"].as_u64().unwrap_or_else(|| panic!("no cached_tokens: {v}"))
}

fn tokens(seed: u32, n: usize) -> Vec<u32> {
    // Ordinary vocabulary ids (the fixture's 384 tokens; the chat markers sit low).
    (0..n as u32).map(|i| 20 + (seed * 131 + i * 37) % 300).collect()
}

#[test]
fn a_continued_prompt_reuses_the_cached_prefix() {
    let server = start(config());
    let r = Reference::get();
    let first = tokens(1, 30);
    let body = |p: &[u32]| json!({"model": MODEL, "prompt": p, "max_tokens": 5, "temperature": 0, "ignore_eos": true});
    let (status, v) = server.post("/v1/completions", &body(&first));
    assert_eq!(status, 200, "{v}");
    assert_eq!(cached(&v), 0);
    // The cache now holds `first` and the 4 generated tokens fed back; a prompt that starts with
    // `first` and then goes elsewhere reuses exactly `first`.
    let generated = r.greedy(&first, 5, true);
    let mut second = first.clone();
    second.extend(tokens(2, 12).into_iter().filter(|&t| t != generated[0]));
    let (_, v) = server.post("/v1/completions", &body(&second));
    assert_eq!(cached(&v), first.len() as u64, "{v}");
    assert_eq!(v["usage"]["prompt_tokens"], second.len());
    assert_eq!(texts(&v), vec![r.decode(&r.greedy(&second, 5, true))], "text after a reused prefix");
    // llama-server's cache_prompt: false prefills it all, with the same text.
    let mut uncached = body(&second);
    uncached["cache_prompt"] = json!(false);
    let (_, u) = server.post("/v1/completions", &uncached);
    assert_eq!(cached(&u), 0, "{u}");
    assert_eq!(texts(&u), texts(&v));
    // The whole previous sequence (prompt and fed tokens) continued: all of it is reused.
    let held: Vec<u32> = second.iter().chain(&r.greedy(&second, 5, true)[..4]).copied().collect();
    let third: Vec<u32> = held.iter().copied().chain(tokens(3, 3)).collect();
    let mut sbody = body(&third);
    sbody["stream"] = json!(true);
    sbody["stream_options"] = json!({"include_usage": true});
    let chunks = server.stream("/v1/completions", &sbody);
    let usage = &chunks[chunks.len() - 2];
    assert_eq!(cached(usage), held.len() as u64, "{usage}");
    assert_eq!(stream_texts(&chunks).0, vec![r.decode(&r.greedy(&third, 5, true))]);
    let labels = [("model", MODEL)];
    assert_eq!(server.metric("gerbil_prefix_cache_hits_total", &labels), 2.0);
    assert_eq!(server.metric("gerbil_prefix_cache_misses_total", &labels), 2.0);
    assert_eq!(server.metric("gerbil_prefix_cache_tokens_total", &labels), (first.len() + held.len()) as f64);
}

#[test]
fn a_chats_next_turn_reuses_the_first_turn() {
    let server = start(config());
    let system = "You are a careful assistant who answers questions about rivers, boats and fishing.";
    let turn1 = json!([{"role": "system", "content": system}, {"role": "user", "content": "Where is the boat?"}]);
    let body = |m: &Value| json!({"model": MODEL, "messages": m, "max_tokens": 8, "temperature": 0});
    let (status, v1) = server.post("/v1/chat/completions", &body(&turn1));
    assert_eq!(status, 200, "{v1}");
    let reply = v1["choices"][0]["message"]["content"].as_str().unwrap().to_string();
    let mut turn2 = turn1.as_array().unwrap().clone();
    turn2.push(json!({"role": "assistant", "content": reply}));
    turn2.push(json!({"role": "user", "content": "And the fish?"}));
    let turn2 = Value::Array(turn2);
    let (_, v2) = server.post("/v1/chat/completions", &body(&turn2));
    let prompt1 = v1["usage"]["prompt_tokens"].as_u64().unwrap();
    // At least the first turn's prompt (the rendered history starts with it).
    assert!(cached(&v2) >= prompt1, "turn 2 reused {} of turn 1's {prompt1} prompt tokens", cached(&v2));
    assert!(cached(&v2) < v2["usage"]["prompt_tokens"].as_u64().unwrap());
    // The same answer as a server that prefills everything.
    let mut cfg = config();
    cfg.limits.prefix_cache = false;
    let plain = start(cfg);
    let (_, p1) = plain.post("/v1/chat/completions", &body(&turn1));
    let (_, p2) = plain.post("/v1/chat/completions", &body(&turn2));
    assert_eq!((cached(&p1), cached(&p2)), (0, 0));
    assert_eq!(texts(&p2), texts(&v2), "turn 2 with and without the cache");
    assert_eq!(plain.metric("gerbil_prefix_cache_hits_total", &[("model", MODEL)]), 0.0);
}
