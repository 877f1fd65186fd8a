//! The Llama family: Llama / Mistral, Qwen2 (QKV bias), Qwen3 (q/k norms).

pub mod arch;
pub mod config;
pub mod gguf;
pub mod graph;
pub mod weights;

pub use arch::LlamaArch;
pub use config::{Family, LlamaConfig};
pub use graph::build_graph;
pub use weights::LlamaWeights;
