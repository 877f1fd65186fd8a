//! GET /health: liveness. 200 while the process and its GPU worker run, even
//! while models load (that is /ready's business).

use std::sync::Arc;

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use crate::server::error::ApiError;
use crate::server::state::AppState;

pub async fn handle(State(state): State<Arc<AppState>>) -> Result<Json<Value>, ApiError> {
    if !state.worker.is_alive() {
        return Err(ApiError::WorkerGone);
    }
    Ok(Json(json!({ "status": "ok" })))
}
