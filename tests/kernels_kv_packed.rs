//! Packed KV caches, f16 (`KvDtype::F16`) and fp8 (E4M3): every kernel that
//! writes a cache stores each value as its type holds it (f16: one of the two nearest halves, WGSL
//! leaving the choice to the adapter; fp8: exactly `KvDtype::encode`'s code, the kernels' own integer
//! steps), leaves every other value alone, and every kernel that reads a cache attends over exactly
//! the values stored: the plain-Rust reference attends over the cache read back, at the tolerances of
//! the f32 cache tests. The decode kernels also use the new token's k and v as stored, not as
//! computed, so a position attends alike whether its row came from this step or from the cache.

mod common;

use std::sync::Arc;

use common::{assert_close, gpu, randn, rng, rope_table};
use gerbil::gpu::kv_dtype::{fp8_decode, fp8_encode};
use gerbil::gpu::{KernelId, KvDtype};
use gerbil::graph::ir::{AttentionDecode, AttnShape, RopeAttrs};
use gerbil::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::reference::{self, KvCache};

fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(&gpu(), label, data, cols).unwrap())
}

const PACKED: [KvDtype; 2] = [KvDtype::F16, KvDtype::Fp8];

/// The spacing of `dtype`'s values around `x` (normal numbers; the subnormal spacing below them).
fn spacing(dtype: KvDtype, x: f32) -> f32 {
    let (mantissa_bits, min_exp) = match dtype {
        KvDtype::F16 => (10.0, -14.0),
        KvDtype::Fp8 => (3.0, -6.0),
        KvDtype::F32 => (23.0, -126.0),
    };
    let e = x.abs().max(f32::MIN_POSITIVE).log2().floor().max(min_exp);
    (e - mantissa_bits).exp2()
}

/// Each stored value is what the type holds for the exact one: fp8 exactly the encoder's code; f16
/// either neighbour (within one spacing, and equal where the value is an f16 itself).
fn assert_stored(what: &str, dtype: KvDtype, stored: &[f32], exact: &[f32]) {
    assert_eq!(stored.len(), exact.len(), "{what}: lengths");
    for (i, (&s, &x)) in stored.iter().zip(exact).enumerate() {
        let ok = match dtype {
            KvDtype::Fp8 => s.to_bits() == fp8_decode(fp8_encode(x)).to_bits(),
            _ => {
                let h = half::f16::from_f32(x).to_f32();
                if h == x {
                    s == x
                } else {
                    (s - x).abs() < spacing(dtype, x) && half::f16::from_f32(s).to_f32() == s
                }
            }
        };
        assert!(ok, "{what}: value {i} stored as {s} for {x}");
    }
}

/// The cache values at `(slot, kv head, position)` rows: (start, len) ranges of a [slots, nkv, max_seq, hd] cache.
fn row_range(slot: usize, kvh: usize, pos: usize, nkv: usize, max_seq: usize, hd: usize) -> std::ops::Range<usize> {
    let at = ((slot * nkv + kvh) * max_seq + pos) * hd;
    at..at + hd
}

/// `before` with the rows the step wrote ((slot, pos, k or v row of every kv head)) replaced by what
/// the GPU stored, after checking those against the exact values; every other value must be unchanged.
fn check_writes(
    what: &str,
    dtype: KvDtype,
    before: &[f32],
    after: &[f32],
    writes: &[(usize, usize, Vec<f32>)],
    shape: (usize, usize, usize),
) {
    let (nkv, max_seq, hd) = shape;
    let mut want = before.to_vec();
    for (slot, pos, row) in writes {
        for kvh in 0..nkv {
            let r = row_range(*slot, kvh, *pos, nkv, max_seq, hd);
            let exact = &row[kvh * hd..(kvh + 1) * hd];
            let at = format!("{what}: slot {slot} position {pos} head {kvh}");
            assert_stored(&at, dtype, &after[r.clone()], exact);
            want[r.clone()].copy_from_slice(&after[r]);
        }
    }
    assert_eq!(after, &want[..], "{what}: a value the step did not write changed");
}

/// Rows the CPU computed (rope, norms) a float rounding (up to `slack`) apart from the GPU's, which can
/// land on the other side of a midpoint of the type: each stored value must be within one spacing of
/// the CPU's, and is then the exact row `check_writes` holds the store to.
fn as_stored(
    what: &str,
    dtype: KvDtype,
    after: &[f32],
    writes: &[(usize, usize, Vec<f32>)],
    (nkv, max_seq, hd): (usize, usize, usize),
    slack: f32,
) -> Vec<(usize, usize, Vec<f32>)> {
    let mut rounded = writes.to_vec();
    for (slot, p, row) in &mut rounded {
        for kvh in 0..nkv {
            let got = &after[row_range(*slot, kvh, *p, nkv, max_seq, hd)];
            for (x, &s) in row[kvh * hd..(kvh + 1) * hd].iter_mut().zip(got) {
                assert!((s - *x).abs() <= spacing(dtype, *x) + slack, "{what}: {s} for {x}");
                *x = s;
            }
        }
    }
    rounded
}

/// The reference attention of each (slot, position) row's q over its slot's read-back cache.
fn attend_rows(
    rows: &[(usize, usize)],
    q_rows: &[&[f32]],
    (k, v): (&[f32], &[f32]),
    (nkv, max_seq, hd): (usize, usize, usize),
    nh: usize,
    scale: f32,
) -> Vec<f32> {
    rows.iter()
        .zip(q_rows)
        .flat_map(|(&(slot, p), q)| reference::attention(q, &slot_cache(k, v, slot, nkv, max_seq, hd), nh, p, scale))
        .collect()
}

/// KvCache of one slot's region of a read-back cache pair.
fn slot_cache(k: &[f32], v: &[f32], slot: usize, nkv: usize, max_seq: usize, hd: usize) -> KvCache {
    let len = nkv * max_seq * hd;
    let mut c = KvCache::new(nkv, max_seq, hd);
    c.k.copy_from_slice(&k[slot * len..(slot + 1) * len]);
    c.v.copy_from_slice(&v[slot * len..(slot + 1) * len]);
    c
}

/// KV append then prefill attention over two steps (a prompt chunk, then one more row), so the
/// second step attends over halves the first stored: attention.wgsl (head_dim 16), the tiled kernel
/// (head_dim % 32 == 0) and, for a one-row step, the decode kernel in its PREPARED mode.
#[test]
fn append_and_prefill_attention_over_packed_caches() {
    let mut r = rng("kv packed prefill");
    let cases = [(4, 2, 16, 5, 1, 32), (6, 3, 64, 70, 2, 100), (3, 1, 96, 37, 1, 50)];
    for (dtype, (nh, nkv, hd, m1, m2, max_seq)) in PACKED.into_iter().flat_map(|d| cases.map(|c| (d, c))) {
        let scale = 1.0 / (hd as f32).sqrt();
        let len = nkv * max_seq * hd;
        // Stale values everywhere (a reused region): a row must see only positions up to its own.
        let kc = DeviceTensor::kv(&gpu(), "k_cache", &randn(&mut r, len), hd, dtype).unwrap();
        let vc = DeviceTensor::kv(&gpu(), "v_cache", &randn(&mut r, len), hd, dtype).unwrap();
        let mut pos0 = 0;
        for m in [m1, m2] {
            let (q, mut k, mut v) =
                (randn(&mut r, m * nh * hd), randn(&mut r, m * nkv * hd), randn(&mut r, m * nkv * hd));
            // Values where an encoding goes wrong first: past the largest fp8 (saturating), halfway between
            // two codes (to the even one; a mantissa carry into the exponent), subnormal halfway cases, the
            // top of the subnormals, a negative zero.
            let edges =
                [1000.0, -600.0, 1.0625, 1.1875, -1.9375, 1.5 / 512.0, 2.5 / 512.0, 1.0 / 64.0 - 1.0 / 4096.0, -0.0];
            k[..edges.len()].copy_from_slice(&edges);
            v[m * nkv * hd - edges.len()..].copy_from_slice(&edges);
            let (k_before, v_before) = (kc.read_values(&gpu()).unwrap(), vc.read_values(&gpu()).unwrap());
            let mut g = Graph::default();
            let (qt, kt, vt) =
                (f32t(&mut g, "q", &q, nh * hd), f32t(&mut g, "k", &k, nkv * hd), f32t(&mut g, "v", &v, nkv * hd));
            let (kct, vct) = (g.bound("kc", Arc::clone(&kc)), g.bound("vc", Arc::clone(&vc)));
            let out = g.activation("out", nh * hd, Rows::Tokens);
            let shape = AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq };
            g.push(Op::KvAppend { k: kt, v: vt, k_cache: kct, v_cache: vct, attrs: shape, rows: None });
            g.push(Op::Attention { q: qt, k_cache: kct, v_cache: vct, out, attrs: shape, scale, rows: None });
            g.outputs.push(out);
            let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: m, ..Default::default() }).unwrap();
            let attention_kernel = plan.dispatch_specs().nth(1).unwrap().kernel;
            plan.poison_activations();
            plan.run(m, pos0);
            let (k_after, v_after) = (kc.read_values(&gpu()).unwrap(), vc.read_values(&gpu()).unwrap());
            let w = nkv * hd;
            let what = format!("{dtype} hd={hd} m={m} pos0={pos0} ({attention_kernel:?})");
            let rows = |x: &[f32]| -> Vec<(usize, usize, Vec<f32>)> {
                (0..m).map(|i| (0, pos0 + i, x[i * w..(i + 1) * w].to_vec())).collect()
            };
            check_writes(&format!("k cache, {what}"), dtype, &k_before, &k_after, &rows(&k), (nkv, max_seq, hd));
            check_writes(&format!("v cache, {what}"), dtype, &v_before, &v_after, &rows(&v), (nkv, max_seq, hd));
            let cache = slot_cache(&k_after, &v_after, 0, nkv, max_seq, hd);
            let want = reference::attention(&q, &cache, nh, pos0, scale);
            assert_close(&format!("attention, {what}"), &plan.read_f32(out, q.len()).unwrap(), &want, 2e-5, 1e-4);
            pos0 += m;
        }
    }
}

/// A packed prefill's row kernels (rope, KV append and attention at each row's own slot and position)
/// over f16 caches: rows of one slot out of order and interleaved with another's, a slot left alone.
#[test]
fn row_kernels_over_packed_caches() {
    let mut r = rng("kv packed rows");
    let cases = [(4, 2, 16, 40), (4, 1, 32, 1100)];
    for (dtype, (nh, nkv, hd, max_seq)) in PACKED.into_iter().flat_map(|d| cases.map(|c| (d, c))) {
        let slots = 3;
        let (qw, kvw) = (nh * hd, nkv * hd);
        let table = rope_table(max_seq, hd);
        let rows: Vec<(usize, usize)> = vec![(1, 7), (2, 3), (1, 5), (2, max_seq - 1), (1, 6), (2, 0)];
        let m = rows.len();
        let len = slots * nkv * max_seq * hd;
        let kc = DeviceTensor::kv(&gpu(), "kc", &randn(&mut r, len), hd, dtype).unwrap();
        let vc = DeviceTensor::kv(&gpu(), "vc", &randn(&mut r, len), hd, dtype).unwrap();
        let (k_before, v_before) = (kc.read_values(&gpu()).unwrap(), vc.read_values(&gpu()).unwrap());
        let (q, k, v) = (randn(&mut r, m * qw), randn(&mut r, m * kvw), randn(&mut r, m * kvw));
        let mut g = Graph::default();
        let (qt, kt, vt) = (f32t(&mut g, "q", &q, qw), f32t(&mut g, "k", &k, kvw), f32t(&mut g, "v", &v, kvw));
        let flat: Vec<f32> = table.iter().flatten().copied().collect();
        let cs = f32t(&mut g, "cos_sin", &flat, 2);
        let (kct, vct) = (g.bound("kc", kc.clone()), g.bound("vc", vc.clone()));
        let pairs: Vec<u32> = rows.iter().flat_map(|&(s, p)| [s as u32, p as u32]).collect();
        let rows_t = Some(g.bound("rows", DeviceTensor::u32(&gpu(), "rows", &pairs).unwrap()));
        let (qr, kr) = (g.activation("q_rope", qw, Rows::Tokens), g.activation("k_rope", kvw, Rows::Tokens));
        let out = g.activation("out", qw, Rows::Tokens);
        let shape = AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq };
        let rope = RopeAttrs {
            n_q_heads: nh,
            n_kv_heads: nkv,
            head_dim: hd,
            rotary_dim: hd,
            interleaved: false,
            max_pos: max_seq,
        };
        let scale = 1.0 / (hd as f32).sqrt();
        g.push(Op::Rope { q: qt, k: kt, cos_sin: cs, q_out: qr, k_out: kr, attrs: rope, rows: rows_t });
        g.push(Op::KvAppend { k: kr, v: vt, k_cache: kct, v_cache: vct, attrs: shape, rows: rows_t });
        g.push(Op::Attention { q: qr, k_cache: kct, v_cache: vct, out, attrs: shape, scale, rows: rows_t });
        g.outputs.extend([qr, out]);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: m, ..Default::default() }).unwrap();
        let kernels: Vec<KernelId> = plan.dispatch_specs().map(|d| d.kernel).collect();
        assert_eq!(kernels, [KernelId::RopeRows, KernelId::KvAppendRows, KernelId::AttentionRows]);
        plan.poison_activations();
        plan.set_rows_context(rows.iter().map(|r| r.1 + 1).max().unwrap());
        plan.run(m, 0);
        let (k_after, v_after) = (kc.read_values(&gpu()).unwrap(), vc.read_values(&gpu()).unwrap());
        let q_rope = plan.read_f32(qr, m * qw).unwrap();
        let mut k_writes = Vec::new();
        let mut v_writes = Vec::new();
        for (i, &(slot, p)) in rows.iter().enumerate() {
            let k_rope = reference::rope(&k[i * kvw..(i + 1) * kvw], nkv, hd, hd, false, &table, &[p]);
            k_writes.push((slot, p, k_rope));
            v_writes.push((slot, p, v[i * kvw..(i + 1) * kvw].to_vec()));
        }
        let what = format!("rows, {dtype} hd={hd} max_seq={max_seq}");
        // Rope's own rounding is checked in tests/packed_prefill.rs.
        let shape = (nkv, max_seq, hd);
        let k_rounded = as_stored(&format!("k row, {what}"), dtype, &k_after, &k_writes, shape, 1e-6);
        check_writes(&format!("k cache, {what}"), dtype, &k_before, &k_after, &k_rounded, shape);
        check_writes(&format!("v cache, {what}"), dtype, &v_before, &v_after, &v_writes, shape);
        let q_rows: Vec<&[f32]> = q_rope.chunks(qw).collect();
        let want = attend_rows(&rows, &q_rows, (&k_after, &v_after), shape, nh, scale);
        assert_close(&format!("attention, {what}"), &plan.read_f32(out, m * qw).unwrap(), &want, 2e-5, 1e-4);
    }
}

/// The fused decode attention (q / k norms, rope, the append and the attention in one kernel), for one
/// sequence and for a batched step's rows (each at its own slot and position): the new position's row
/// is stored packed, and the new token attends to its own k and v as stored. At position 0 the output
/// is the new token's value itself, so using it unrounded (f16: up to 2^-12 relative off) fails the
/// 1e-4 check; at 700 the context splits over several workgroups.
#[test]
fn fused_decode_attention_over_packed_caches() {
    let mut r = rng("kv packed decode");
    let cases = [
        (4, 2, 64, vec![(0usize, 0usize)]),
        (4, 2, 64, vec![(0, 2)]),
        (6, 2, 32, vec![(0, 700)]),
        (4, 1, 64, vec![(2, 3), (0, 130), (1, 0)]),
    ];
    for (dtype, (nh, nkv, hd, rows)) in PACKED.into_iter().flat_map(|d| cases.clone().map(|c| (d, c))) {
        let slots = 3;
        let max_seq = 720;
        let batched = rows.len() > 1;
        let m = rows.len();
        let (qw, kvw) = (nh * hd, nkv * hd);
        let table = rope_table(max_seq, hd);
        let len = slots * nkv * max_seq * hd;
        let kc = DeviceTensor::kv(&gpu(), "kc", &randn(&mut r, len), hd, dtype).unwrap();
        let vc = DeviceTensor::kv(&gpu(), "vc", &randn(&mut r, len), hd, dtype).unwrap();
        let (k_before, v_before) = (kc.read_values(&gpu()).unwrap(), vc.read_values(&gpu()).unwrap());
        let (q, k, v) = (randn(&mut r, m * qw), randn(&mut r, m * kvw), randn(&mut r, m * kvw));
        let (qn, kn) = (randn(&mut r, hd), randn(&mut r, hd));
        let mut g = Graph::default();
        let (qt, kt, vt) = (f32t(&mut g, "q", &q, qw), f32t(&mut g, "k", &k, kvw), f32t(&mut g, "v", &v, kvw));
        let flat: Vec<f32> = table.iter().flatten().copied().collect();
        let cs = f32t(&mut g, "cos_sin", &flat, 2);
        let (qnt, knt) = (f32t(&mut g, "qn", &qn, hd), f32t(&mut g, "kn", &kn, hd));
        let (kct, vct) = (g.bound("kc", kc.clone()), g.bound("vc", vc.clone()));
        let out = g.activation("out", qw, Rows::Tokens);
        let attrs = AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq };
        let rope = RopeAttrs {
            n_q_heads: nh,
            n_kv_heads: nkv,
            head_dim: hd,
            rotary_dim: hd,
            interleaved: false,
            max_pos: max_seq,
        };
        let scale = 1.0 / (hd as f32).sqrt();
        let attn = AttentionDecode {
            q: qt,
            k: kt,
            v: vt,
            cos_sin: cs,
            qk_norm: Some((qnt, knt, 1e-6)),
            k_cache: kct,
            v_cache: vct,
            out,
            attrs,
            rope,
            scale,
        };
        let pairs: Vec<u32> = rows.iter().flat_map(|&(s, p)| [s as u32, p as u32]).collect();
        if batched {
            let rows_t = g.bound("rows", DeviceTensor::u32(&gpu(), "rows", &pairs).unwrap());
            g.push(Op::AttentionRows { attn, rows: rows_t });
        } else {
            g.push(Op::AttentionDecode(attn));
        }
        g.outputs.push(out);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: m, ..Default::default() }).unwrap();
        plan.poison_activations();
        if batched {
            plan.set_rows_context(rows.iter().map(|r| r.1 + 1).max().unwrap());
            plan.run(m, 0);
        } else {
            plan.run(1, rows[0].1);
        }
        let (k_after, v_after) = (kc.read_values(&gpu()).unwrap(), vc.read_values(&gpu()).unwrap());
        let mut k_writes = Vec::new();
        let mut v_writes = Vec::new();
        let mut q_final = Vec::new();
        for (i, &(slot, p)) in rows.iter().enumerate() {
            let qi = reference::rmsnorm(&q[i * qw..(i + 1) * qw], &qn, hd, 1e-6, false);
            let ki = reference::rmsnorm(&k[i * kvw..(i + 1) * kvw], &kn, hd, 1e-6, false);
            q_final.push(reference::rope(&qi, nh, hd, hd, false, &table, &[p]));
            k_writes.push((slot, p, reference::rope(&ki, nkv, hd, hd, false, &table, &[p])));
            v_writes.push((slot, p, v[i * kvw..(i + 1) * kvw].to_vec()));
        }
        let what = format!("{dtype} nh={nh} nkv={nkv} hd={hd} rows {rows:?}");
        // k is normed and roped first: its f32 rounding is up to ~1e-5 here.
        let shape = (nkv, max_seq, hd);
        let k_rounded = as_stored(&format!("k row, {what}"), dtype, &k_after, &k_writes, shape, 1e-5);
        check_writes(&format!("k cache, {what}"), dtype, &k_before, &k_after, &k_rounded, shape);
        check_writes(&format!("v cache, {what}"), dtype, &v_before, &v_after, &v_writes, shape);
        let q_rows: Vec<&[f32]> = q_final.iter().map(|q| &q[..]).collect();
        let want = attend_rows(&rows, &q_rows, (&k_after, &v_after), shape, nh, scale);
        assert_close(&format!("attention, {what}"), &plan.read_f32(out, m * qw).unwrap(), &want, 2e-5, 1e-4);
    }
}
