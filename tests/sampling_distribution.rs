//! `Sampler` against the exact distribution it should draw from, at temperatures other than 1
//! (where dividing the logits by the temperature and multiplying them by it agree), with top-k,
//! top-p and both, min-p, plus greedy at temperature 0. Each case draws N tokens with a fixed seed and
//! bounds the total-variation distance between the empirical and the exact distribution, the
//! latter computed here in f64 straight from the definition:
//!   p_i ∝ exp(l_i / T) over the kept tokens; min-p keeps the tokens whose probability is at least
//!   min_p times the largest (after temperature, before the others, as vLLM); top-k keeps the k
//!   largest logits; top-p keeps the smallest prefix, by descending probability (after top-k),
//!   whose mass reaches top_p.
//!
//! The bound: with K outcomes and N draws, P(TV > eps) <= 2^K exp(-2 N eps^2)
//! (Bretagnolle-Huber-Carol). K = 8, N = 20_000, eps = 0.02: 256 * e^-16 < 3e-5, so a correct
//! sampler passes with any seed (and the seed is fixed anyway); the typical TV is ~0.008.
//! The bug "logits multiplied by the temperature" (T * l instead of l / T) moves each case's
//! exact distribution by the TV listed next to it (computed in the test, `bug_tv`): 0.25 to 0.58,
//! at least 12 times the bound.

use gerbil::text::sampling::{argmax, Sampler, SamplingParams};

/// The argmax is not the first entry, and no two logits tie, so top-k and top-p are well defined.
const LOGITS: [f32; 8] = [0.5, 2.0, -1.0, 1.0, -2.0, 1.5, 0.0, -0.5];
const DRAWS: usize = 20_000;
const TV_BOUND: f64 = 0.02;

/// The exact distribution of the next token for `logits` scaled by `scale` (1/T when correct).
fn exact(logits: &[f32], scale: f64, min_p: f64, top_k: usize, top_p: f64) -> Vec<f64> {
    let max = logits.iter().fold(f64::NEG_INFINITY, |m, &l| m.max(l as f64));
    let w: Vec<f64> = logits.iter().map(|&l| ((l as f64 - max) * scale).exp()).collect();
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by(|&a, &b| w[b].total_cmp(&w[a]));
    // The largest weight is exp(0) = 1.
    order.retain(|&i| w[i] >= min_p);
    if top_k > 0 {
        order.truncate(top_k);
    }
    if top_p < 1.0 {
        let total: f64 = order.iter().map(|&i| w[i]).sum();
        let mut acc = 0.0;
        let keep = order
            .iter()
            .position(|&i| {
                acc += w[i];
                acc >= top_p * total
            })
            .map_or(order.len(), |k| k + 1);
        order.truncate(keep);
    }
    let total: f64 = order.iter().map(|&i| w[i]).sum();
    let mut p = vec![0.0; w.len()];
    for &i in &order {
        p[i] = w[i] / total;
    }
    p
}

fn tv(a: &[f64], b: &[f64]) -> f64 {
    0.5 * a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>()
}

/// The empirical distribution of DRAWS samples.
fn empirical(params: SamplingParams) -> Vec<f64> {
    let mut s = Sampler::new(params);
    let mut counts = vec![0usize; LOGITS.len()];
    for _ in 0..DRAWS {
        counts[s.sample(&mut LOGITS.to_vec()) as usize] += 1;
    }
    counts.iter().map(|&c| c as f64 / DRAWS as f64).collect()
}

fn check(temperature: f32, top_k: usize, top_p: f32, seed: u64) {
    check_min_p(temperature, 0.0, top_k, top_p, seed);
}

fn check_min_p(temperature: f32, min_p: f32, top_k: usize, top_p: f32, seed: u64) {
    let (m, p) = (min_p as f64, top_p as f64);
    let want = exact(&LOGITS, 1.0 / temperature as f64, m, top_k, p);
    // What the multiply-instead-of-divide bug would draw from: how far it is from `want`.
    let bug = exact(&LOGITS, temperature as f64, m, top_k, p);
    let bug_tv = tv(&want, &bug);
    assert!(bug_tv > 10.0 * TV_BOUND, "case T={temperature} k={top_k} p={top_p} cannot tell the bug ({bug_tv})");
    if min_p > 0.0 && top_k == 0 && top_p == 1.0 {
        // min_p ignored, or applied before the temperature: each far enough from `want` that
        // its draws land past the bound (more than twice it; asked: five times).
        for (name, other) in [
            ("ignored", exact(&LOGITS, 1.0 / temperature as f64, 0.0, top_k, p)),
            ("before T", {
                let before: Vec<usize> =
                    (0..LOGITS.len()).filter(|&i| exact(&LOGITS, 1.0, m, 0, 1.0)[i] > 0.0).collect();
                let mut e = exact(&LOGITS, 1.0 / temperature as f64, 0.0, top_k, p);
                e.iter_mut().enumerate().filter(|(i, _)| !before.contains(i)).for_each(|(_, x)| *x = 0.0);
                let t: f64 = e.iter().sum();
                e.iter().map(|x| x / t).collect()
            }),
        ] {
            let d = tv(&want, &other);
            assert!(d > 5.0 * TV_BOUND, "case T={temperature} min_p={min_p} cannot tell min_p {name} ({d})");
        }
    }
    let params = SamplingParams { temperature, min_p, top_k, top_p, seed: Some(seed), ..Default::default() };
    let got = empirical(params);
    let d = tv(&got, &want);
    eprintln!("T={temperature} top_k={top_k} top_p={top_p}: TV {d:.4} (bound {TV_BOUND}, the bug's {bug_tv:.4})");
    // Tokens outside the kept set are never drawn, not merely rarely.
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        assert!(w > 0.0 || g == 0.0, "T={temperature} k={top_k} p={top_p}: token {i} drawn outside the kept set");
    }
    assert!(
        d < TV_BOUND,
        "T={temperature} top_k={top_k} top_p={top_p}: TV(empirical, exact) = {d:.4} >= {TV_BOUND}\n got  {got:.4?}\n want {want:.4?}"
    );
}

// Bug TVs (T * l instead of l / T), from `exact`: T=0.5 and T=2 plain 0.406; top_k 3: 0.246;
// top_p 0.5: 0.581; top_k 3 + top_p 0.5: 0.438; top_p 0.9: 0.404.

#[test]
fn temperature_half_follows_softmax_of_logits_over_t() {
    check(0.5, 0, 1.0, 11);
}

#[test]
fn temperature_two_follows_softmax_of_logits_over_t() {
    check(2.0, 0, 1.0, 12);
}

#[test]
fn top_k_three_renormalizes_the_three_largest() {
    check(0.5, 3, 1.0, 13);
    check(2.0, 3, 1.0, 14);
}

#[test]
fn top_p_keeps_the_smallest_prefix_reaching_the_mass() {
    // T = 2: the two largest hold 0.46 < 0.5, the three 0.62: three tokens kept.
    check(2.0, 0, 0.5, 15);
    // T = 0.5: the largest alone holds 0.63: the draw is certain.
    check(0.5, 0, 0.5, 16);
    check(2.0, 0, 0.9, 17);
    check(0.5, 0, 0.9, 18);
}

#[test]
fn min_p_keeps_tokens_at_least_min_p_times_the_most_likely() {
    // T = 2: weights 1, .78, .61, .47, .37 | .29, .22, .14: min_p 0.3 keeps five tokens.
    check_min_p(2.0, 0.3, 0, 1.0, 20);
    // T = 0.5: weights 1, .37 | .14, .05, ...: min_p 0.2 keeps two (before the temperature it
    // would keep four).
    check_min_p(0.5, 0.2, 0, 1.0, 21);
    // Before top-k and top-p: at T = 2 min_p 0.3 keeps five, top_p 0.7 then three of them.
    check_min_p(2.0, 0.3, 0, 0.7, 22);
}

#[test]
fn top_k_then_top_p() {
    // After top-k 3 at T = 2 the largest holds 0.42 of the three: two tokens kept.
    check(2.0, 3, 0.5, 19);
}

#[test]
fn temperature_zero_is_argmax_whatever_the_other_settings() {
    let best = argmax(&LOGITS);
    assert_eq!(best, 1);
    for (top_k, top_p) in [(0, 1.0), (3, 1.0), (0, 0.5), (5, 0.3)] {
        let mut s =
            Sampler::new(SamplingParams { temperature: 0.0, top_k, top_p, seed: Some(3), ..Default::default() });
        for _ in 0..200 {
            assert_eq!(s.sample(&mut LOGITS.to_vec()), best, "top_k {top_k} top_p {top_p}");
        }
    }
}
