//! Direct-dispatch GPU ops for models whose shapes change per call (encoders, decoders,
//! codecs): instead of a fixed graph plan, a [`Recorder`] collects typed dispatches (and
//! buffer copies) and submits them as one command buffer with one uniform arena. The ops are
//! generic: for Whisper and Moonshine LayerNorm with bias, GELU, conv1d via im2col + matmul,
//! strided non-causal / causal / cross attention, bias adds (tested against
//! `reference::speech` in tests/kernels_speech.rs); for the convolution stacks of Piper and
//! the DAC codec direct 1-D convolutions, transposed convolutions and per-channel activations
//! (tests/kernels_conv.rs, tests/kernels_snake.rs).

mod conv;
mod conv_shape;
mod int4;
mod ops;
mod ops_extra;
mod per_channel;
mod recorder;
mod select;

pub use conv::{Conv1dEpilogue, GpuConv1d, GpuConvTranspose1d};
pub use conv_shape::{Conv1dShape, ConvTranspose1dShape};
pub use int4::{Int4Mat, Weight};
pub use ops::{AttnArgs, Conv1d, Strided};
pub use ops_extra::RopeArgs;
pub use per_channel::{GpuGate, GpuSnake};
pub use recorder::{Mat, Recorder};
pub use select::{
    gumbel_noise, gumbel_uniform, logit_stats_cpu, mask_bits, LogitRules, LogitStats, EMPTY, STATS_WORDS,
};
