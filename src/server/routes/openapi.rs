//! GET /openapi.yaml: the API description, compiled into the binary.

use axum::http::header;
use axum::response::IntoResponse;

pub const OPENAPI_YAML: &str = include_str!("../../../openapi.yaml");

pub async fn handle() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/yaml")], OPENAPI_YAML)
}
