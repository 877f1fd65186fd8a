//! Code sampling as outetts recommends for 1.0 (temperature 0.4, top-k 40, top-p 0.9, min-p 0.05,
//! repetition penalty 1.1 over the last 64 tokens): the penalty and min-p here, temperature / top-k /
//! top-p and the seeded RNG through the engine's `Sampler`.

use crate::models::llm::Session;
use crate::models::ModelError;
use crate::text::sampling::{Sampler, SamplingParams};

#[derive(Debug, Clone, PartialEq)]
pub struct CodeSampling {
    /// 0 = greedy (and then the penalty and filters are off too: plain argmax on the GPU).
    pub temperature: f32,
    pub top_k: usize,
    pub top_p: f32,
    /// Drop tokens whose probability is below min_p x the top one's; 0 = off.
    pub min_p: f32,
    /// HF's multiplicative penalty (logit / p if positive, * p if negative) on recent tokens; 1 = off.
    pub repetition_penalty: f32,
    /// How many of the latest tokens (prompt included) the penalty looks at.
    pub repetition_window: usize,
    pub max_new_tokens: usize,
    pub seed: Option<u64>,
}

impl Default for CodeSampling {
    fn default() -> Self {
        CodeSampling {
            temperature: 0.4,
            top_k: 40,
            top_p: 0.9,
            min_p: 0.05,
            repetition_penalty: 1.1,
            repetition_window: 64,
            max_new_tokens: 4096,
            seed: None,
        }
    }
}

impl CodeSampling {
    pub fn greedy(max_new_tokens: usize) -> Self {
        CodeSampling { temperature: 0.0, repetition_penalty: 1.0, min_p: 0.0, max_new_tokens, ..Default::default() }
    }

    pub fn is_greedy(&self) -> bool {
        self.temperature == 0.0 && self.repetition_penalty == 1.0
    }
}

/// Applies the windowed repetition penalty and min-p to one row of logits.
pub fn adjust(logits: &mut [f32], history: &[u32], s: &CodeSampling) {
    if s.repetition_penalty != 1.0 {
        let mut seen = std::collections::HashSet::new();
        for &t in history.iter().rev().take(s.repetition_window) {
            if seen.insert(t) {
                if let Some(l) = logits.get_mut(t as usize) {
                    *l = if *l > 0.0 { *l / s.repetition_penalty } else { *l * s.repetition_penalty };
                }
            }
        }
    }
    if s.min_p > 0.0 && s.temperature > 0.0 {
        // p_i < min_p * p_max  <=>  l_i < l_max + T ln(min_p)
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let floor = max + s.temperature * s.min_p.ln();
        logits.iter_mut().filter(|l| **l < floor).for_each(|l| *l = f32::NEG_INFINITY);
    }
}

/// Sampled generation: logits read back each step, the chosen id written as the next input.
pub fn generate(
    session: &mut Session,
    prompt: &[u32],
    max_new: usize,
    stop: &[u32],
    s: &CodeSampling,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Vec<u32>, ModelError> {
    let mut sampler = Sampler::new(SamplingParams {
        temperature: s.temperature,
        top_k: s.top_k,
        top_p: s.top_p,
        seed: s.seed,
        ..Default::default()
    });
    let mut history = prompt.to_vec();
    let mut out = Vec::new();
    session.prefill(prompt)?;
    for i in 0..max_new {
        let mut logits = session.logits()?;
        adjust(&mut logits, &history, s);
        let tok = sampler.sample(&mut logits);
        out.push(tok);
        history.push(tok);
        if stop.contains(&tok) || i + 1 == max_new || !keep_going() {
            break;
        }
        session.set_next_token(tok);
        session.decode_step()?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn penalty_and_min_p() {
        let s = CodeSampling { repetition_penalty: 2.0, repetition_window: 2, min_p: 0.5, ..Default::default() };
        let mut l = vec![4.0, -1.0, 3.9, 0.0, 1.0];
        // Token 0 is outside the window of the last two.
        adjust(&mut l, &[0, 1, 2], &s);
        assert_eq!(l[0], 4.0);
        assert_eq!(l[1], f32::NEG_INFINITY, "-2 after the penalty, then below the min-p floor");
        // 3.9 / 2 = 1.95 < 4 + 0.4 ln 0.5 = 3.72: filtered; without min-p it would be 1.95.
        assert_eq!(l[2], f32::NEG_INFINITY);
        assert!(l[3].is_infinite() && l[4].is_infinite());
        let mut l = vec![4.0, -1.0, 3.9];
        adjust(&mut l, &[0, 1, 2], &CodeSampling { min_p: 0.0, ..s });
        assert_eq!(l, vec![4.0, -2.0, 1.95]);
    }
}
