//! Every error the HTTP layer can answer with, and THE table mapping each to
//! an HTTP status and OpenAI's error body
//! `{"error": {"message", "type", "param", "code"}}`. Streamed errors (SSE
//! error events) use the same body, so a client sees one shape everywhere.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::worker::msg::WorkerError;
use crate::worker::SubmitError;

#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// A field failed validation; `param` names it (dotted path for nested ones).
    #[error("{message}")]
    InvalidRequest { message: String, param: Option<String> },
    #[error("{0}")]
    Unauthorized(&'static str),
    #[error("The model `{0}` does not exist or is not loaded")]
    ModelNotFound(String),
    #[error("{0}")]
    NotFound(String),
    #[error("method not allowed on this route")]
    MethodNotAllowed,
    #[error("the request body is larger than the server accepts")]
    PayloadTooLarge,
    #[error("the request took longer than the server's request timeout")]
    Timeout,
    /// The request body did not arrive in time (limits.body_read_timeout_s).
    #[error("{0}")]
    BodyTimeout(String),
    #[error("{0}")]
    QueueFull(String),
    #[error("the inference worker is not running")]
    WorkerGone,
    #[error("models are still loading; retry when /ready answers 200")]
    NotReady,
    #[error("{0}")]
    DeviceLost(String),
    #[error("{0}")]
    Internal(String),
    /// A client error answered outside our handlers (an extractor's rejection: 415, 414, 400 for
    /// a bad path segment...), keeping its status.
    #[error("{message}")]
    Rejected { status: StatusCode, message: String },
}

/// The columns of the table: status, OpenAI error `type`, `code`.
struct Row {
    status: StatusCode,
    kind: &'static str,
    code: Option<&'static str>,
}

impl ApiError {
    pub fn invalid(param: &str, message: impl Into<String>) -> Self {
        ApiError::InvalidRequest { message: message.into(), param: Some(param.to_string()) }
    }

    fn row(&self) -> Row {
        use ApiError::*;
        let (status, kind, code) = match self {
            InvalidRequest { .. } => (StatusCode::BAD_REQUEST, "invalid_request_error", None),
            Unauthorized(_) => (StatusCode::UNAUTHORIZED, "invalid_request_error", Some("invalid_api_key")),
            ModelNotFound(_) => (StatusCode::NOT_FOUND, "invalid_request_error", Some("model_not_found")),
            NotFound(_) => (StatusCode::NOT_FOUND, "invalid_request_error", Some("not_found")),
            MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "invalid_request_error", Some("method_not_allowed")),
            PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "invalid_request_error", Some("payload_too_large")),
            Timeout => (StatusCode::REQUEST_TIMEOUT, "timeout_error", Some("request_timeout")),
            BodyTimeout(_) => (StatusCode::REQUEST_TIMEOUT, "timeout_error", Some("body_read_timeout")),
            QueueFull(_) => (StatusCode::TOO_MANY_REQUESTS, "rate_limit_error", Some("queue_full")),
            WorkerGone => (StatusCode::SERVICE_UNAVAILABLE, "server_error", Some("worker_unavailable")),
            NotReady => (StatusCode::SERVICE_UNAVAILABLE, "server_error", Some("model_loading")),
            DeviceLost(_) => (StatusCode::SERVICE_UNAVAILABLE, "server_error", Some("device_lost")),
            Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "server_error", None),
            Rejected { status, .. } => (*status, "invalid_request_error", None),
        };
        Row { status, kind, code }
    }

    pub fn status(&self) -> StatusCode {
        self.row().status
    }

    fn param(&self) -> Option<&str> {
        match self {
            ApiError::InvalidRequest { param, .. } => param.as_deref(),
            ApiError::ModelNotFound(_) => Some("model"),
            _ => None,
        }
    }

    /// OpenAI's error body; also the payload of a streamed error event.
    pub fn body(&self) -> serde_json::Value {
        let row = self.row();
        json!({ "error": { "message": self.to_string(), "type": row.kind, "param": self.param(), "code": row.code } })
    }

    /// The error for a status produced outside our handlers (router fallback,
    /// tower-http layers), so those answers get the same body.
    /// `text` is the plain body it came with (an extractor's rejection says what was wrong).
    fn from_bare_status(status: StatusCode, path: &str, text: &str) -> Self {
        match status {
            StatusCode::NOT_FOUND => ApiError::NotFound(format!("no route for {path}")),
            StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed,
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
            StatusCode::REQUEST_TIMEOUT => ApiError::Timeout,
            // Any other client error (an extractor's rejection: a bad path segment, a wrong
            // content type) keeps its status and says what was wrong.
            other if other.is_client_error() => {
                let text = text.trim();
                let message = if text.is_empty() { format!("HTTP {other}") } else { text.to_string() };
                ApiError::Rejected { status: other, message }
            }
            other => ApiError::Internal(format!("HTTP {other}")),
        }
    }
}

impl From<SubmitError> for ApiError {
    fn from(e: SubmitError) -> Self {
        match e {
            SubmitError::QueueFull { .. } => ApiError::QueueFull(e.to_string()),
            SubmitError::WorkerGone => ApiError::WorkerGone,
        }
    }
}

impl From<WorkerError> for ApiError {
    fn from(e: WorkerError) -> Self {
        match e {
            WorkerError::ContextFull { .. } => ApiError::invalid("max_tokens", e.to_string()),
            WorkerError::Engine(msg) => ApiError::Internal(msg),
            WorkerError::DeviceLost(_) => ApiError::DeviceLost(e.to_string()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!("{self}");
        }
        let mut res = (status, axum::Json(self.body())).into_response();
        // Slots free up as sequences finish: a second is the scale of a short generation. A reload
        // after a lost device takes as long as loading the models did.
        let retry_after = match self {
            ApiError::QueueFull(_) => Some("1"),
            ApiError::NotReady | ApiError::DeviceLost(_) => Some("5"),
            _ => None,
        };
        if let Some(secs) = retry_after {
            res.headers_mut().insert(header::RETRY_AFTER, axum::http::HeaderValue::from_static(secs));
        }
        res
    }
}

/// Rewrites error responses that carry no JSON body (404 from the fallback,
/// 405, 413 from the body limit, 408 from the timeout layer) into OpenAI's
/// error shape, so every error a client sees comes from the table above.
pub async fn openai_error_shape(req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let res = next.run(req).await;
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return res;
    }
    let headers = res.headers().clone();
    // Rejection texts are a line, with a known length; any other body (a stream, something
    // large) is not waited for.
    let short = axum::body::HttpBody::size_hint(res.body()).exact().is_some_and(|n| n <= 4096);
    let text =
        if short { axum::body::to_bytes(res.into_body(), 4096).await.unwrap_or_default() } else { Default::default() };
    let err = ApiError::from_bare_status(status, &path, &String::from_utf8_lossy(&text));
    let mut out = (err.status(), axum::Json(err.body())).into_response();
    // Keep headers such as Allow or WWW-Authenticate; the body is ours now.
    for (name, value) in &headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            // append: a header may come several times (Vary, WWW-Authenticate).
            out.headers_mut().append(name.clone(), value.clone());
        }
    }
    out
}

/// The router's fallback: unknown paths.
pub async fn not_found(req: Request<Body>) -> ApiError {
    ApiError::NotFound(format!("no route for {} {}", req.method(), req.uri().path()))
}
