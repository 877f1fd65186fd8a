//! The HTTP layer (axum): routes (one file each), OpenAI wire types, edge
//! validation, errors. Handlers hold only a `WorkerHandle`.

pub mod api;
pub mod app;
pub mod auth;
pub mod deadline;
pub mod error;
pub mod generation;
pub mod json;
pub mod listen;
pub mod routes;
pub mod sse;
pub mod state;
pub mod structured;
pub mod tools;
pub mod validate;

pub use app::{start, Server, StartError};
pub use error::ApiError;
