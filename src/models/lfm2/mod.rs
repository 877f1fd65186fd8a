//! LFM2 (transformers `lfm2`): a hybrid of short-convolution blocks (gated
//! depthwise conv with a rolling state) and GQA attention blocks with per-head
//! q/k RMSNorm, each followed by a SwiGLU feed-forward.

pub mod arch;
pub mod config;
pub mod graph;
pub mod weights;

pub use arch::Lfm2Arch;
pub use config::Lfm2Config;
pub use weights::Lfm2Weights;
