//! One decode step timed per dispatch with GPU timestamp queries, plus the
//! CPU cost of encoding and submitting a step. The timing itself is `graph::profile`'s.

use crate::models::llm::Session;

pub use crate::graph::profile::{plan_step, KernelRow, Profile};

/// Profiles the session's decode plan (the session must hold a prefilled sequence).
pub fn decode_step(s: &mut Session, steps: usize) -> Option<Profile> {
    let pos = s.pos;
    plan_step(s.decode_plan(), 1, pos, steps)
}
