//! The accept loop: each connection served by hyper with a deadline for its request headers (a
//! client that trickles them in, slowloris-style, is dropped), and graceful shutdown with a grace
//! period (open requests may finish; the connections still open when it ends are closed, which
//! cancels their requests).
//! axum::serve does the same minus both deadlines.

use std::future::Future;
use std::time::Duration;

use axum::extract::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt;

pub struct ListenOptions {
    /// A connection whose request headers have not all arrived after this long is closed.
    pub header_read_timeout: Duration,
    /// After `shutdown` resolves, open connections get this long to finish.
    pub grace: Duration,
}

/// Serves `app` on `listener` until `shutdown` resolves, then stops accepting, lets open
/// connections finish for up to `opts.grace`, and returns.
pub async fn serve(listener: TcpListener, app: Router, opts: ListenOptions, shutdown: impl Future<Output = ()>) {
    let graceful = GracefulShutdown::new();
    // The connections' tasks, so that those still open after the grace period can be cut off
    // (dropping a connection cancels its requests, which frees the worker to stop).
    let mut connections = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        while connections.try_join_next().is_some() {}
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service =
            TowerToHyperService::new(app.clone().map_request(|r: Request<Incoming>| r.map(axum::body::Body::new)));
        let mut builder = Builder::new(TokioExecutor::new());
        builder.http1().timer(TokioTimer::new()).header_read_timeout(opts.header_read_timeout);
        let conn = graceful.watch(builder.serve_connection_with_upgrades(TokioIo::new(stream), service).into_owned());
        connections.spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!("connection ended: {e}");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(opts.grace, graceful.shutdown()).await.is_err() {
        tracing::warn!("{} s grace period over: closing the connections still open", opts.grace.as_secs());
    }
    connections.shutdown().await;
}
