//! The typed op graph a model builds, and the executor that turns it into a
//! flat list of GPU dispatches.

pub mod alloc;
pub mod dispatch;
mod dispatch_attention;
mod dispatch_layer;
mod dispatch_matvec;
pub mod dispatch_partials;
pub mod executor;
pub mod hybrid;
pub mod ir;
mod residency;

pub use executor::{Plan, PlanOptions};
pub use ir::{DeviceTensor, Graph, Op, Rows, TensorId};
