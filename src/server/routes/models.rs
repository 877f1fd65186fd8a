//! GET /v1/models and GET /v1/models/{id}: the loaded models. (Ids may
//! contain slashes, as HF repo ids do, hence the wildcard path.)

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::Json;

use crate::server::api::models::{ModelList, ModelObject};
use crate::server::app::AppState;
use crate::server::error::ApiError;
use crate::worker::ModelEntry;

fn object(m: &ModelEntry) -> ModelObject {
    ModelObject { id: m.id.clone(), object: "model", created: m.created, owned_by: "gerbil" }
}

pub async fn list(State(state): State<Arc<AppState>>) -> Result<Json<ModelList>, ApiError> {
    let registry = state.worker.registry().ok_or(ApiError::NotReady)?;
    Ok(Json(ModelList { object: "list", data: registry.models.iter().map(object).collect() }))
}

pub async fn retrieve(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<ModelObject>, ApiError> {
    let model = state.model(&id)?;
    Ok(Json(object(model.entry())))
}
