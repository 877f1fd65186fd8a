//! Lifetime-based reuse of activation buffers. An activation lives from the op
//! that writes it to the last op that reads it; a buffer freed after op i can
//! hold a tensor first written by op j > i. Inputs are freed only after their
//! last reader runs, so an op's outputs never alias its inputs.

use super::ir::{Graph, Rows, Storage, TensorId, OUTPUT_ROWS};

/// Which pooled slot each activation uses, and each slot's size in bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub slot_of: Vec<Option<usize>>,
    pub slot_bytes: Vec<u64>,
}

impl Assignment {
    pub fn total_bytes(&self) -> u64 {
        self.slot_bytes.iter().sum()
    }
}

pub fn activation_bytes(width: usize, rows: Rows, max_rows: usize) -> u64 {
    let rows = match rows {
        Rows::Tokens => max_rows,
        Rows::Outputs => max_rows.min(OUTPUT_ROWS),
        Rows::One => 1,
    };
    (width * rows * 4) as u64
}

/// Greedy best-fit assignment in execution order.
pub fn assign(graph: &Graph, max_rows: usize) -> Assignment {
    let n = graph.tensors.len();
    let mut last_use = vec![None::<usize>; n];
    for (i, op) in graph.ops.iter().enumerate() {
        for t in op.reads().into_iter().chain(op.writes()) {
            last_use[t.0 as usize] = Some(i);
        }
    }
    for t in &graph.outputs {
        last_use[t.0 as usize] = Some(usize::MAX);
    }
    let mut slot_of = vec![None; n];
    let mut slot_bytes: Vec<u64> = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    for (i, op) in graph.ops.iter().enumerate() {
        for t in op.writes() {
            let Storage::Activation { width, rows } = graph.tensors[t.0 as usize].storage else {
                continue;
            };
            if slot_of[t.0 as usize].is_some() {
                continue;
            }
            let need = activation_bytes(width, rows, max_rows);
            // Best fit among free slots; grow the largest free one if none fits.
            let fit = free
                .iter()
                .enumerate()
                .filter(|(_, s)| slot_bytes[**s] >= need)
                .min_by_key(|(_, s)| slot_bytes[**s])
                .map(|(k, _)| k)
                .or_else(|| free.iter().enumerate().max_by_key(|(_, s)| slot_bytes[**s]).map(|(k, _)| k));
            let slot = match fit {
                Some(k) => free.swap_remove(k),
                None => {
                    slot_bytes.push(0);
                    slot_bytes.len() - 1
                }
            };
            slot_bytes[slot] = slot_bytes[slot].max(need);
            slot_of[t.0 as usize] = Some(slot);
        }
        let mut seen = Vec::new();
        for t in op.reads().into_iter().chain(op.writes()) {
            if last_use[t.0 as usize] == Some(i) && !seen.contains(&t) {
                seen.push(t);
                if let Some(s) = slot_of[t.0 as usize] {
                    free.push(s);
                }
            }
        }
    }
    Assignment { slot_of, slot_bytes }
}

/// Live range [first write, last use] of every activation (for tests and dumps).
pub fn live_ranges(graph: &Graph) -> Vec<(TensorId, usize, usize)> {
    let mut first = vec![None::<usize>; graph.tensors.len()];
    let mut last = vec![0usize; graph.tensors.len()];
    for (i, op) in graph.ops.iter().enumerate() {
        for t in op.writes() {
            first[t.0 as usize].get_or_insert(i);
        }
        for t in op.reads().into_iter().chain(op.writes()) {
            last[t.0 as usize] = i;
        }
    }
    for t in &graph.outputs {
        last[t.0 as usize] = usize::MAX;
    }
    graph
        .tensors
        .iter()
        .enumerate()
        .filter(|(_, d)| matches!(d.storage, Storage::Activation { .. }))
        .filter_map(|(i, _)| first[i].map(|f| (TensorId(i as u32), f, last[i])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::ir::Op;

    fn chain(len: usize) -> Graph {
        let mut g = Graph::default();
        let mut x = g.activation("x0", 16, Rows::Tokens);
        let first = x;
        for i in 1..len {
            let y = g.activation(format!("x{i}"), 16 * (1 + i % 3), Rows::Tokens);
            // Each op also reads the very first tensor: it stays live throughout.
            g.push(Op::Add { a: x, b: first, out: y });
            x = y;
        }
        g.outputs.push(x);
        g
    }

    #[test]
    fn overlapping_lifetimes_never_share_a_slot() {
        let g = chain(12);
        let a = assign(&g, 4);
        let ranges = live_ranges(&g);
        for (i, (t1, s1, e1)) in ranges.iter().enumerate() {
            for (t2, s2, e2) in &ranges[i + 1..] {
                let overlap = s1 <= e2 && s2 <= e1;
                if overlap {
                    assert_ne!(a.slot_of[t1.0 as usize], a.slot_of[t2.0 as usize], "{t1:?} {t2:?}");
                }
            }
        }
        // A chain needs only a handful of buffers, not one per tensor.
        assert!(a.slot_bytes.len() <= 4, "{:?}", a.slot_bytes);
        for (t, _, _) in ranges {
            let s = a.slot_of[t.0 as usize].unwrap();
            assert!(a.slot_bytes[s] >= activation_bytes(g.width(t), Rows::Tokens, 4));
        }
    }
}
