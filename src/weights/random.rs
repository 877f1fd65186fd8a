//! Random weights of a real configuration, for benchmarks that must not
//! depend on a download: same shapes and bytes moved as the real model.

use super::{TensorSource, WeightError};

pub struct RandomSource {
    pub seed: u64,
    pub scale: f32,
}

impl RandomSource {
    fn stream(&self, name: &str) -> u64 {
        // FNV-1a of the name mixed with the seed: each tensor gets its own stream.
        name.bytes().fold(0xcbf29ce484222325u64 ^ self.seed, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3))
    }
}

impl TensorSource for RandomSource {
    fn contains(&self, _name: &str) -> bool {
        // Untied lm_head and every optional tensor exist.
        true
    }

    fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightError> {
        let n: usize = shape.iter().product();
        let mut x = self.stream(name) | 1;
        let is_norm = shape.len() == 1 && name.contains("norm");
        Ok((0..n)
            .map(|_| {
                // xorshift64*: fast and good enough for weights nobody reads.
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                let u = (x.wrapping_mul(0x2545F4914F6CDD1D) >> 40) as f32 / (1u64 << 24) as f32;
                if is_norm {
                    1.0
                } else {
                    (u * 2.0 - 1.0) * self.scale
                }
            })
            .collect())
    }
}
