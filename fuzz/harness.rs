//! What each fuzz target does with its input, shared by the cargo-fuzz targets (fuzz_targets/) and
//! by tests/fuzz_corpus.rs, which replays the committed corpus on stable Rust in the test suite.
//! Every function takes any bytes; a panic, a hang or a 500 is a bug. Errors are the expected
//! answer to most inputs and are not checked beyond "an error, not a crash".

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;

/// The targets, by name: `run(name, data)` dispatches on these.
#[allow(dead_code)]
pub const TARGETS: &[&str] = &[
    "audio_wav",
    "audio_mp3",
    "audio_flac",
    "audio_ogg",
    "audio_webm",
    "audio_m4a",
    "multipart",
    "http_json",
    "speech_text",
    "safetensors",
    "gguf_parse",
];

/// Under libFuzzer: puts back Rust's default panic hook. libfuzzer-sys installs one that aborts at
/// any panic, even one the product catches (the upload decoder's net under symphonia, whose
/// catch turns a decoder panic into a 400); a panic that escapes still aborts, through
/// libfuzzer-sys's own catch around the target.
#[allow(dead_code)]
pub fn init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| drop(std::panic::take_hook()));
}

pub fn run(target: &str, data: &[u8]) {
    match target {
        "audio_wav" => audio(data, "wav"),
        "audio_mp3" => audio(data, "mp3"),
        "audio_flac" => audio(data, "flac"),
        "audio_ogg" => audio(data, "ogg"),
        "audio_webm" => audio(data, "webm"),
        "audio_m4a" => audio(data, "m4a"),
        "multipart" => multipart(data),
        "http_json" => http_json(data),
        "speech_text" => speech_text(data),
        "safetensors" => safetensors(data),
        "gguf_parse" => gguf(data),
        other => panic!("no fuzz target {other}"),
    }
}

/// An upload through the decoder and the resampler, as the transcription route runs them: a
/// result is finite 16 kHz audio within the length limit.
fn audio(data: &[u8], ext: &str) {
    if let Ok(pcm) = gerbil::audio::load_16k(data.to_vec(), Some(ext)) {
        assert!(pcm.iter().all(|s| s.is_finite()), "non-finite samples from a decoded upload");
        let limit = gerbil::audio::decode::MAX_SECONDS * gerbil::audio::MODEL_RATE as usize;
        assert!(pcm.len() <= limit + gerbil::audio::MODEL_RATE as usize, "{} samples past the limit", pcm.len());
    }
}

/// The repository (for the fixtures): the working directory or its parent (fuzz/), else where this
/// was built.
fn repo_root() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [cwd.clone(), cwd.join(".."), built.clone(), built.join("..")]
        .into_iter()
        .find(|d| d.join("tests/fixtures/qwen3").exists())
        .expect("run from the repository or its fuzz/ folder")
}

/// The fixture model, a transcription model and a Piper voice as the HTTP layer sees them, over a
/// worker handle with no worker (submits answer 503): every request is parsed and validated
/// exactly as by a server, without a GPU.
fn app() -> &'static (tokio::runtime::Runtime, axum::Router) {
    static APP: OnceLock<(tokio::runtime::Runtime, axum::Router)> = OnceLock::new();
    APP.get_or_init(|| {
        use gerbil::worker::registry::{chat_template_for, ModelEntry, Registry, SpeechEntry, VoiceEntry};
        let root = repo_root();
        let dir = root.join("tests/fixtures/qwen3");
        let tokenizer = Arc::new(gerbil::text::TextTokenizer::from_dir(&dir, &[]).expect("fixture tokenizer"));
        let chat = chat_template_for(&tokenizer, &dir);
        let model = ModelEntry {
            id: "qwen3".into(),
            index: 0,
            vocab: tokenizer.vocab_size(),
            max_context: 256,
            slots: 4,
            tokenizer,
            chat,
            created: 0,
            grammar: Default::default(),
        };
        let map = std::fs::read_to_string(root.join("tests/fixtures/piper/phoneme_id_map.json")).expect("phoneme map");
        let front_end = gerbil::models::piper::voice::PiperFrontEnd::new(
            "en-us".into(),
            serde_json::from_str(&map).expect("phoneme map parses"),
        );
        let info = gerbil::models::voice::VoiceInfo {
            sample_rate: 22050,
            variable_speed: true,
            language: Some("en-us".into()),
            front_end: Arc::new(front_end),
        };
        let cfg = gerbil::config::ServeConfig::defaults().expect("built-in config");
        let embed_dir = root.join("tests/fixtures/qwen3_embed");
        let embed_tokenizer =
            Arc::new(gerbil::text::TextTokenizer::from_dir(&embed_dir, &[]).expect("embedding fixture tokenizer"));
        let embedder = gerbil::worker::EmbedEntry {
            id: "embed".into(),
            index: 0,
            vocab: embed_tokenizer.vocab_size(),
            tokenizer: embed_tokenizer,
            dims: 64,
            max_tokens: 256,
            matryoshka: Some(vec![]),
            normalize: true,
            created: 0,
        };
        let registry = Registry {
            models: vec![model],
            embedders: vec![embedder],
            speech: vec![SpeechEntry {
                id: "whisper-tiny.en".into(),
                index: 0,
                languages: vec!["en".into()],
                words: true,
                created: 0,
            }],
            voices: vec![VoiceEntry { name: "joe".into(), index: 0, info }],
            failures: vec![],
            openai: cfg.openai.clone(),
            device: None,
        };
        let metrics = Arc::new(gerbil::worker::Metrics::new());
        let worker = gerbil::worker::WorkerHandle::detached(registry, metrics, cfg.limits.max_queue);
        let state = Arc::new(gerbil::server::state::AppState { worker, limits: cfg.limits.clone() });
        let router = gerbil::server::app::router(state, &cfg);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        (rt, router)
    })
}

/// Sends one request through the router and reads the whole answer: never a 500.
fn send(req: Request<Body>) {
    let (rt, router) = app();
    let status = rt.block_on(async {
        let res = router.clone().oneshot(req).await.expect("the router is infallible");
        let status = res.status();
        let _ = axum::body::to_bytes(res.into_body(), usize::MAX).await;
        status
    });
    assert_ne!(status, StatusCode::INTERNAL_SERVER_ERROR, "a 500 for a request");
}

/// The JSON routes; the first byte picks one, the rest is the body.
const JSON_ROUTES: &[&str] =
    &["/v1/completions", "/v1/chat/completions", "/v1/audio/speech", "/tokenize", "/detokenize", "/v1/embeddings"];

fn http_json(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else { return };
    let route = JSON_ROUTES[pick as usize % JSON_ROUTES.len()];
    let req = Request::post(route).header("content-type", "application/json").body(Body::from(body.to_vec()));
    send(req.expect("request"));
}

/// The boundary the multipart seeds are written with.
pub const BOUNDARY: &str = "gerbilfuzzboundary";

/// A transcription upload: `data` is the multipart/form-data body.
fn multipart(data: &[u8]) {
    let req = Request::post("/v1/audio/transcriptions")
        .header("content-type", format!("multipart/form-data; boundary={BOUNDARY}"))
        .body(Body::from(data.to_vec()));
    send(req.expect("request"));
}

/// Speech input through the Piper front end (sentence split, espeak-ng, phoneme ids), as the
/// speech route runs it: any text gives units (maybe none) or an error, never a crash.
fn speech_text(data: &[u8]) {
    use gerbil::models::voice::FrontEnd;
    static FRONT: OnceLock<gerbil::models::piper::voice::PiperFrontEnd> = OnceLock::new();
    let front = FRONT.get_or_init(|| {
        let map =
            std::fs::read_to_string(repo_root().join("tests/fixtures/piper/phoneme_id_map.json")).expect("phoneme map");
        gerbil::models::piper::voice::PiperFrontEnd::new("en-us".into(), serde_json::from_str(&map).expect("map"))
    });
    let text = String::from_utf8_lossy(data);
    // The route takes at most 4096 characters.
    let text: String = text.chars().take(4096).collect();
    let _ = front.units(&text);
}

/// A safetensors file opened as a checkpoint, every tensor read as f32.
fn safetensors(data: &[u8]) {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("gerbil-fuzz-safetensors-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    });
    std::fs::write(dir.join("model.safetensors"), data).expect("write");
    let Ok(ck) = gerbil::weights::safetensors::Checkpoint::open(dir) else { return };
    let names: Vec<String> = ck.names().map(String::from).collect();
    for n in &names {
        if let Ok(shape) = ck.shape(n) {
            // Only tensors a loader could hold: the product reads whole tensors into memory.
            if shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).is_some_and(|n| n <= 1 << 20) {
                let _ = ck.f32(n, &shape);
            }
        }
    }
}

/// The GGUF reader and everything reachable from a parsed file: tensor data, dequantization and
/// INT4 repacking, metadata accessors, hyper-parameters, the tokenizer.
fn gguf(data: &[u8]) {
    use gerbil::gguf::GgufFile;
    let Ok(f) = GgufFile::from_bytes("fuzz", data.to_vec()) else { return };
    let names: Vec<String> = f.tensor_infos().iter().map(|t| t.name.clone()).collect();
    for n in &names {
        let _ = f.tensor_data(n);
        let _ = f.tensor_f32(n);
        if let Ok(Some(g)) = f.tensor_int4(n) {
            let _ = g.dequantize();
        }
    }
    let md = f.metadata();
    for (k, _) in md.entries() {
        let _ = md.get_u32(k);
        let _ = md.get_i64(k);
        let _ = md.get_f32(k);
        let _ = md.get_bool(k);
        let _ = md.get_str(k);
        let _ = md.get_str_array(k);
        let _ = md.get_int_array(k);
        let _ = md.get_f32_array(k);
    }
    let _ = f.llama_params();
    if let Ok(t) = f.tokenizer() {
        if let Ok(enc) = t.tokenizer.encode("Hello world 123 <|im_end|>\n", true) {
            let _ = t.tokenizer.decode(enc.get_ids(), false);
        }
    }
}
