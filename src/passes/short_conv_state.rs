//! LFM2 short conv + the conv-state shift that follows it -> one dispatch
//! (`short_conv_update.wgsl`): one thread per channel reads the state window
//! once, writes the output and the shifted state, saving a launch and a
//! re-read of `bcx` per conv layer.

use super::{fuse, PassLimits, PassReport};
use crate::graph::ir::{Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "short_conv_state", fused: 0, skipped: vec![] };
    let outs: Vec<_> = g
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::ShortConv(c) if !c.update_state => Some(c.out),
            _ => None,
        })
        .collect();
    for out in outs {
        let Some(ci) = g.ops.iter().position(|op| matches!(op, Op::ShortConv(c) if c.out == out)) else { continue };
        let Op::ShortConv(mut conv) = g.ops[ci].clone() else { continue };
        // The update of the same state from the same rows, after the conv read it.
        let Some(ui) = g.ops.iter().enumerate().skip(ci + 1).find_map(|(i, op)| {
            matches!(op, Op::ConvStateUpdate { bcx, state, attrs }
                if *bcx == conv.bcx && *state == conv.state && *attrs == conv.attrs)
            .then_some(i)
        }) else {
            continue;
        };
        conv.update_state = true;
        match fuse(g, &[ci, ui], Op::ShortConv(conv), limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
