//! GET /v1/audio/voices: the loaded text-to-speech voices with their sample rates.

use std::sync::Arc;

use axum::extract::State;
use axum::Json;

use crate::server::api::speech::{VoiceList, VoiceObject};
use crate::server::error::ApiError;
use crate::server::routes::speech::FORMATS;
use crate::server::state::AppState;

pub async fn list(State(state): State<Arc<AppState>>) -> Result<Json<VoiceList>, ApiError> {
    let registry = state.worker.registry().ok_or(ApiError::NotReady)?;
    let data = registry
        .voices
        .iter()
        .map(|v| VoiceObject {
            id: v.name.clone(),
            object: "voice",
            sample_rate: v.info.sample_rate,
            language: v.info.language.clone().unwrap_or_default(),
            formats: FORMATS.to_vec(),
        })
        .collect();
    Ok(Json(VoiceList { object: "list", data }))
}
