//! Direct-dispatch GPU ops for encoder-decoder models (Whisper, Moonshine):
//! shapes change per clip and per decode step, so instead of a fixed graph
//! plan, a [`Recorder`] collects typed dispatches (and buffer copies) and
//! submits them as one command buffer with one uniform arena. The ops are
//! generic (LayerNorm with bias, GELU, conv1d via im2col + matmul, strided
//! non-causal / causal / cross attention, bias adds) and each kernel is
//! tested against `reference::speech` in tests/kernels_speech.rs.

mod int4;
mod ops;
mod ops_extra;
mod recorder;
mod select;

pub use int4::{Int4Mat, Weight};
pub use ops::{AttnArgs, Conv1d, Strided};
pub use ops_extra::RopeArgs;
pub use recorder::{Mat, Recorder};
pub use select::{
    gumbel_noise, gumbel_uniform, logit_stats_cpu, mask_bits, LogitRules, LogitStats, EMPTY, STATS_WORDS,
};
