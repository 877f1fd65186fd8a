//! gerbil: a local inference server. The engine builds a typed op graph per
//! model, quantizes weights to INT4 groups at load, and runs WGSL kernels
//! through wgpu.

pub mod gpu;
pub mod graph;
pub mod reference;
pub mod weights;
pub mod models;
pub mod text;
pub mod engine;
pub mod cli;
pub mod config;
pub mod server;
pub mod worker;
