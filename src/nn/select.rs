//! Token selection statistics on the GPU (`shaders/logit_stats.wgsl`): a
//! decoder step reads back 16 words per row (max, argmax and log-sum-exp of
//! two vocabulary groups under masks, a Gumbel-max sample, one probed logit)
//! instead of the whole vocabulary. [`logit_stats_cpu`] is the plain-Rust
//! oracle the kernel is tested against (tests/kernels_speech.rs).

use super::recorder::{Mat, Recorder};
use crate::gpu::params;
use crate::gpu::KernelId;

/// Words of output per row.
pub const STATS_WORDS: usize = 16;
/// Reported for an empty group's max / log-sum-exp.
pub const EMPTY: f32 = -3.402_823_5e38;

/// Which tokens of a row are allowed, and how to sample.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LogitRules {
    /// Group A is [0, split), group B [split, vocab).
    pub split: u32,
    /// Tokens below this are not allowed.
    pub kill_end: u32,
    /// Group B tokens are allowed only in [ts_lo, ts_hi).
    pub ts_lo: u32,
    pub ts_hi: u32,
    /// Apply the always-mask (the first `mask_words` words of the mask buffer).
    pub mask: bool,
    /// Apply the begin-mask (the next `mask_words` words).
    pub begin: bool,
    /// Some((temperature, seed)): also report a Gumbel-max sample per group.
    pub sample: Option<(f32, u32)>,
    /// Token whose raw logit is reported.
    pub probe: u32,
}

impl LogitRules {
    /// Everything allowed (plain argmax / log-sum-exp over the vocabulary).
    pub fn all(vocab: usize, probe: u32) -> LogitRules {
        LogitRules { split: vocab as u32, ts_lo: vocab as u32, ts_hi: vocab as u32, probe, ..Default::default() }
    }
}

/// One row's statistics; index 0 is group A, 1 group B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogitStats {
    pub max: [f32; 2],
    pub lse: [f32; 2],
    pub arg: [u32; 2],
    pub gumbel: [f32; 2],
    pub garg: [u32; 2],
    pub glogit: [f32; 2],
    pub probe: f32,
}

impl LogitStats {
    pub fn from_words(w: &[u32]) -> LogitStats {
        let f = |i: usize| f32::from_bits(w[i]);
        LogitStats {
            max: [f(0), f(3)],
            lse: [f(1), f(4)],
            arg: [w[2], w[5]],
            gumbel: [f(6), f(9)],
            garg: [w[7], w[10]],
            glogit: [f(8), f(11)],
            probe: f(12),
        }
    }

    /// log-sum-exp over both groups (f64).
    pub fn lse_all(&self) -> f64 {
        let (a, b) = (self.lse[0] as f64, self.lse[1] as f64);
        let m = a.max(b);
        if m <= EMPTY as f64 {
            return f64::NEG_INFINITY;
        }
        m + ((a - m).exp() + (b - m).exp()).ln()
    }
}

/// A bitmask over `vocab` tokens with `tokens` set.
pub fn mask_bits(vocab: usize, tokens: &[u32]) -> Vec<u32> {
    let mut m = vec![0u32; vocab.div_ceil(32)];
    for &t in tokens {
        if (t as usize) < vocab {
            m[t as usize / 32] |= 1 << (t % 32);
        }
    }
    m
}

fn pcg(v: u32) -> u32 {
    let state = v.wrapping_mul(747796405).wrapping_add(2891336453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277803737);
    (word >> 22) ^ word
}

/// The uniform (0, 1) draw the kernel uses for token `i` under `seed`.
pub fn gumbel_uniform(seed: u32, i: u32) -> f32 {
    ((pcg(seed ^ pcg(i)) >> 8) as f32 + 0.5) / 16_777_216.0
}

/// The Gumbel noise -log(-log(u)) for token `i` under `seed`, exact to f32
/// (f64 inside). Near u = 1 the inner -log(u) is tiny and f32 `log` loses
/// most of its digits; the kernel therefore takes a series in 1 - u there.
pub fn gumbel_noise(seed: u32, i: u32) -> f32 {
    let u = (pcg(seed ^ pcg(i)) >> 8) as f64 + 0.5;
    -(-(u / 16_777_216.0).ln()).ln() as f32
}

fn allowed(i: u32, masks: &[u32], words: usize, r: &LogitRules) -> bool {
    let (w, bit) = (i as usize / 32, 1u32 << (i % 32));
    !(r.mask && masks[w] & bit != 0
        || r.begin && masks[words + w] & bit != 0
        || i < r.kill_end
        || i >= r.split && (i < r.ts_lo || i >= r.ts_hi))
}

/// CPU reference of `logit_stats.wgsl` for one row (f64 sums).
pub fn logit_stats_cpu(row: &[f32], masks: &[u32], mask_words: usize, r: &LogitRules) -> LogitStats {
    let mut max = [EMPTY; 2];
    let mut arg = [u32::MAX; 2];
    let mut gumbel = [EMPTY; 2];
    let mut garg = [u32::MAX; 2];
    let mut glogit = [EMPTY; 2];
    let groups = |i: u32| usize::from(i >= r.split);
    for (i, &x) in row.iter().enumerate() {
        let i = i as u32;
        if !allowed(i, masks, mask_words, r) {
            continue;
        }
        let g = groups(i);
        if x > max[g] {
            max[g] = x;
            arg[g] = i;
        }
        if let Some((t, seed)) = r.sample {
            let y = x * (1.0 / t) + gumbel_noise(seed, i);
            if y > gumbel[g] {
                gumbel[g] = y;
                garg[g] = i;
                glogit[g] = x;
            }
        }
    }
    let mut sum = [0f64; 2];
    for (i, &x) in row.iter().enumerate() {
        if allowed(i as u32, masks, mask_words, r) {
            let g = groups(i as u32);
            sum[g] += (x as f64 - max[g] as f64).exp();
        }
    }
    let lse = [0, 1].map(|g| if sum[g] > 0.0 { (max[g] as f64 + sum[g].ln()) as f32 } else { EMPTY });
    let probe = row[(r.probe as usize).min(row.len() - 1)];
    LogitStats { max, lse, arg, gumbel, garg, glogit, probe }
}

impl Recorder {
    /// Statistics of `logits` row `row` (width = vocab) into words
    /// [slot * 16, slot * 16 + 16) of `out`; `masks` holds the always-mask then
    /// the begin-mask, `mask_words` words each.
    #[allow(clippy::too_many_arguments)]
    pub fn logit_stats(
        &mut self,
        logits: &Mat,
        row: usize,
        masks: &wgpu::Buffer,
        mask_words: usize,
        r: &LogitRules,
        out: &wgpu::Buffer,
        slot: usize,
    ) {
        assert!(row < logits.rows, "logit_stats: row {row} of {}", logits.rows);
        let (temp, seed) = r.sample.unwrap_or((1.0, 0));
        let p = params::LogitStatsParams {
            vocab: logits.cols as u32,
            split: r.split,
            kill_end: r.kill_end,
            ts_lo: r.ts_lo,
            ts_hi: r.ts_hi,
            mask_words: mask_words as u32,
            flags: u32::from(r.mask) | u32::from(r.begin) << 1 | u32::from(r.sample.is_some()) << 2,
            inv_temp: 1.0 / temp,
            seed,
            probe: r.probe,
            row: row as u32,
            slot: slot as u32,
        };
        self.dispatch(KernelId::LogitStats, 0, &p, 1, &[(2, &logits.buf), (3, masks), (4, out)], (1, 1));
    }
}
