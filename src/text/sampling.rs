//! Sampling the next token on the CPU from one row of logits: logit bias, the
//! repetition penalty, presence/frequency penalties, temperature, min-p, top-k,
//! top-p (vLLM's order), and a per-sequence seeded RNG (same seed -> same tokens,
//! whatever else the server is doing).
//! Also log-softmax helpers for `logprobs`.

use std::collections::{HashMap, HashSet};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Validated sampling settings of one sequence.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingParams {
    /// 0 = greedy (argmax).
    pub temperature: f32,
    /// Nucleus mass in (0, 1]; 1 = off.
    pub top_p: f32,
    /// Keep the k most likely tokens; 0 = off.
    pub top_k: usize,
    /// Drop tokens less likely than min_p times the most likely one (after temperature); 0 = off.
    pub min_p: f32,
    /// Divides the positive logits and multiplies the negative ones of every token in the prompt or
    /// the output so far (the CTRL paper's, as transformers and vLLM apply it); 1 = off.
    pub repetition_penalty: f32,
    pub presence_penalty: f32,
    pub frequency_penalty: f32,
    /// Added to the logits of these token ids before anything else.
    pub logit_bias: Vec<(u32, f32)>,
    /// Fixes the RNG stream; None = a fresh random seed.
    pub seed: Option<u64>,
}

impl Default for SamplingParams {
    fn default() -> Self {
        SamplingParams {
            temperature: 1.0,
            top_p: 1.0,
            top_k: 0,
            min_p: 0.0,
            repetition_penalty: 1.0,
            presence_penalty: 0.0,
            frequency_penalty: 0.0,
            logit_bias: Vec::new(),
            seed: None,
        }
    }
}

impl SamplingParams {
    pub fn greedy() -> Self {
        SamplingParams { temperature: 0.0, ..Default::default() }
    }

    pub fn is_greedy(&self) -> bool {
        self.temperature == 0.0
    }

    /// Whether choosing a token needs the logits on the CPU. When false the
    /// GPU argmax is the answer and no logits are read back.
    pub fn needs_logits(&self) -> bool {
        !self.is_greedy()
            || self.repetition_penalty != 1.0
            || self.presence_penalty != 0.0
            || self.frequency_penalty != 0.0
            || !self.logit_bias.is_empty()
    }
}

/// Candidates gathered before a full sort when top-p is on: the nucleus almost
/// always fits in the head of the distribution, so sorting the whole
/// vocabulary (150k entries for real models) every step is wasted work.
const TOP_P_HEAD: usize = 256;

/// The sampling state of one sequence: its RNG, the counts of the tokens it
/// generated so far (presence and frequency penalties) and every token of its
/// prompt and output (the repetition penalty).
pub struct Sampler {
    params: SamplingParams,
    rng: ChaCha8Rng,
    counts: HashMap<u32, u32>,
    seen: HashSet<u32>,
}

impl Sampler {
    pub fn new(params: SamplingParams) -> Self {
        let rng = match params.seed {
            Some(seed) => ChaCha8Rng::seed_from_u64(seed),
            None => ChaCha8Rng::from_os_rng(),
        };
        Sampler { params, rng, counts: HashMap::new(), seen: HashSet::new() }
    }

    /// A sampler for a sequence that starts with `prompt` (the repetition penalty covers its tokens).
    pub fn with_prompt(params: SamplingParams, prompt: &[u32]) -> Self {
        let mut s = Sampler::new(params);
        if s.params.repetition_penalty != 1.0 {
            s.seen.extend(prompt);
        }
        s
    }

    pub fn params(&self) -> &SamplingParams {
        &self.params
    }

    /// Records a generated token (presence and frequency penalties look at generated tokens only).
    pub fn observe(&mut self, token: u32) {
        *self.counts.entry(token).or_insert(0) += 1;
        if self.params.repetition_penalty != 1.0 {
            self.seen.insert(token);
        }
    }

    /// Picks the next token from `logits` (modified in place).
    pub fn sample(&mut self, logits: &mut [f32]) -> u32 {
        self.adjust(logits);
        if self.params.is_greedy() {
            return argmax(logits);
        }
        let inv_t = 1.0 / self.params.temperature;
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut cands: Vec<(f32, u32)> =
            logits.iter().enumerate().map(|(i, &l)| (((l - max) * inv_t).exp(), i as u32)).collect();
        if self.params.min_p > 0.0 {
            // The most likely token has weight exp(0) = 1, so the threshold is min_p itself.
            cands.retain(|c| c.0 >= self.params.min_p);
        }
        if self.params.top_k > 0 && self.params.top_k < cands.len() {
            keep_largest(&mut cands, self.params.top_k);
        }
        if self.params.top_p < 1.0 {
            self.nucleus(&mut cands);
        }
        let total: f32 = cands.iter().map(|c| c.0).sum();
        if !(total > 0.0 && total.is_finite()) {
            // Every candidate underflowed (a -inf bias everywhere): fall back to argmax.
            return argmax(logits);
        }
        let mut u = self.rng.random::<f32>() * total;
        for &(p, id) in &cands {
            if u < p {
                return id;
            }
            u -= p;
        }
        cands.last().map_or(0, |c| c.1)
    }

    /// Bias, the repetition penalty, then presence and frequency penalties (OpenAI's definition),
    /// applied to raw logits.
    fn adjust(&self, logits: &mut [f32]) {
        for &(id, bias) in &self.params.logit_bias {
            if let Some(l) = logits.get_mut(id as usize) {
                *l += bias;
            }
        }
        let r = self.params.repetition_penalty;
        if r != 1.0 {
            for &id in &self.seen {
                if let Some(l) = logits.get_mut(id as usize) {
                    *l = if *l > 0.0 { *l / r } else { *l * r };
                }
            }
        }
        let (presence, frequency) = (self.params.presence_penalty, self.params.frequency_penalty);
        if presence != 0.0 || frequency != 0.0 {
            for (&id, &count) in &self.counts {
                if let Some(l) = logits.get_mut(id as usize) {
                    *l -= count as f32 * frequency + presence;
                }
            }
        }
    }

    /// Keeps the smallest prefix (by descending weight) whose mass reaches top_p.
    fn nucleus(&self, cands: &mut Vec<(f32, u32)>) {
        let total: f32 = cands.iter().map(|c| c.0).sum();
        let target = self.params.top_p * total;
        if cands.len() > TOP_P_HEAD {
            let mut head = cands.clone();
            keep_largest(&mut head, TOP_P_HEAD);
            if head.iter().map(|c| c.0).sum::<f32>() >= target {
                *cands = head;
            }
        }
        sort_desc(cands);
        let mut acc = 0.0;
        let mut keep = cands.len();
        for (i, c) in cands.iter().enumerate() {
            acc += c.0;
            if acc >= target {
                keep = i + 1;
                break;
            }
        }
        cands.truncate(keep.max(1));
    }
}

fn sort_desc(c: &mut [(f32, u32)]) {
    c.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
}

/// Keeps the `k` largest entries (unordered).
fn keep_largest(c: &mut Vec<(f32, u32)>, k: usize) {
    c.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    c.truncate(k);
}

/// Index of the largest logit (the first one on ties).
pub fn argmax(logits: &[f32]) -> u32 {
    let mut best = (0usize, f32::NEG_INFINITY);
    for (i, &l) in logits.iter().enumerate() {
        if l > best.1 {
            best = (i, l);
        }
    }
    best.0 as u32
}

/// log_softmax(logits)[id] and the `top` most likely (id, logprob), best first.
pub fn logprobs(logits: &[f32], id: u32, top: usize) -> (f32, Vec<(u32, f32)>) {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let lse = max + logits.iter().map(|&l| (l - max).exp()).sum::<f32>().ln();
    let chosen = logits.get(id as usize).map_or(f32::NEG_INFINITY, |&l| l - lse);
    let mut best: Vec<(f32, u32)> = logits.iter().enumerate().map(|(i, &l)| (l, i as u32)).collect();
    let top = top.min(best.len());
    if top == 0 {
        return (chosen, Vec::new());
    }
    keep_largest(&mut best, top);
    sort_desc(&mut best);
    (chosen, best.into_iter().map(|(l, i)| (i, l - lse)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(temperature: f32) -> SamplingParams {
        SamplingParams { temperature, seed: Some(7), ..Default::default() }
    }

    #[test]
    fn greedy_takes_argmax_and_bias_moves_it() {
        let mut s = Sampler::new(SamplingParams::greedy());
        assert_eq!(s.sample(&mut [0.0, 3.0, 1.0]), 1);
        let mut s = Sampler::new(SamplingParams { logit_bias: vec![(2, 5.0)], ..SamplingParams::greedy() });
        assert_eq!(s.sample(&mut [0.0, 3.0, 1.0]), 2);
    }

    #[test]
    fn repetition_penalty_scales_the_prompt_and_output_tokens_by_sign() {
        let p = SamplingParams { repetition_penalty: 2.0, ..SamplingParams::greedy() };
        // Token 0 is in the prompt, token 3 is generated, tokens 1 and 2 are neither.
        let mut s = Sampler::with_prompt(p, &[0, 0]);
        s.observe(3);
        let mut l = vec![3.0, 1.6, -1.0, -0.5];
        s.adjust(&mut l);
        assert_eq!(l, [1.5, 1.6, -1.0, -1.0], "positive divided, negative multiplied, others untouched");
        // Greedy follows the penalised logits: 1.6 now beats the prompt's 3.0.
        assert_eq!(s.sample(&mut [3.0, 1.6, -1.0, -0.5]), 1);
        // Off (1.0): the prompt is not even remembered, and nothing moves.
        let mut off = Sampler::with_prompt(SamplingParams::greedy(), &[0]);
        off.observe(3);
        let mut l = vec![3.0, 1.6, -1.0, -0.5];
        off.adjust(&mut l);
        assert_eq!(l, [3.0, 1.6, -1.0, -0.5]);
        assert!(SamplingParams { repetition_penalty: 1.2, ..SamplingParams::greedy() }.needs_logits());
    }

    #[test]
    fn penalties_count_generated_tokens() {
        let p = SamplingParams { frequency_penalty: 1.0, presence_penalty: 0.5, ..SamplingParams::greedy() };
        let mut s = Sampler::new(p);
        s.observe(1);
        s.observe(1);
        let mut l = vec![0.0, 3.0, 1.0];
        // 3.0 - 2 * 1.0 - 0.5 = 0.5 < 1.0
        assert_eq!(s.sample(&mut l), 2);
        assert!((l[1] - 0.5).abs() < 1e-6);
    }

    #[test]
    fn same_seed_same_draws() {
        let logits: Vec<f32> = (0..50).map(|i| (i as f32 * 0.37).sin()).collect();
        let draw = |seed| {
            let mut s = Sampler::new(SamplingParams { seed: Some(seed), ..params(1.0) });
            (0..64).map(|_| s.sample(&mut logits.clone())).collect::<Vec<_>>()
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
    }

    #[test]
    fn top_k_one_and_tiny_top_p_are_greedy() {
        let logits: Vec<f32> = (0..400).map(|i| ((i * 7919) % 401) as f32 / 50.0).collect();
        let best = argmax(&logits);
        for p in [SamplingParams { top_k: 1, ..params(1.5) }, SamplingParams { top_p: 1e-4, ..params(1.5) }] {
            let mut s = Sampler::new(p);
            for _ in 0..20 {
                assert_eq!(s.sample(&mut logits.clone()), best);
            }
        }
    }

    #[test]
    fn top_k_limits_the_support() {
        let logits = vec![5.0, 4.9, 4.8, -1.0, -2.0];
        let mut s = Sampler::new(SamplingParams { top_k: 2, ..params(5.0) });
        let mut seen = [0; 5];
        for _ in 0..500 {
            seen[s.sample(&mut logits.clone()) as usize] += 1;
        }
        assert!(seen[0] > 0 && seen[1] > 0);
        assert_eq!(seen[2] + seen[3] + seen[4], 0);
    }

    #[test]
    fn sampling_follows_the_distribution() {
        // p = softmax([ln 1, ln 3]) = [0.25, 0.75]
        let logits = vec![0.0, 3f32.ln()];
        let mut s = Sampler::new(params(1.0));
        let ones = (0..4000).filter(|_| s.sample(&mut logits.clone()) == 1).count();
        assert!((2800..3200).contains(&ones), "{ones}");
    }

    #[test]
    fn logprobs_are_log_softmax() {
        let logits = vec![1.0, 2.0, 3.0];
        let (lp, top) = logprobs(&logits, 0, 2);
        let z: f32 = logits.iter().map(|l: &f32| l.exp()).sum();
        assert!((lp - (1f32.exp() / z).ln()).abs() < 1e-5);
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), vec![2, 1]);
        assert!((top[0].1 - (3f32.exp() / z).ln()).abs() < 1e-5);
    }
}
