//! Shared helpers for the HTTP tests: start the real server (same code path as
//! `gerbil serve`) on 127.0.0.1 with a random port and the tiny qwen3 fixture,
//! talk to it with a real HTTP client, parse SSE, read /metrics, and compute
//! the engine's own greedy output (`Session::generate`) as the reference.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use gerbil::config::{ModelSpec, ServeConfig, WeightKind};
use gerbil::executor::Executor;
use gerbil::gpu::GpuOptions;
use gerbil::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use gerbil::text::TextTokenizer;
use gerbil::weights::WeightFormat;
use serde_json::Value;

pub const MODEL: &str = "qwen3";
/// The fixture prompt (its 14 tokens are in the fixture's meta.json).
pub const PROMPT: &str = "The old fisherman walks down to the quiet river and";
/// The fixture model's context (max_position_embeddings).
pub const CONTEXT: usize = 256;

pub fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(MODEL)
}

/// Test defaults: the fixture as "qwen3" (INT4, the production path), small limits.
pub fn config() -> ServeConfig {
    let mut cfg = ServeConfig::defaults().expect("built-in config");
    cfg.listen = "127.0.0.1:0".parse().expect("address");
    let mut spec = ModelSpec::from_source(&fixture().to_string_lossy());
    spec.name = Some(MODEL.into());
    spec.format = WeightKind::Int4;
    cfg.models = vec![spec];
    // Voices and transcription models are loaded only by the speech tests (tests/http_speech.rs,
    // http_transcriptions.rs); the built-in defaults would download them.
    cfg.voices = vec![];
    cfg.stt_models = vec![];
    cfg.limits.max_slots = 4;
    cfg.limits.max_tokens = 200;
    cfg.limits.request_timeout_s = 120;
    cfg
}

/// `config()` serving a copy of the fixture with a 2048-token context: its 384-token vocabulary
/// spends ~750 tokens on a tool-calling system prompt, past the 256 positions its config.json
/// declares. Rope has no table to outgrow, so only that number changes.
pub fn long_context_config() -> ServeConfig {
    let dir = std::env::temp_dir().join(format!("gerbil-long-fixture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for entry in std::fs::read_dir(fixture()).expect("fixture") {
        let path = entry.expect("fixture entry").path();
        std::fs::copy(&path, dir.join(path.file_name().expect("name"))).expect("copy");
    }
    let text = std::fs::read_to_string(dir.join("config.json")).expect("config.json");
    let mut declared: Value = serde_json::from_str(&text).expect("config.json parses");
    declared["max_position_embeddings"] = 2048.into();
    std::fs::write(dir.join("config.json"), declared.to_string()).expect("write config.json");
    let mut cfg = config();
    let mut spec = ModelSpec::from_source(&dir.to_string_lossy());
    spec.name = Some(MODEL.into());
    spec.format = WeightKind::Int4;
    cfg.models = vec![spec];
    cfg
}

pub struct TestServer {
    pub addr: SocketAddr,
    pub base: String,
}

/// Starts a server on its own runtime thread and waits until /ready.
pub fn start(cfg: ServeConfig) -> TestServer {
    start_with(cfg, false)
}

/// `start`, for a configuration where some models are meant to fail their load.
#[allow(dead_code)]
pub fn start_allowing_failures(cfg: ServeConfig) -> TestServer {
    start_with(cfg, true)
}

fn start_with(cfg: ServeConfig, failures_allowed: bool) -> TestServer {
    std::fs::create_dir_all("/tmp/xdg").ok();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        rt.block_on(async move {
            let server = gerbil::server::start(cfg).await.expect("server starts");
            let registry = server.worker.wait_loaded().await.expect("worker alive");
            assert!(failures_allowed || registry.failures.is_empty(), "load failures: {:?}", registry.failures);
            tx.send(server.addr).expect("test waits");
            server.wait().await;
        });
    });
    let addr = rx.recv_timeout(Duration::from_secs(120)).expect("server ready within 120 s");
    TestServer { addr, base: format!("http://{addr}") }
}

/// Panics (the suites fail, they do not skip) unless python3 imports every one of `modules`
/// (comma-separated, as in an `import` line).
pub fn require_python_modules(modules: &str) {
    match std::process::Command::new("python3").args(["-c", &format!("import {modules}")]).output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "python3 lacks the HTTP test packages: pip install -r tests/http/requirements.txt\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("python3 is needed for the Python test suites: {e}"),
    }
}

/// One default server per test binary.
pub fn shared() -> &'static TestServer {
    static S: OnceLock<TestServer> = OnceLock::new();
    S.get_or_init(|| start(config()))
}

pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder().timeout(Duration::from_secs(120)).build().expect("client")
}

impl TestServer {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// POST JSON; returns the status and the parsed body.
    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let r = client().post(self.url(path)).json(body).send().expect("request");
        let status = r.status().as_u16();
        let text = r.text().expect("body");
        (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("non-JSON body ({e}): {text}")))
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        let r = client().get(self.url(path)).send().expect("request");
        (r.status().as_u16(), r.text().expect("body"))
    }

    /// POST with stream: true; every `data:` payload in order ("[DONE]" as a string).
    pub fn stream(&self, path: &str, body: &Value) -> Vec<Value> {
        let r = client().post(self.url(path)).json(body).send().expect("request");
        assert_eq!(r.status().as_u16(), 200, "stream status");
        let ct = r.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        assert!(ct.starts_with("text/event-stream"), "content-type {ct}");
        sse_payloads(BufReader::new(r))
    }

    /// A metric's value from /metrics (the sum over series whose labels contain all `labels`).
    pub fn metric(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let (_, text) = self.get("/metrics");
        metric_value(&text, name, labels)
    }

    /// Polls until `cond` holds, or panics after `secs`.
    pub fn wait_for(&self, what: &str, secs: u64, mut cond: impl FnMut(&Self) -> bool) {
        let t0 = Instant::now();
        while !cond(self) {
            assert!(t0.elapsed() < Duration::from_secs(secs), "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

pub fn sse_payloads(reader: impl BufRead) -> Vec<Value> {
    let mut out = Vec::new();
    for line in reader.lines() {
        let line = line.expect("stream line");
        if let Some(data) = line.strip_prefix("data: ") {
            out.push(if data == "[DONE]" {
                Value::String(data.into())
            } else {
                serde_json::from_str(data).expect("JSON chunk")
            });
        }
    }
    out
}

pub fn metric_value(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.split(['{', ' ']).next() == Some(name))
        .filter(|l| labels.iter().all(|(k, v)| l.contains(&format!("{k}=\"{v}\""))))
        .filter_map(|l| l.rsplit(' ').next().and_then(|v| v.parse::<f64>().ok()))
        .sum()
}

/// Opens a raw connection and sends a POST (to disconnect mid-response at will).
pub fn raw_post(addr: SocketAddr, path: &str, body: &Value) -> TcpStream {
    let body = body.to_string();
    let mut s = TcpStream::connect(addr).expect("connect");
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    s
}

/// Reads from a raw connection until `needle` was seen (or panics after 60 s).
pub fn read_until(s: &mut TcpStream, needle: &str) -> String {
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let mut seen = String::new();
    let mut buf = [0u8; 4096];
    while !seen.contains(needle) {
        let n = s.read(&mut buf).expect("read");
        assert!(n > 0, "connection closed before {needle:?}: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    seen
}

/// The fixture loaded directly through the engine, for reference outputs.
pub struct Reference {
    pub model: TextModel,
}

impl Reference {
    /// The fixture with INT4 weights and the default KV cache, as the test servers load it.
    pub fn get() -> &'static Reference {
        static R: OnceLock<Reference> = OnceLock::new();
        R.get_or_init(|| Reference::load(WeightFormat::Int4 { group: 32 }))
    }

    pub fn load(format: WeightFormat) -> Reference {
        static EXEC: OnceLock<Executor> = OnceLock::new();
        let exec = EXEC.get_or_init(|| Executor::new(&GpuOptions::default()).expect("GPU adapter"));
        // The server's default KV cache (a model table's kv_dtype).
        let kv_dtype = ModelSpec::from_source("").kv_dtype;
        let opts = LoadOptions { format, max_context: CONTEXT, kv_dtype, ..Default::default() };
        Reference { model: TextModel::load(exec, &fixture(), opts).expect("fixture loads") }
    }

    pub fn tokenizer(&self) -> &TextTokenizer {
        self.model.tokenizer.as_ref().expect("fixture tokenizer")
    }

    /// `Session::generate`'s greedy tokens, cut at the first eos unless `ignore_eos`.
    pub fn greedy(&self, prompt: &[u32], max_new: usize, ignore_eos: bool) -> Vec<u32> {
        let mut s = Session::new(&self.model, SessionOptions::default()).expect("session");
        let mut ids = s.generate(prompt, max_new, |_| true).expect("generate");
        if !ignore_eos {
            if let Some(p) = ids.iter().position(|&t| self.tokenizer().is_eos(t)) {
                ids.truncate(p);
            }
        }
        ids
    }

    pub fn encode(&self, text: &str, special: bool) -> Vec<u32> {
        self.tokenizer().encode(text, special).expect("encode")
    }

    pub fn decode(&self, ids: &[u32]) -> String {
        self.tokenizer().decode(ids).expect("decode")
    }

    /// One token as logprobs list it (special tokens included; a partial character as escaped bytes).
    pub fn token(&self, id: u32) -> String {
        self.tokenizer().token_bytes(id).expect("token bytes").0
    }

    /// Greedy text the server should return for `prompt` (completions endpoint).
    pub fn greedy_text(&self, prompt: &str, max_new: usize) -> String {
        self.decode(&self.greedy(&self.encode(prompt, true), max_new, false))
    }
}

/// The text of each choice, from a non-streamed completion.
pub fn texts(body: &Value) -> Vec<String> {
    let mut choices: Vec<&Value> = body["choices"].as_array().expect("choices").iter().collect();
    choices.sort_by_key(|c| c["index"].as_u64());
    choices.iter().map(|c| c["text"].as_str().or(c["message"]["content"].as_str()).expect("text").to_string()).collect()
}

/// Concatenates streamed deltas per choice index; also returns finish reasons.
pub fn stream_texts(chunks: &[Value]) -> (Vec<String>, Vec<String>) {
    let mut texts: Vec<String> = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    for c in chunks.iter().filter(|c| c.is_object()) {
        for ch in c["choices"].as_array().expect("choices") {
            let i = ch["index"].as_u64().expect("index") as usize;
            if texts.len() <= i {
                texts.resize(i + 1, String::new());
                reasons.resize(i + 1, String::new());
            }
            let piece = ch["text"].as_str().or(ch["delta"]["content"].as_str()).unwrap_or_default();
            texts[i].push_str(piece);
            if let Some(r) = ch["finish_reason"].as_str() {
                reasons[i] = r.to_string();
            }
        }
    }
    (texts, reasons)
}

/// This process's resident memory (VmRSS), KiB.
#[allow(dead_code)]
pub fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("VmRSS in kB")
}
