//! GET /ready: readiness. 200 once loading is over and at least one model
//! (LLM, transcription model or voice) serves; 503 while loading, or when every
//! one failed. The body lists what loaded and what failed (with why).

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::server::state::AppState;

pub async fn handle(State(state): State<Arc<AppState>>) -> (StatusCode, Json<Value>) {
    let Some(registry) = state.worker.registry() else {
        return (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "status": "loading", "models": [], "failed": [] })));
    };
    let models = registry.served();
    let failed: Vec<Value> = registry.failures.iter().map(|f| json!({ "id": f.id, "error": f.error })).collect();
    let (status, word) = if models.is_empty() || !state.worker.is_alive() {
        (StatusCode::SERVICE_UNAVAILABLE, "failed")
    } else {
        (StatusCode::OK, "ready")
    };
    (status, Json(json!({ "status": word, "models": models, "failed": failed })))
}
