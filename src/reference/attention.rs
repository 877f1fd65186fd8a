//! Reference causal attention over a KV cache with grouped-query heads.

/// One layer's cache in the GPU layout: [kv_head][max_seq][head_dim].
pub struct KvCache {
    pub k: Vec<f32>,
    pub v: Vec<f32>,
    pub n_kv_heads: usize,
    pub max_seq: usize,
    pub head_dim: usize,
}

impl KvCache {
    pub fn new(n_kv_heads: usize, max_seq: usize, head_dim: usize) -> Self {
        let len = n_kv_heads * max_seq * head_dim;
        KvCache { k: vec![0.0; len], v: vec![0.0; len], n_kv_heads, max_seq, head_dim }
    }

    /// Writes rows of k and v ([rows, n_kv_heads * head_dim]) at pos0, pos0 + 1, ...
    pub fn append(&mut self, k: &[f32], v: &[f32], pos0: usize) {
        let width = self.n_kv_heads * self.head_dim;
        for (r, (kr, vr)) in k.chunks(width).zip(v.chunks(width)).enumerate() {
            for col in 0..width {
                let (h, d) = (col / self.head_dim, col % self.head_dim);
                let dst = (h * self.max_seq + pos0 + r) * self.head_dim + d;
                self.k[dst] = kr[col];
                self.v[dst] = vr[col];
            }
        }
    }
}

/// Softmax attention of q rows ([rows, n_heads * head_dim], row r at pos0 + r)
/// over cache positions 0..=pos0 + r, accumulated in f64.
pub fn attention(q: &[f32], cache: &KvCache, n_heads: usize, pos0: usize, scale: f32) -> Vec<f32> {
    let hd = cache.head_dim;
    let group = n_heads / cache.n_kv_heads;
    let rows = q.len() / (n_heads * hd);
    let mut out = vec![0f32; q.len()];
    for r in 0..rows {
        let len = pos0 + r + 1;
        for h in 0..n_heads {
            let kvh = h / group;
            let qv = &q[(r * n_heads + h) * hd..][..hd];
            let base = kvh * cache.max_seq * hd;
            let scores: Vec<f64> = (0..len)
                .map(|j| {
                    let kv = &cache.k[base + j * hd..][..hd];
                    qv.iter().zip(kv).map(|(a, b)| *a as f64 * *b as f64).sum::<f64>() * scale as f64
                })
                .collect();
            let m = scores.iter().cloned().fold(f64::MIN, f64::max);
            let e: Vec<f64> = scores.iter().map(|s| (s - m).exp()).collect();
            let sum: f64 = e.iter().sum();
            for d in 0..hd {
                let acc: f64 = (0..len).map(|j| e[j] * cache.v[base + j * hd + d] as f64).sum();
                out[(r * n_heads + h) * hd + d] = (acc / sum) as f32;
            }
        }
    }
    out
}
