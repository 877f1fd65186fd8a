//! The axum application: the router with its tower layers, and starting / stopping the
//! server together with the GPU worker. The state the handlers share is state.rs's.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::oneshot;
use tower_http::compression::CompressionLayer;
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use super::auth::{require_api_key, ApiKey};
use super::deadline::body_deadline;
use super::error::{not_found, openai_error_shape};
use super::listen::{serve, ListenOptions};
use super::routes;
use crate::config::{Limits, ServeConfig};
use crate::worker::{Metrics, WorkerHandle};

pub use super::state::{AppState, ModelRef};

/// How long the timeout layer lets a request run before answering 408. The
/// handlers enforce the configured request timeout themselves (so they can
/// cancel the sequences and, mid-stream, send an error event); this is the
/// backstop for anything else that hangs, such as a slow request body.
fn backstop(limits: &Limits) -> Duration {
    limits.request_timeout() + Duration::from_secs(5)
}

pub fn router(state: Arc<AppState>, cfg: &ServeConfig) -> Router {
    let mut v1 = Router::new()
        .route("/v1/completions", post(routes::completions::handle))
        .route("/v1/chat/completions", post(routes::chat_completions::handle))
        .route("/v1/embeddings", post(routes::embeddings::handle))
        .route("/v1/models", get(routes::models::list))
        .route("/v1/audio/speech", post(routes::speech::handle))
        .route("/v1/audio/voices", get(routes::voices::list))
        .route("/v1/models/{*id}", get(routes::models::retrieve))
        .route("/tokenize", post(routes::tokenize::tokenize))
        .route("/detokenize", post(routes::tokenize::detokenize))
        .route_layer(RequestBodyLimitLayer::new(cfg.limits.body_limit_bytes))
        // Audio uploads get their own, larger body limit (route_layer above covers only the routes before it).
        .route(
            "/v1/audio/transcriptions",
            post(routes::transcriptions::handle)
                .layer(RequestBodyLimitLayer::new(cfg.limits.max_audio_bytes + MULTIPART_OVERHEAD)),
        );
    if let Some(key) = &cfg.api_key {
        v1 = v1.route_layer(middleware::from_fn_with_state(Arc::new(ApiKey::new(key.expose())), require_api_key));
    }
    let metrics = state.worker.metrics().clone();
    let app = Router::new()
        .merge(v1)
        .route("/health", get(routes::health::handle))
        .route("/ready", get(routes::ready::handle))
        .route("/metrics", get(routes::metrics::handle))
        .route("/openapi.yaml", get(routes::openapi::handle))
        .fallback(not_found)
        .with_state(state);
    // Each layer wraps the ones before it: the last is the outermost. The
    // error-shape rewrite sits outside the body limit and the timeout so their
    // bare 413 / 408 answers get OpenAI's error body. Compression skips
    // text/event-stream by default.
    let body_read_timeout = cfg.limits.body_read_timeout();
    let app = app
        .layer(middleware::from_fn(move |req: Request, next: Next| body_deadline(body_read_timeout, req, next)))
        .layer(DefaultBodyLimit::disable())
        .layer(RequestBodyLimitLayer::new(json_limit(&cfg.limits)))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, backstop(&cfg.limits)))
        .layer(middleware::from_fn_with_state(metrics, track_requests))
        .layer(middleware::from_fn(openai_error_shape))
        .layer(CompressionLayer::new());
    let app = match cors(&cfg.cors_origins) {
        Some(c) => app.layer(c),
        None => app,
    };
    app.layer(TraceLayer::new_for_http())
}

/// Room for the multipart framing and the small form fields next to an audio file.
const MULTIPART_OVERHEAD: usize = 64 * 1024;

/// The outer body limit: the JSON limit, except that audio uploads (whose
/// route applies its own limit) must get through it.
fn json_limit(l: &Limits) -> usize {
    l.body_limit_bytes.max(l.max_audio_bytes + MULTIPART_OVERHEAD)
}

fn cors(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        // ServeConfig::validate refused every origin that is not a valid header value.
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
            // Whatever the preflight asks for: the OpenAI SDKs send their own x-stainless-* headers,
            // and a `*` would not cover Authorization.
            .allow_headers(AllowHeaders::mirror_request()),
    )
}

async fn track_requests(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    let route = req.extensions().get::<MatchedPath>().map_or("unmatched", |p| p.as_str()).to_string();
    let t0 = Instant::now();
    let res = next.run(req).await;
    metrics.http_requests.with_label_values(&[&route, res.status().as_str()]).inc();
    metrics.http_duration.with_label_values(&[&route]).observe(t0.elapsed().as_secs_f64());
    res
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("cannot start the GPU worker thread: {0}")]
    Worker(std::io::Error),
}

/// A running server: its bound address, the worker handle, and a way to stop.
pub struct Server {
    pub addr: SocketAddr,
    pub worker: WorkerHandle,
    shutdown: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Binds `cfg.listen`, starts the worker (which loads the models in the
/// background; /ready turns 200 when done) and serves until `shutdown`.
pub async fn start(cfg: ServeConfig) -> Result<Server, StartError> {
    let listener = tokio::net::TcpListener::bind(cfg.listen)
        .await
        .map_err(|source| StartError::Bind { addr: cfg.listen, source })?;
    let addr = listener.local_addr().map_err(|source| StartError::Bind { addr: cfg.listen, source })?;
    // Piper's phonemes are made at the edge; espeak-ng's data goes under the configured cache.
    crate::speech::espeak::set_data_root(cfg.hub.cache_dir.clone());
    let cfg = Arc::new(cfg);
    let metrics = Arc::new(Metrics::new());
    let (worker, thread) = crate::worker::run::spawn(cfg.clone(), metrics).map_err(StartError::Worker)?;
    let state = Arc::new(AppState { worker: worker.clone(), limits: cfg.limits.clone() });
    let app = router(state, &cfg);
    let (tx, rx) = oneshot::channel::<()>();
    let opts =
        ListenOptions { header_read_timeout: cfg.limits.header_read_timeout(), grace: cfg.limits.shutdown_grace() };
    let task = tokio::spawn(serve(listener, app, opts, async move {
        let _ = rx.await;
    }));
    tracing::info!("listening on http://{addr}");
    Ok(Server { addr, worker, shutdown: Some(tx), task, thread: Some(thread) })
}

impl Server {
    /// Stops accepting connections, lets open ones finish (up to limits.shutdown_grace_s), then
    /// stops the worker.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.wait().await;
    }

    /// Serves until the server stops (after `shutdown` or an I/O error).
    pub async fn wait(mut self) {
        if let Err(e) = (&mut self.task).await {
            tracing::error!("server task failed: {e}");
        }
        let thread = self.thread.take();
        // The worker exits once the last handle is gone.
        drop(self);
        if let Some(t) = thread {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
    }
}
