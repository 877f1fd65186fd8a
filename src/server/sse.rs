//! Server-sent events in OpenAI's framing: one `data: <json>` per chunk,
//! errors as `data: {"error": {...}}` (the same body as a non-streamed error),
//! and `data: [DONE]` last.

use std::convert::Infallible;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tokio_stream::{Stream, StreamExt};

use super::error::ApiError;

pub fn json<T: Serialize>(value: &T) -> Event {
    match serde_json::to_string(value) {
        Ok(s) => Event::default().data(s),
        Err(e) => error(&ApiError::Internal(format!("serializing a chunk: {e}"))),
    }
}

pub fn error(e: &ApiError) -> Event {
    if e.status().is_server_error() {
        tracing::error!("stream failed: {e}");
    }
    Event::default().data(e.body().to_string())
}

pub fn done() -> Event {
    Event::default().data("[DONE]")
}

/// How long a stream may go quiet before a comment line keeps proxies from closing it: a request
/// waits in the queue (or behind speech jobs on the GPU) before its first event.
const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(15);

/// The response for a stream of events, with a `:` comment after each quiet KEEP_ALIVE (SSE
/// clients, the OpenAI SDKs' included, skip comments).
pub fn response(events: impl Stream<Item = Event> + Send + 'static) -> Response {
    Sse::new(events.map(Ok::<_, Infallible>)).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response()
}
