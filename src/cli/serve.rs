//! `gerbil serve`: the OpenAI-compatible server. Flags and environment are
//! defined (and read) in config.rs; this wires them to the server and waits
//! for Ctrl-C / SIGTERM.

use anyhow::Context;

pub use crate::config::ServeArgs;
use crate::config::ServeConfig;

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let cfg = ServeConfig::load(&args)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")?;
    rt.block_on(serve(cfg))
}

async fn serve(cfg: ServeConfig) -> anyhow::Result<()> {
    let models = cfg.models.len() + cfg.stt_models.len() + cfg.voices.len();
    let server = crate::server::start(cfg).await?;
    tracing::info!("loading {models} model(s) and voice(s); /health answers now, /ready once loaded");
    let registry = tokio::select! {
        r = server.worker.wait_loaded() => r,
        _ = shutdown_signal() => {
            server.shutdown().await;
            return Ok(());
        }
    };
    match registry {
        Some(r) if !r.served().is_empty() => {
            let ids = r.served();
            tracing::info!("ready on http://{}: serving {}", server.addr, ids.join(", "));
        }
        _ => {
            server.shutdown().await;
            anyhow::bail!("no model could be loaded (see the errors above)");
        }
    }
    shutdown_signal().await;
    tracing::info!("shutting down: finishing open requests");
    server.shutdown().await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
