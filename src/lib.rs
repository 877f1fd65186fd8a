//! gerbil: a local inference server. The engine builds a typed op graph per
//! model, quantizes weights to INT4 groups at load, and runs WGSL kernels
//! through wgpu.

pub mod audio;
pub mod bench;
pub mod cli;
pub mod config;
pub mod executor;
pub mod gguf;
pub mod gpu;
pub mod graph;
pub mod models;
pub mod nn;
pub mod passes;
pub mod reference;
pub mod server;
pub mod speech;
pub mod text;
pub mod weights;
pub mod worker;
