//! A deadline for the request body: every request's body must have arrived within
//! `limits.body_read_timeout_s` of its headers, so a client that trickles a body in (slowloris)
//! cannot hold a connection and a handler for long. Past the deadline, reading the body fails with
//! `BodyDeadline`, which the extractors answer as 408 (`ApiError::BodyTimeout`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http_body::Frame;
use tokio::time::Sleep;

/// The error a body read past its deadline gives.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {0} s (limits.body_read_timeout_s)")]
pub struct BodyDeadline(pub u64);

/// `BodyDeadline` if it is somewhere in `e`'s chain of sources.
pub fn find<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a BodyDeadline> {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(d) = err.downcast_ref::<BodyDeadline>() {
            return Some(d);
        }
        cur = err.source();
    }
    None
}

struct DeadlineBody {
    inner: Body,
    sleep: Pin<Box<Sleep>>,
    secs: u64,
}

impl HttpBody for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame);
        }
        match self.sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(axum::Error::new(BodyDeadline(self.secs))))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Middleware: the body of every request gets `limit` to arrive, counted from now.
pub async fn body_deadline(limit: Duration, req: Request, next: Next) -> Response {
    let secs = limit.as_secs();
    let req = req.map(|inner| Body::new(DeadlineBody { inner, sleep: Box::pin(tokio::time::sleep(limit)), secs }));
    next.run(req).await
}
