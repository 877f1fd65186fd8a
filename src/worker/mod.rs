//! The GPU worker: one thread owning the device and every model, a
//! continuous-batching scheduler per model, and the handle handlers hold.

pub mod audio;
pub mod backend;
pub mod embed;
pub mod handle;
pub mod load;
pub mod metrics;
pub mod msg;
pub mod prefix;
pub mod queue;
pub mod registry;
pub mod run;
pub mod scheduler;
pub mod speech;
pub mod speech_metrics;

pub use handle::{SubmitError, WorkerHandle};
pub use load::{load_model, load_text_model, LoadedModel};
pub use metrics::Metrics;
pub use registry::{EmbedEntry, ModelEntry, Registry, VoiceEntry};
