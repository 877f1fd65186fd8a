//! Server-sent events in OpenAI's framing: one `data: <json>` per chunk,
//! errors as `data: {"error": {...}}` (the same body as a non-streamed error),
//! and `data: [DONE]` last.

use std::convert::Infallible;

use axum::response::sse::{Event, Sse};
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

/// The response for a stream of events (no keep-alive comments: tokens flow
/// continuously once a sequence is admitted).
pub fn response(events: impl Stream<Item = Event> + Send + 'static) -> Response {
    Sse::new(events.map(Ok::<_, Infallible>)).into_response()
}
