//! [q_norm, k_norm] + rope + KV append + attention -> one `AttentionDecode`.

use super::{fuse, internal, writer, PassLimits, PassReport};
use crate::graph::ir::{AttentionDecode, Graph, Op};

pub fn run(g: &mut Graph, limits: &PassLimits) -> PassReport {
    let mut report = PassReport { pass: "attention_decode", fused: 0, skipped: vec![] };
    let outs: Vec<_> =
        g.ops.iter().filter_map(|op| if let Op::Attention { out, .. } = op { Some(*out) } else { None }).collect();
    for out in outs {
        let Some(i) = writer(g, out) else { continue };
        // A packed prefill's ops (`rows`) stay apart: several of their rows may share a sequence.
        let Op::Attention { q: qr, k_cache, v_cache, attrs, scale, rows: None, .. } = g.ops[i].clone() else {
            continue;
        };
        let Some(ri) = writer(g, qr) else { continue };
        let Op::Rope { q, k, cos_sin, q_out, k_out, attrs: rope, rows: None } = g.ops[ri].clone() else { continue };
        let Some(ai) = g.ops.iter().position(|op| matches!(op, Op::KvAppend { k, .. } if *k == k_out)) else {
            continue;
        };
        let Op::KvAppend { v, k_cache: kc, v_cache: vc, .. } = g.ops[ai].clone() else { continue };
        if kc != k_cache || vc != v_cache || q_out != qr || !internal(g, q_out, &[i]) || !internal(g, k_out, &[ai]) {
            report.skipped.push(format!("attention at op {i}: rope/append outputs used elsewhere"));
            continue;
        }
        let mut group = vec![ri, ai, i];
        let (mut q0, mut k0, mut qk_norm) = (q, k, None);
        if let (Some(qi), Some(ki)) = (writer(g, q), writer(g, k)) {
            if let (
                Op::RmsNorm { x: qx, weight: qw, dim, rows_per_token: qh, eps, add_unit: false, .. },
                Op::RmsNorm { x: kx, weight: kw, rows_per_token: kh, add_unit: false, .. },
            ) = (g.ops[qi].clone(), g.ops[ki].clone())
            {
                if dim == attrs.head_dim
                    && qh == attrs.n_heads
                    && kh == attrs.n_kv_heads
                    && internal(g, q, &[ri])
                    && internal(g, k, &[ri])
                {
                    group.extend([qi, ki]);
                    (q0, k0, qk_norm) = (qx, kx, Some((qw, kw, eps)));
                }
            }
        }
        let op = Op::AttentionDecode(AttentionDecode {
            q: q0,
            k: k0,
            v,
            cos_sin,
            qk_norm,
            k_cache,
            v_cache,
            out,
            attrs,
            rope,
            scale,
        });
        match fuse(g, &group, op, limits) {
            Ok(()) => report.fused += 1,
            Err(e) => report.skipped.push(e),
        }
    }
    report
}
