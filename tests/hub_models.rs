//! Text models named on the Hugging Face hub (`weights::sources::resolve_model`): `owner/repo:QUANT`
//! picks that GGUF file from the repo's listing, `owner/repo` a GGUF repo's default (Q4_K_M),
//! `owner/repo/FILE.gguf` that file, `@revision` pins a branch, tag or commit; files land in the
//! Hugging Face cache under HF_HOME (the Python tools' cache) and are found there offline without a
//! request. Against a stand-in hub on loopback that answers as huggingface.co does (the listing
//! API, `resolve/` with ETag, X-Repo-Commit and ranges), since CI cannot reach the real one.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use gerbil::weights::hub::HubOptions;
use gerbil::weights::sources::resolve_model;

/// A revision's commit, and its files with their bytes.
type Snapshot = (&'static str, Vec<(&'static str, &'static [u8])>);
/// Revision name -> snapshot, of the one repo the stand-in serves.
type Revisions = HashMap<&'static str, Snapshot>;

const REPO: &str = "acme/tiny-GGUF";
const MAIN: &str = "1111111111111111111111111111111111111111";
const V1: &str = "2222222222222222222222222222222222222222";

#[derive(Clone)]
struct Hub {
    revisions: Arc<Revisions>,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Hub {
    /// A revision by its name or its commit, as the hub resolves them.
    fn revision(&self, rev: &str) -> Option<&Snapshot> {
        self.revisions.get(rev).or_else(|| self.revisions.values().find(|(sha, _)| *sha == rev))
    }
}

async fn serve(State(hub): State<Hub>, req: Request) -> Response {
    let path = req.uri().path().to_string();
    hub.requests.lock().unwrap().push(path.clone());
    let rest = |prefix: &str| path.strip_prefix(&format!("{prefix}{REPO}")).map(String::from);
    // The listing: /api/models/OWNER/REPO/revision/REV
    if let Some(rev) = rest("/api/models/").and_then(|r| r.strip_prefix("/revision/").map(String::from)) {
        return match hub.revision(&rev) {
            Some((sha, files)) => {
                let siblings: Vec<_> = files.iter().map(|(f, _)| serde_json::json!({ "rfilename": f })).collect();
                axum::Json(serde_json::json!({ "sha": sha, "siblings": siblings })).into_response()
            }
            None => StatusCode::NOT_FOUND.into_response(),
        };
    }
    // A file: /OWNER/REPO/resolve/REV/PATH, read from the byte the Range header names.
    let Some(tail) = rest("/").and_then(|r| r.strip_prefix("/resolve/").map(String::from)) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let Some((rev, file)) = tail.split_once('/') else { return StatusCode::NOT_FOUND.into_response() };
    let Some((sha, files)) = hub.revision(rev) else { return StatusCode::NOT_FOUND.into_response() };
    let Some((_, bytes)) = files.iter().find(|(f, _)| *f == file) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let from = range_start(req.headers());
    // hf-hub asks for byte 0 first (the metadata: ETag, commit, size), then for the rest.
    let end = if req.headers().get(header::RANGE).is_some_and(|r| r == "bytes=0-0") { 1 } else { bytes.len() };
    let mut headers = HeaderMap::new();
    headers.insert(header::ETAG, format!("\"{:016x}\"", fnv(bytes)).parse().unwrap());
    headers.insert("x-repo-commit", sha.parse().unwrap());
    headers.insert(header::CONTENT_RANGE, format!("bytes {from}-{}/{}", end - 1, bytes.len()).parse().unwrap());
    (StatusCode::PARTIAL_CONTENT, headers, bytes[from..end].to_vec()).into_response()
}

/// A content hash for the ETag (blobs are stored by it).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

fn range_start(headers: &HeaderMap) -> usize {
    headers
        .get(header::RANGE)
        .and_then(|r| r.to_str().ok())
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.split('-').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn start_hub(revisions: Revisions) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let hub = Hub { revisions: Arc::new(revisions), requests: Arc::default() };
    let requests = hub.requests.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let app = axum::Router::new().fallback(serve).with_state(hub);
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    (format!("http://{addr}"), requests)
}

fn read(path: &PathBuf) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn gguf_files_are_picked_pinned_cached_and_found_offline() {
    let mut revisions = Revisions::new();
    let main_files: Vec<(&str, &[u8])> = vec![
        ("README.md", b"# tiny"),
        ("tiny-Q4_K_M.gguf", b"GGUF main Q4_K_M"),
        ("tiny-Q8_0.gguf", b"GGUF main Q8_0, a little longer"),
        ("mmproj-tiny-F16.gguf", b"GGUF projector"),
    ];
    revisions.insert("main", (MAIN, main_files));
    revisions.insert("v1", (V1, vec![("tiny-Q4_K_M.gguf", b"GGUF v1 Q4_K_M" as &[u8])]));
    let (endpoint, requests) = start_hub(revisions);
    let home = std::env::temp_dir().join(format!("gerbil-hub-models-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    // The only test in this binary: nothing else reads the environment meanwhile.
    std::env::set_var("HF_ENDPOINT", &endpoint);
    std::env::set_var("HF_HOME", &home);
    let online = HubOptions { cache_dir: home.join("gerbil"), ..Default::default() };
    let offline = HubOptions { offline: true, ..online.clone() };

    let got = |spec: &str, opts: &HubOptions| resolve_model(spec, opts).map(|p| read(&p));
    assert_eq!(got("acme/tiny-GGUF:q8_0", &online).unwrap(), b"GGUF main Q8_0, a little longer");
    assert_eq!(got("acme/tiny-GGUF", &online).unwrap(), b"GGUF main Q4_K_M", "the default quantization");
    assert_eq!(got("acme/tiny-GGUF@v1:Q4_K_M", &online).unwrap(), b"GGUF v1 Q4_K_M", "pinned to a tag");
    assert_eq!(
        got(&format!("acme/tiny-GGUF@{MAIN}/tiny-Q8_0.gguf"), &online).unwrap(),
        b"GGUF main Q8_0, a little longer"
    );
    // Where the files are: the hub cache layout the Python tools share.
    let snapshot = home.join("hub/models--acme--tiny-GGUF/snapshots");
    assert_eq!(read(&snapshot.join(V1).join("tiny-Q4_K_M.gguf")), b"GGUF v1 Q4_K_M");
    assert_eq!(read(&snapshot.join(MAIN).join("tiny-Q8_0.gguf")), b"GGUF main Q8_0, a little longer");

    let err = resolve_model("acme/tiny-GGUF:Q5_K_S", &online).unwrap_err().to_string();
    assert!(err.contains("has no Q5_K_S GGUF; it has: Q4_K_M, Q8_0"), "{err}");
    let err = resolve_model("acme/tiny-GGUF@v2:Q4_K_M", &online).unwrap_err().to_string();
    assert!(err.contains("could not fetch 'acme/tiny-GGUF@v2:Q4_K_M'"), "{err}");
    let err = resolve_model("acme/tiny-GGUF/README.md", &online).unwrap_err().to_string();
    assert!(err.contains("neither an existing path nor a model on the Hugging Face hub"), "{err}");

    // Offline: what was fetched is found in the cache, without a request; what was not is an error.
    let before = requests.lock().unwrap().len();
    assert_eq!(got("acme/tiny-GGUF:Q8_0", &offline).unwrap(), b"GGUF main Q8_0, a little longer");
    assert_eq!(got("acme/tiny-GGUF", &offline).unwrap(), b"GGUF main Q4_K_M");
    assert_eq!(got("acme/tiny-GGUF@v1:q4_k_m", &offline).unwrap(), b"GGUF v1 Q4_K_M");
    assert_eq!(got("acme/tiny-GGUF@v1/tiny-Q4_K_M.gguf", &offline).unwrap(), b"GGUF v1 Q4_K_M");
    let err = resolve_model("acme/tiny-GGUF@v1:Q8_0", &offline).unwrap_err().to_string();
    assert!(err.contains("HF_HUB_OFFLINE") && err.contains("has no Q8_0 GGUF; it has: Q4_K_M"), "{err}");
    assert_eq!(requests.lock().unwrap().len(), before, "offline makes no request");
    let _ = std::fs::remove_dir_all(&home);
}
