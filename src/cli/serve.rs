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
            tracing::info!("ready on http://{}: {}", server.addr, serving_summary(&r));
        }
        r => {
            server.shutdown().await;
            // One cause for every model (no GPU, say) is said once, last, where the user looks.
            let first = r.as_ref().and_then(|r| r.failures.first().map(|f| f.error.clone()));
            let same = r.as_ref().is_some_and(|r| r.failures.iter().all(|f| Some(&f.error) == first.as_ref()));
            match first {
                Some(e) if same => anyhow::bail!("no model could be loaded: {e}"),
                _ => anyhow::bail!("no model could be loaded (see the errors above)"),
            }
        }
    }
    shutdown_signal().await;
    tracing::info!("shutting down: finishing open requests");
    server.shutdown().await;
    Ok(())
}

/// What each endpoint serves, with the OpenAI names that reach it.
fn serving_summary(r: &crate::worker::registry::Registry) -> String {
    let list = |ids: Vec<&str>| if ids.is_empty() { "none".to_string() } else { ids.join(", ") };
    let mut parts = vec![format!("text: {}", list(r.models.iter().map(|m| m.id.as_str()).collect()))];
    let mut stt = list(r.speech.iter().map(|m| m.id.as_str()).collect());
    if !r.speech.is_empty() && !r.openai.transcription_models.is_empty() {
        stt += &format!(" (also as {})", r.openai.transcription_models.join(", "));
    }
    parts.push(format!("transcription: {stt}"));
    let mut tts = list(r.voices.iter().map(|v| v.name.as_str()).collect());
    if !r.voices.is_empty() && !r.openai.voices.is_empty() {
        tts += &format!(" (also as {})", r.openai.voices.keys().cloned().collect::<Vec<_>>().join(", "));
    }
    parts.push(format!("speech voices: {tts}"));
    if !r.failures.is_empty() {
        parts.push(format!("failed: {}", r.failures.iter().map(|f| f.id.as_str()).collect::<Vec<_>>().join(", ")));
    }
    parts.join("; ")
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
