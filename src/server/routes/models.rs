//! GET /v1/models and GET /v1/models/{id}: the loaded models (LLMs, embedding and transcription models). (Ids may
//! contain slashes, as HF repo ids do, hence the wildcard path.)

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::Json;

use crate::server::api::models::{ModelList, ModelObject};
use crate::server::error::ApiError;
use crate::server::state::AppState;
use crate::worker::Registry;

fn object(id: &str, created: u64) -> ModelObject {
    ModelObject { id: id.to_string(), object: "model", created, owned_by: "gerbil" }
}

/// Every model a request's `model` may name: the LLMs, the embedding models, then the transcription models (as OpenAI
/// lists whisper-1). Voices are listed by GET /v1/audio/voices.
fn objects(registry: &Registry) -> impl Iterator<Item = ModelObject> + '_ {
    let llms = registry.models.iter().map(|m| object(&m.id, m.created));
    let embedders = registry.embedders.iter().map(|m| object(&m.id, m.created));
    llms.chain(embedders).chain(registry.speech.iter().map(|m| object(&m.id, m.created)))
}

pub async fn list(State(state): State<Arc<AppState>>) -> Result<Json<ModelList>, ApiError> {
    let registry = state.worker.registry().ok_or(ApiError::NotReady)?;
    Ok(Json(ModelList { object: "list", data: objects(&registry).collect() }))
}

pub async fn retrieve(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<ModelObject>, ApiError> {
    let registry = state.worker.registry().ok_or(ApiError::NotReady)?;
    let found = objects(&registry).find(|m| m.id == id);
    found.map(Json).ok_or(ApiError::ModelNotFound(id))
}
