//! What every handler shares (`AppState`): the worker's handle and the limits, and the loaded
//! model a request names. Apart from app.rs, which builds the router over the routes, so that the
//! routes need not import the file that imports them.

use std::sync::Arc;

use super::error::ApiError;
use crate::config::Limits;
use crate::worker::{ModelEntry, Registry, WorkerHandle};

pub struct AppState {
    pub worker: WorkerHandle,
    pub limits: Limits,
}

/// A loaded model, kept alive by the registry it belongs to.
#[derive(Clone)]
pub struct ModelRef {
    registry: Arc<Registry>,
    index: usize,
}

impl ModelRef {
    pub fn entry(&self) -> &ModelEntry {
        &self.registry.models[self.index]
    }
}

impl AppState {
    /// The loaded model called `id`.
    pub fn model(&self, id: &str) -> Result<ModelRef, ApiError> {
        let registry = self.worker.registry().ok_or(ApiError::NotReady)?;
        let index =
            registry.models.iter().position(|m| m.id == id).ok_or_else(|| ApiError::ModelNotFound(id.to_string()))?;
        Ok(ModelRef { registry, index })
    }
}
