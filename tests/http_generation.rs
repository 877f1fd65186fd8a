//! /v1/completions and /v1/chat/completions over real HTTP against the engine:
//! greedy text equals `Session::generate`, every prompt shape, streaming
//! equals non-streaming, logprobs equal log-softmax of the engine's logits,
//! echo, stop strings across token boundaries, seeds, n, top-k/top-p, logit
//! bias and penalties (replayed on the CPU from the engine's logits).

mod http_support;

use gerbil::models::llm::{Session, SessionOptions};
use gerbil::text::sampling::{Sampler, SamplingParams};
use http_support::*;
use serde_json::{json, Value};

fn complete(body: Value) -> Value {
    let (status, v) = shared().post("/v1/completions", &body);
    assert_eq!(status, 200, "{v}");
    v
}

fn log_softmax(row: &[f32]) -> Vec<f32> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let lse = max + row.iter().map(|l| (l - max).exp()).sum::<f32>().ln();
    row.iter().map(|l| l - lse).collect()
}

#[test]
fn greedy_completion_equals_engine_generate() {
    let r = Reference::get();
    let ids = r.greedy(&r.encode(PROMPT, true), 24, false);
    let v = complete(json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 24, "temperature": 0}));
    assert_eq!(texts(&v), vec![r.decode(&ids)]);
    assert_eq!(v["object"], "text_completion");
    assert!(v["id"].as_str().unwrap().starts_with("cmpl-"));
    assert_eq!(v["usage"]["prompt_tokens"], 14);
    assert_eq!(v["usage"]["completion_tokens"], ids.len());
    assert_eq!(v["usage"]["total_tokens"], 14 + ids.len());
    let want_reason = if ids.len() == 24 { "length" } else { "stop" };
    assert_eq!(v["choices"][0]["finish_reason"], want_reason);
    // ignore_eos: exactly max_tokens tokens, the engine's untruncated output.
    let ids = r.greedy(&r.encode(PROMPT, true), 40, true);
    let v = complete(json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 40, "temperature": 0, "ignore_eos": true}));
    assert_eq!(texts(&v), vec![r.decode(&ids)]);
    assert_eq!(v["usage"]["completion_tokens"], 40);
    assert_eq!(v["choices"][0]["finish_reason"], "length");
    // A lone greedy stream runs pipelined: each step is submitted before the previous one's token is read.
    let (_, metrics) = shared().get("/metrics");
    let chained: f64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("gerbil_chained_decode_steps_total")?.split_whitespace().last()?.parse().ok())
        .expect("chained steps counter");
    assert!(chained >= 30.0, "greedy decode steps were not chained ({chained})");
}

#[test]
fn every_prompt_shape() {
    let r = Reference::get();
    let other = "A quiet river";
    let (a, b) = (r.encode(PROMPT, true), r.encode(other, true));
    let want = vec![r.decode(&r.greedy(&a, 8, false)), r.decode(&r.greedy(&b, 8, false))];
    let base = json!({"model": MODEL, "max_tokens": 8, "temperature": 0});
    let with = |prompt: Value| {
        let mut body = base.clone();
        body["prompt"] = prompt;
        complete(body)
    };
    assert_eq!(texts(&with(json!([PROMPT, other]))), want);
    assert_eq!(texts(&with(json!([a.clone(), b.clone()]))), want);
    assert_eq!(texts(&with(json!(a.clone()))), want[..1].to_vec());
    let v = with(json!([PROMPT, other]));
    assert_eq!(v["usage"]["prompt_tokens"], a.len() + b.len());
}

#[test]
fn stream_equals_non_stream_with_usage_chunk_and_done() {
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 20, "temperature": 0});
    let full = complete(body.clone());
    let mut sbody = body.clone();
    sbody["stream"] = json!(true);
    sbody["stream_options"] = json!({"include_usage": true});
    let chunks = shared().stream("/v1/completions", &sbody);
    assert_eq!(chunks.last().unwrap(), "[DONE]");
    let usage_chunk = &chunks[chunks.len() - 2];
    assert_eq!(usage_chunk["choices"], json!([]));
    assert_eq!(usage_chunk["usage"], full["usage"]);
    let (t, reasons) = stream_texts(&chunks);
    assert_eq!(t, texts(&full));
    assert_eq!(reasons[0], full["choices"][0]["finish_reason"].as_str().unwrap());
    let id = chunks[0]["id"].as_str().unwrap();
    for c in &chunks[..chunks.len() - 1] {
        assert_eq!(c["id"], id);
        assert_eq!(c["object"], "text_completion");
    }
    // The chunks before the usage one say `"usage": null`, as OpenAI's do.
    assert!(chunks[..chunks.len() - 2].iter().all(|c| c.get("usage") == Some(&Value::Null)), "{chunks:?}");
    // Without include_usage no chunk carries usage.
    sbody["stream_options"] = json!({"include_usage": false});
    let chunks = shared().stream("/v1/completions", &sbody);
    assert!(chunks.iter().all(|c| c.get("usage").is_none()));
}

#[test]
fn chat_uses_the_template_and_streams_role_first() {
    let r = Reference::get();
    let rendered =
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n";
    let ids = r.greedy(&r.encode(rendered, false), 16, false);
    let messages = json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "Hello there"}]}]);
    let body = json!({"model": MODEL, "messages": messages, "max_tokens": 16, "temperature": 0});
    let (status, v) = shared().post("/v1/chat/completions", &body);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["choices"][0]["message"]["role"], "assistant");
    assert_eq!(texts(&v), vec![r.decode(&ids)]);
    assert_eq!(v["usage"]["prompt_tokens"], r.encode(rendered, false).len());
    let mut sbody = body.clone();
    sbody["stream"] = json!(true);
    sbody["stream_options"] = json!({"include_usage": true});
    let chunks = shared().stream("/v1/chat/completions", &sbody);
    assert_eq!(chunks[0]["choices"][0]["delta"], json!({"role": "assistant", "content": ""}));
    assert!(chunks[1..]
        .iter()
        .filter(|c| c.is_object())
        .all(|c| c["choices"].get(0).is_none_or(|ch| ch["delta"].get("role").is_none())));
    // The same prompt again: its tokens but the last may come from the prefix cache (other tests share
    // the server and may have taken the slot), the counts are the same.
    let (mut streamed, mut whole) = (chunks[chunks.len() - 2]["usage"].clone(), v["usage"].clone());
    let reused = streamed["prompt_tokens_details"]["cached_tokens"].take().as_u64().unwrap();
    assert!(reused < v["usage"]["prompt_tokens"].as_u64().unwrap(), "{streamed}");
    assert_eq!(whole["prompt_tokens_details"]["cached_tokens"].take(), 0, "the first time this prompt is sent");
    assert_eq!(streamed, whole);
    assert!(chunks[..chunks.len() - 2].iter().all(|c| c.get("usage") == Some(&Value::Null)), "{chunks:?}");
    assert_eq!(stream_texts(&chunks).0, texts(&v));
    assert!(chunks.iter().filter(|c| c.is_object()).all(|c| c["object"] == "chat.completion.chunk"));
}

#[test]
fn logprobs_are_log_softmax_of_the_engine_logits() {
    let r = Reference::get();
    let prompt = r.encode(PROMPT, true);
    let v = complete(
        json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 6, "temperature": 0, "logprobs": 3, "ignore_eos": true}),
    );
    let lp = &v["choices"][0]["logprobs"];
    // Replay: prefill, then feed each chosen token, comparing with the engine's logits.
    let mut s = Session::new(&r.model, SessionOptions::default()).unwrap();
    s.prefill(&prompt).unwrap();
    let mut offset_prev = 0;
    for i in 0..6 {
        let row = log_softmax(&s.logits().unwrap());
        let mut order: Vec<usize> = (0..row.len()).collect();
        order.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
        let chosen = order[0] as u32;
        assert_eq!(lp["tokens"][i], r.token(chosen), "token {i}");
        let got = lp["token_logprobs"][i].as_f64().unwrap() as f32;
        assert!((got - row[chosen as usize]).abs() < 1e-3, "token {i}: logprob {got} vs {}", row[chosen as usize]);
        let top = lp["top_logprobs"][i].as_object().unwrap();
        assert!(top.len() <= 4 && top.contains_key(&r.token(chosen)), "{top:?}");
        for &id in &order[..3] {
            if let Some(v) = top.get(&r.token(id as u32)) {
                // Partial characters read as their own bytes, so no two alternatives share a key.
                assert!((v.as_f64().unwrap() as f32 - row[id]).abs() < 1e-3, "{top:?}");
            }
        }
        let offset = lp["text_offset"][i].as_u64().unwrap() as usize;
        assert!(offset >= offset_prev);
        offset_prev = offset;
        s.set_next_token(chosen);
        s.decode_step().unwrap();
    }
    // Greedy through CPU logits (logprobs on) picks what the GPU argmax picks.
    let plain =
        complete(json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 6, "temperature": 0, "ignore_eos": true}));
    assert_eq!(texts(&v), texts(&plain), "argmax of the read-back logits disagrees with the GPU argmax");
    // Chat: top_logprobs alternatives per token.
    let body = json!({"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "temperature": 0,
                      "logprobs": true, "top_logprobs": 2, "ignore_eos": true});
    let (_, c) = shared().post("/v1/chat/completions", &body);
    let content = c["choices"][0]["logprobs"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 5);
    for t in content {
        let top = t["top_logprobs"].as_array().unwrap();
        assert_eq!(top.len(), 2);
        assert!(top[0]["logprob"].as_f64() >= top[1]["logprob"].as_f64());
        assert_eq!(t["bytes"], json!(token_bytes(t["token"].as_str().unwrap())));
    }
}

#[test]
fn echo_returns_and_scores_the_prompt() {
    let r = Reference::get();
    let prompt = r.encode(PROMPT, true);
    let v = complete(json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 0, "echo": true, "logprobs": 1}));
    assert_eq!(texts(&v), vec![PROMPT.to_string()]);
    let lp = &v["choices"][0]["logprobs"];
    assert_eq!(lp["token_logprobs"].as_array().unwrap().len(), prompt.len());
    assert!(lp["token_logprobs"][0].is_null() && lp["top_logprobs"][0].is_null());
    assert_eq!(v["usage"]["completion_tokens"], 0);
    let mut s = Session::new(&r.model, SessionOptions { all_logits: true }).unwrap();
    s.prefill(&prompt).unwrap();
    let logits = s.logits().unwrap();
    let vocab = logits.len() / prompt.len();
    for i in 1..prompt.len() {
        let row = log_softmax(&logits[(i - 1) * vocab..i * vocab]);
        let got = lp["token_logprobs"][i].as_f64().unwrap() as f32;
        assert!((got - row[prompt[i] as usize]).abs() < 1e-3, "prompt token {i}: {got} vs {}", row[prompt[i] as usize]);
        assert_eq!(lp["tokens"][i], r.token(prompt[i]));
    }
    // Echo then generate, streamed: the prompt comes first, then the greedy text.
    let want = format!("{PROMPT}{}", r.greedy_text(PROMPT, 5));
    let chunks = shared().stream(
        "/v1/completions",
        &json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 5, "temperature": 0, "echo": true, "stream": true}),
    );
    assert_eq!(chunks[0]["choices"][0]["text"], PROMPT);
    assert_eq!(stream_texts(&chunks).0, vec![want]);
}

/// Special tokens keep their text in logprobs (the completion text drops them, like transformers'
/// decode with skip_special_tokens).
#[test]
fn special_tokens_render_in_logprobs() {
    let r = Reference::get();
    let prompt = "<|im_start|>user\nhi<|im_end|>";
    let ids = r.encode(prompt, false);
    assert!(ids.contains(&1) && ids.contains(&2), "the fixture tokenizer knows the chat markers: {ids:?}");
    let v = complete(json!({"model": MODEL, "prompt": prompt, "max_tokens": 0, "echo": true, "logprobs": 0}));
    let tokens: Vec<&str> =
        v["choices"][0]["logprobs"]["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(tokens.first(), Some(&"<|im_start|>"), "{tokens:?}");
    assert_eq!(tokens.last(), Some(&"<|im_end|>"), "{tokens:?}");
    assert_eq!(tokens.len(), ids.len());
}

/// A logprobs token's bytes: its UTF-8, or the escaped bytes of a partial character
/// (`bytes:\xf0\x9f`).
fn token_bytes(t: &str) -> Vec<u8> {
    match t.strip_prefix("bytes:") {
        Some(esc) => esc.split("\\x").skip(1).map(|h| u8::from_str_radix(h, 16).unwrap()).collect(),
        None => t.as_bytes().to_vec(),
    }
}

/// Tokens that hold part of a character (byte-level BPE splits 🦀 into bytes) show their own
/// bytes, escaped, not U+FFFD: the prompt's tokens put back together give the prompt's bytes.
#[test]
fn logprob_tokens_keep_partial_characters() {
    let prompt = "I love 🦀 and 日本語";
    let v = complete(json!({"model": MODEL, "prompt": prompt, "max_tokens": 0, "echo": true, "logprobs": 0}));
    let tokens: Vec<&str> =
        v["choices"][0]["logprobs"]["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert!(tokens.iter().any(|t| t.starts_with("bytes:")), "the fixture splits a character: {tokens:?}");
    assert!(!tokens.iter().any(|t| t.contains('\u{fffd}')), "{tokens:?}");
    let joined: Vec<u8> = tokens.iter().flat_map(|t| token_bytes(t)).collect();
    assert_eq!(String::from_utf8_lossy(&joined), prompt, "{tokens:?}");
}

/// (text, char offset where each token's text starts) of a greedy run.
fn greedy_pieces(n: usize) -> (String, Vec<usize>) {
    let r = Reference::get();
    let ids = r.greedy(&r.encode(PROMPT, true), n, true);
    let text = r.decode(&ids);
    let starts = (0..ids.len()).map(|k| r.decode(&ids[..k]).chars().count()).collect();
    (text, starts)
}

#[test]
fn stop_strings_spanning_tokens() {
    let (text, starts) = greedy_pieces(40);
    let chars: Vec<char> = text.chars().collect();
    // A 3-character stop string straddling a token boundary, whose first
    // occurrence is right there (so the expected output is known).
    let (stop, at) = starts
        .iter()
        .filter(|&&b| b >= 2 && b + 1 < chars.len())
        .map(|&b| (chars[b - 2..b + 1].iter().collect::<String>(), b - 2))
        .find(|(s, at)| {
            !s.contains('\u{FFFD}') && text.find(s.as_str()).map(|p| text[..p].chars().count()) == Some(*at)
        })
        .expect("a boundary-spanning stop string in the greedy text");
    let want: String = chars[..at].iter().collect();
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 40, "temperature": 0, "ignore_eos": true, "stop": [stop, "\u{1F600}never"]});
    let v = complete(body.clone());
    assert_eq!(texts(&v), vec![want.clone()], "stop {stop:?}");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert!(v["usage"]["completion_tokens"].as_u64().unwrap() < 40);
    let mut sbody = body;
    sbody["stream"] = json!(true);
    let (t, reasons) = stream_texts(&shared().stream("/v1/completions", &sbody));
    assert_eq!((t, reasons), (vec![want], vec!["stop".to_string()]));
    // The metrics count both as stops, not as clients that went away (a server of its own, so no
    // other test's requests move its counters).
    let server = start(config());
    let finished = |reason| server.metric("gerbil_sequences_finished_total", &[("reason", reason)]);
    assert_eq!(stream_texts(&server.stream("/v1/completions", &sbody)).1, vec!["stop".to_string()]);
    sbody["stream"] = json!(false);
    let (status, v) = server.post("/v1/completions", &sbody);
    assert_eq!((status, &v["choices"][0]["finish_reason"]), (200, &json!("stop")), "{v}");
    server.wait_for("both sequences to leave their slots", 10, |s| {
        s.metric("gerbil_active_slots", &[("model", MODEL)]) == 0.0 && finished("stop") == 2.0
    });
    assert_eq!(finished("cancelled"), 0.0);
}

#[test]
fn seeds_reproduce_and_n_choices_differ() {
    let body = |seed: i64, n: u32| json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 24, "temperature": 1.0, "seed": seed, "n": n, "ignore_eos": true});
    let a = texts(&complete(body(42, 1)));
    assert_eq!(a, texts(&complete(body(42, 1))));
    assert_ne!(a, texts(&complete(body(43, 1))));
    let three = texts(&complete(body(7, 3)));
    assert_eq!(three.len(), 3);
    assert_eq!(three, texts(&complete(body(7, 3))));
    assert!(three[0] != three[1] || three[1] != three[2], "n choices were all identical: {three:?}");
    // A choice's draws belong to its request's seed: seed 8 alone is none of seed 7's choices.
    let eight = texts(&complete(body(8, 1)));
    assert!(!three.contains(&eight[0]), "seed 8 {eight:?} repeats a choice of seed 7 {three:?}");
    // Streaming draws the same tokens.
    let mut s = body(42, 1);
    s["stream"] = json!(true);
    assert_eq!(stream_texts(&shared().stream("/v1/completions", &s)).0, a);
    // Chat too.
    let chat = json!({"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 12, "temperature": 0.9, "seed": 5});
    assert_eq!(
        texts(&shared().post("/v1/chat/completions", &chat).1),
        texts(&shared().post("/v1/chat/completions", &chat).1)
    );
}

#[test]
fn n_greedy_choices_are_all_the_greedy_text() {
    let r = Reference::get();
    let v = complete(json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 10, "temperature": 0, "n": 3}));
    let want = r.greedy_text(PROMPT, 10);
    assert_eq!(texts(&v), vec![want.clone(), want.clone(), want]);
    let per = v["usage"]["completion_tokens"].as_u64().unwrap();
    assert_eq!(per % 3, 0);
    assert_eq!(v["usage"]["prompt_tokens"], 14);
}

#[test]
fn top_k_one_and_tiny_top_p_are_greedy() {
    let greedy = Reference::get().greedy_text(PROMPT, 16);
    for extra in [json!({"top_k": 1}), json!({"top_p": 1e-6})] {
        let mut body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 16, "temperature": 1.5, "seed": 1});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        assert_eq!(texts(&complete(body)), vec![greedy.clone()], "{extra}");
    }
}

#[test]
fn logit_bias_forces_and_forbids_tokens() {
    let r = Reference::get();
    let forced = 65u32;
    let v = complete(
        json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 5, "temperature": 0, "logit_bias": {forced.to_string(): 100}}),
    );
    assert_eq!(texts(&v), vec![r.decode(&[forced; 5])]);
    let first = r.greedy(&r.encode(PROMPT, true), 1, true)[0];
    let v = complete(
        json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 1, "temperature": 0, "logprobs": 0, "logit_bias": {first.to_string(): -100}}),
    );
    assert_ne!(v["choices"][0]["logprobs"]["tokens"][0], r.decode(&[first]));
}

#[test]
fn penalties_match_a_cpu_replay_of_the_engine() {
    let r = Reference::get();
    let params = SamplingParams { presence_penalty: 1.5, frequency_penalty: 1.0, ..SamplingParams::greedy() };
    let mut sampler = Sampler::new(params);
    let mut s = Session::new(&r.model, SessionOptions::default()).unwrap();
    s.prefill(&r.encode(PROMPT, true)).unwrap();
    let mut ids = Vec::new();
    for _ in 0..20 {
        let id = sampler.sample(&mut s.logits().unwrap());
        sampler.observe(id);
        ids.push(id);
        s.set_next_token(id);
        s.decode_step().unwrap();
    }
    let body = json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 20, "temperature": 0, "ignore_eos": true,
                      "presence_penalty": 1.5, "frequency_penalty": 1.0});
    assert_eq!(texts(&complete(body)), vec![r.decode(&ids)]);
    let distinct = |ids: &[u32]| ids.iter().collect::<std::collections::HashSet<_>>().len();
    let plain = r.greedy(&r.encode(PROMPT, true), 20, true);
    assert!(distinct(&ids) >= distinct(&plain), "penalties should not reduce variety");
}

#[test]
fn f32_weights_serve_the_engine_f32_output() {
    let mut cfg = config();
    cfg.models[0].format = gerbil::config::WeightKind::F32;
    let server = start(cfg);
    let r = Reference::load(gerbil::weights::WeightFormat::F32);
    let want = r.greedy_text(PROMPT, 20);
    let (status, v) =
        server.post("/v1/completions", &json!({"model": MODEL, "prompt": PROMPT, "max_tokens": 20, "temperature": 0}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(texts(&v), vec![want]);
}
