//! Qwen3.5 text models (transformers `qwen3_5`): a hybrid of Gated DeltaNet
//! (linear attention with a recurrent state) and gated full-attention layers,
//! as `layer_types` in config.json says, with zero-centred (1 + w) RMSNorms.

pub mod arch;
pub mod config;
pub mod graph;
pub mod weights;

pub use arch::Qwen35Arch;
pub use config::Qwen35Config;
pub use weights::Qwen35Weights;
