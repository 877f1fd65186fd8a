//! The typed op graph a model builds, and the plan that turns it into a
//! flat list of GPU dispatches; uploading weights as its tensors, and timing its plans.
//!
//! Files, bottom up: ir (ops and tensors) <- dispatch_spec (what selection produces) <- the
//! selectors (dispatch_attention <- dispatch_partials <- dispatch_matvec, dispatch_layer; hybrid)
//! <- dispatch (one match over `Op`) <- plan (`Plan`) <- residency, profile; alloc and upload
//! sit on ir.

pub mod alloc;
pub mod dispatch;
mod dispatch_attention;
mod dispatch_layer;
mod dispatch_matvec;
pub mod dispatch_partials;
mod dispatch_spec;
pub mod hybrid;
pub mod ir;
pub mod plan;
pub mod profile;
mod residency;
pub mod tensor;
pub mod upload;

pub use ir::{DeviceTensor, Graph, Op, Rows, TensorId};
pub use plan::{Plan, PlanOptions};
