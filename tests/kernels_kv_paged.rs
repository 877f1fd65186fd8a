//! Paged KV caches (`KvPaging`): the batched rows kernels (KV append, and attention in its PREPARED
//! mode of a packed prefill and its fused decode mode) read and write each sequence's positions
//! through a block table into a pool laid out [kv_head][block][position][head_dim]. Checked on random
//! inputs against the same kernels over the contiguous layout (bit for bit: the addressing is the only
//! difference) and against the plain-Rust attention over the pool read back through the table, with
//! rows on both sides of block boundaries, blocks in shuffled order, contexts split over several
//! workgroups, and pool blocks no table names left untouched.

mod common;

use std::sync::Arc;

use common::{assert_close, gpu, randn, rng, rope_table};
use gerbil::gpu::{KernelId, KvDtype, KvPaging};
use gerbil::graph::ir::{AttentionDecode, AttnShape, RopeAttrs};
use gerbil::graph::tensor::KvPages;
use gerbil::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::reference::{self, KvCache};
use rand::seq::SliceRandom;

const SHIFT: u32 = 4;
const B: usize = 1 << SHIFT;
const SLOTS: usize = 3;

fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(&gpu(), label, data, cols).unwrap())
}

/// A pool with room for every slot's whole context plus `spare` blocks, its blocks handed out in a
/// shuffled order: (paging, table [slots, stride]).
fn shuffled_pool(r: &mut rand::rngs::StdRng, max_seq: usize, spare: usize) -> (KvPaging, Vec<u32>) {
    let stride = max_seq.div_ceil(B);
    let blocks = SLOTS * stride + spare;
    let mut order: Vec<u32> = (0..blocks as u32).collect();
    order.shuffle(r);
    let paging = KvPaging { block_shift: SHIFT, blocks: blocks as u32, table_stride: stride as u32 };
    (paging, order[..SLOTS * stride].to_vec())
}

/// Where (slot, kv head, position) lives in the contiguous layout and in the pool.
struct Layout<'a> {
    nkv: usize,
    max_seq: usize,
    hd: usize,
    paging: KvPaging,
    table: &'a [u32],
}

impl Layout<'_> {
    fn contiguous(&self, slot: usize, kvh: usize, pos: usize) -> usize {
        ((slot * self.nkv + kvh) * self.max_seq + pos) * self.hd
    }

    fn paged(&self, slot: usize, kvh: usize, pos: usize) -> usize {
        let b = self.table[slot * self.paging.table_stride as usize + pos / B] as usize;
        ((kvh * self.paging.blocks as usize + b) * B + pos % B) * self.hd
    }

    fn pool_len(&self) -> usize {
        self.nkv * self.paging.blocks as usize * B * self.hd
    }

    /// The contiguous cache `flat` laid into a pool whose unnamed blocks hold `filler`.
    fn to_pool(&self, flat: &[f32], filler: &[f32]) -> Vec<f32> {
        let mut pool = filler.to_vec();
        self.each_row(|c, p| pool[p..p + self.hd].copy_from_slice(&flat[c..c + self.hd]));
        pool
    }

    /// The pool read through the table (the contiguous cache it stands for).
    fn read_pool(&self, pool: &[f32]) -> Vec<f32> {
        let mut flat = vec![0.0; SLOTS * self.nkv * self.max_seq * self.hd];
        self.each_row(|c, p| flat[c..c + self.hd].copy_from_slice(&pool[p..p + self.hd]));
        flat
    }

    /// The pool's values in blocks no table entry names.
    fn unnamed(&self, pool: &[f32]) -> Vec<f32> {
        let named: std::collections::HashSet<u32> = self.table.iter().copied().collect();
        let mut out = Vec::new();
        for kvh in 0..self.nkv {
            for b in (0..self.paging.blocks).filter(|b| !named.contains(b)) {
                let at = (kvh * self.paging.blocks as usize + b as usize) * B * self.hd;
                out.extend_from_slice(&pool[at..at + B * self.hd]);
            }
        }
        out
    }

    fn each_row(&self, mut f: impl FnMut(usize, usize)) {
        for slot in 0..SLOTS {
            for kvh in 0..self.nkv {
                for pos in 0..self.max_seq {
                    f(self.contiguous(slot, kvh, pos), self.paged(slot, kvh, pos));
                }
            }
        }
    }
}

/// The cache pair of one run: `k` and `v` as contiguous caches, or laid into paged pools (blocks no
/// table names hold `filler`).
fn caches(dtype: KvDtype, k: &[f32], v: &[f32], l: &Layout, paged: Option<&[f32]>) -> [Arc<DeviceTensor>; 2] {
    let Some(filler) = paged else {
        return [k, v].map(|x| DeviceTensor::kv(&gpu(), "cache", x, l.hd, dtype).unwrap());
    };
    let table = DeviceTensor::u32(&gpu(), "block table", l.table).unwrap();
    let pages = KvPages { paging: l.paging, table: table.buffer().clone() };
    [k, v].map(|x| DeviceTensor::kv_paged(&gpu(), "pool", &l.to_pool(x, filler), l.hd, dtype, pages.clone()).unwrap())
}

/// What one run leaves: the step's outputs, the caches read back as contiguous ones (through the table
/// where paged), the paged pools' unnamed blocks, and the kernels that ran.
#[derive(PartialEq, Debug)]
struct Run {
    outs: Vec<Vec<f32>>,
    k: Vec<f32>,
    v: Vec<f32>,
    unnamed: Vec<f32>,
    kernels: Vec<KernelId>,
}

/// Builds the step's graph over the bound caches (returning the outputs to read and their lengths),
/// runs it over `rows`, and reads everything back.
fn run(
    l: &Layout,
    [kc, vc]: [Arc<DeviceTensor>; 2],
    rows: &[(usize, usize)],
    build: impl FnOnce(&mut Graph, TensorId, TensorId, TensorId) -> Vec<(TensorId, usize)>,
) -> Run {
    let mut g = Graph::default();
    let (kct, vct) = (g.bound("kc", kc.clone()), g.bound("vc", vc.clone()));
    let pairs: Vec<u32> = rows.iter().flat_map(|&(s, p)| [s as u32, p as u32]).collect();
    let rows_t = g.bound("rows", DeviceTensor::u32(&gpu(), "rows", &pairs).unwrap());
    let outs = build(&mut g, kct, vct, rows_t);
    g.outputs.extend(outs.iter().map(|o| o.0));
    let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: rows.len(), ..Default::default() }).unwrap();
    plan.poison_activations();
    plan.set_rows_context(rows.iter().map(|r| r.1 + 1).max().unwrap());
    plan.run(rows.len(), 0);
    let (k, v) = (kc.read_values(&gpu()).unwrap(), vc.read_values(&gpu()).unwrap());
    let paged = kc.kv_pages().is_some();
    let (k, v, unnamed) = if paged {
        (l.read_pool(&k), l.read_pool(&v), [l.unnamed(&k), l.unnamed(&v)].concat())
    } else {
        (k, v, Vec::new())
    };
    Run {
        outs: outs.iter().map(|&(t, n)| plan.read_f32(t, n).unwrap()).collect(),
        k,
        v,
        unnamed,
        kernels: plan.dispatch_specs().map(|d| d.kernel).collect(),
    }
}

/// The reference attention of each (slot, position) row's q over its slot's part of a contiguous cache.
fn attend_rows(
    rows: &[(usize, usize)],
    q: &[f32],
    k: &[f32],
    v: &[f32],
    l: &Layout,
    nh: usize,
    scale: f32,
) -> Vec<f32> {
    let len = l.nkv * l.max_seq * l.hd;
    rows.iter()
        .zip(q.chunks(nh * l.hd))
        .flat_map(|(&(slot, p), qr)| {
            let mut c = KvCache::new(l.nkv, l.max_seq, l.hd);
            c.k.copy_from_slice(&k[slot * len..(slot + 1) * len]);
            c.v.copy_from_slice(&v[slot * len..(slot + 1) * len]);
            reference::attention(qr, &c, nh, p, scale)
        })
        .collect()
}

fn rope_attrs(nh: usize, nkv: usize, hd: usize, max_seq: usize) -> RopeAttrs {
    RopeAttrs { n_q_heads: nh, n_kv_heads: nkv, head_dim: hd, rotary_dim: hd, interleaved: false, max_pos: max_seq }
}

/// The paged run equals the contiguous one bit for bit, left every unnamed block alone, and its
/// attention matches the reference over its own cache.
fn check(
    what: &str,
    dtype: KvDtype,
    (paged, flat): (&Run, &Run),
    filler: &[f32],
    l: &Layout,
    want_attention: Vec<f32>,
) {
    assert_eq!(paged.kernels, flat.kernels, "{what}: kernels");
    assert!(paged.outs == flat.outs, "{what}: outputs differ from the contiguous layout's");
    assert!(paged.k == flat.k && paged.v == flat.v, "{what}: caches differ from the contiguous layout's");
    let untouched = dtype.decode(&dtype.encode(&l.unnamed(filler)));
    assert!(paged.unnamed == [&untouched[..], &untouched[..]].concat(), "{what}: a block no table names changed");
    assert_close(&format!("attention, {what}"), paged.outs.last().unwrap(), &want_attention, 2e-5, 1e-4);
}

/// A packed prefill step (rope, KV append and attention at each row's slot and position): rows of one
/// slot out of order, on both sides of block boundaries, the last position of a slot.
#[test]
fn packed_prefill_rows_over_a_paged_pool() {
    let mut r = rng("kv paged rows");
    let cases = [(4, 2, 16, 40), (4, 1, 32, 130)];
    for (dtype, (nh, nkv, hd, max_seq)) in
        [KvDtype::F32, KvDtype::F16, KvDtype::Fp8].into_iter().flat_map(|d| cases.map(|c| (d, c)))
    {
        let (paging, table) = shuffled_pool(&mut r, max_seq, 5);
        let l = Layout { nkv, max_seq, hd, paging, table: &table };
        let rows: Vec<(usize, usize)> =
            vec![(1, 16), (2, 15), (1, 15), (2, max_seq - 1), (1, 17), (2, 0), (0, 31), (0, 32)];
        let m = rows.len();
        let (qw, kvw) = (nh * hd, nkv * hd);
        let len = SLOTS * nkv * max_seq * hd;
        let (k0, v0, filler) = (randn(&mut r, len), randn(&mut r, len), randn(&mut r, l.pool_len()));
        let (q, k, v) = (randn(&mut r, m * qw), randn(&mut r, m * kvw), randn(&mut r, m * kvw));
        let rope_tab: Vec<f32> = rope_table(max_seq, hd).iter().flatten().copied().collect();
        let scale = 1.0 / (hd as f32).sqrt();
        let step = |paged: bool| {
            run(&l, caches(dtype, &k0, &v0, &l, paged.then_some(&filler[..])), &rows, |g, kct, vct, rows_t| {
                let (qt, kt, vt) = (f32t(g, "q", &q, qw), f32t(g, "k", &k, kvw), f32t(g, "v", &v, kvw));
                let cs = f32t(g, "cos_sin", &rope_tab, 2);
                let (qr, kr) = (g.activation("q_rope", qw, Rows::Tokens), g.activation("k_rope", kvw, Rows::Tokens));
                let out = g.activation("out", qw, Rows::Tokens);
                let shape = AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq };
                let (rope, rows) = (rope_attrs(nh, nkv, hd, max_seq), Some(rows_t));
                g.push(Op::Rope { q: qt, k: kt, cos_sin: cs, q_out: qr, k_out: kr, attrs: rope, rows });
                g.push(Op::KvAppend { k: kr, v: vt, k_cache: kct, v_cache: vct, attrs: shape, rows });
                g.push(Op::Attention { q: qr, k_cache: kct, v_cache: vct, out, attrs: shape, scale, rows });
                vec![(qr, m * qw), (out, m * qw)]
            })
        };
        let (paged, flat) = (step(true), step(false));
        assert_eq!(paged.kernels, [KernelId::RopeRows, KernelId::KvAppendRows, KernelId::AttentionRows]);
        let want = attend_rows(&rows, &paged.outs[0], &paged.k, &paged.v, &l, nh, scale);
        check(&format!("packed rows, {dtype} hd={hd} max_seq={max_seq}"), dtype, (&paged, &flat), &filler, &l, want);
    }
}

/// A batched decode step's fused attention (q / k norms, rope, the append and the attention in one
/// kernel), each row at its own slot and position: a row at a block's first and last position, one at
/// position 0, one whose context (700) splits over several workgroups.
#[test]
fn fused_decode_rows_over_a_paged_pool() {
    let mut r = rng("kv paged decode");
    let cases = [(4, 2, 64, vec![(2usize, 16usize), (0, 700), (1, 0)]), (6, 2, 32, vec![(1, 47), (0, 15)])];
    for (dtype, (nh, nkv, hd, rows)) in
        [KvDtype::F32, KvDtype::F16, KvDtype::Fp8].into_iter().flat_map(|d| cases.clone().map(|c| (d, c)))
    {
        let max_seq = 720;
        let (paging, table) = shuffled_pool(&mut r, max_seq, 3);
        let l = Layout { nkv, max_seq, hd, paging, table: &table };
        let m = rows.len();
        let (qw, kvw) = (nh * hd, nkv * hd);
        let len = SLOTS * nkv * max_seq * hd;
        let (k0, v0, filler) = (randn(&mut r, len), randn(&mut r, len), randn(&mut r, l.pool_len()));
        let (q, k, v) = (randn(&mut r, m * qw), randn(&mut r, m * kvw), randn(&mut r, m * kvw));
        let (qn, kn) = (randn(&mut r, hd), randn(&mut r, hd));
        let rope_tab = rope_table(max_seq, hd);
        let flat_tab: Vec<f32> = rope_tab.iter().flatten().copied().collect();
        let scale = 1.0 / (hd as f32).sqrt();
        let step = |paged: bool| {
            run(&l, caches(dtype, &k0, &v0, &l, paged.then_some(&filler[..])), &rows, |g, kct, vct, rows_t| {
                let (qt, kt, vt) = (f32t(g, "q", &q, qw), f32t(g, "k", &k, kvw), f32t(g, "v", &v, kvw));
                let cs = f32t(g, "cos_sin", &flat_tab, 2);
                let (qnt, knt) = (f32t(g, "qn", &qn, hd), f32t(g, "kn", &kn, hd));
                let out = g.activation("out", qw, Rows::Tokens);
                let attn = AttentionDecode {
                    q: qt,
                    k: kt,
                    v: vt,
                    cos_sin: cs,
                    qk_norm: Some((qnt, knt, 1e-6)),
                    k_cache: kct,
                    v_cache: vct,
                    out,
                    attrs: AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq },
                    rope: rope_attrs(nh, nkv, hd, max_seq),
                    scale,
                };
                g.push(Op::AttentionRows { attn, rows: rows_t });
                vec![(out, m * qw)]
            })
        };
        let (paged, flat) = (step(true), step(false));
        assert_eq!(paged.kernels, [KernelId::AttentionRows]);
        // The reference's q: normed and roped on the CPU (f32 rounding apart from the GPU's, well
        // inside the tolerance).
        let q_final: Vec<f32> = rows
            .iter()
            .enumerate()
            .flat_map(|(i, &(_, p))| {
                let qi = reference::rmsnorm(&q[i * qw..(i + 1) * qw], &qn, hd, 1e-6, false);
                reference::rope(&qi, nh, hd, hd, false, &rope_tab, &[p])
            })
            .collect();
        let want = attend_rows(&rows, &q_final, &paged.k, &paged.v, &l, nh, scale);
        check(
            &format!("decode rows, {dtype} nh={nh} hd={hd} rows {rows:?}"),
            dtype,
            (&paged, &flat),
            &filler,
            &l,
            want,
        );
    }
}

/// A kernel that addresses one contiguous sequence is refused a paged cache at plan time, not run
/// over the pool as if it were one sequence's region.
#[test]
fn single_sequence_kernels_refuse_a_paged_cache() {
    let mut r = rng("kv paged refused");
    let (nh, nkv, hd, max_seq) = (4, 2, 16, 32);
    let (paging, table) = shuffled_pool(&mut r, max_seq, 0);
    let l = Layout { nkv, max_seq, hd, paging, table: &table };
    let len = SLOTS * nkv * max_seq * hd;
    let [kc, vc] =
        caches(KvDtype::F32, &randn(&mut r, len), &randn(&mut r, len), &l, Some(&randn(&mut r, l.pool_len())));
    let mut g = Graph::default();
    let (kct, vct) = (g.bound("kc", kc), g.bound("vc", vc));
    let (kt, vt) =
        (f32t(&mut g, "k", &randn(&mut r, nkv * hd), nkv * hd), f32t(&mut g, "v", &randn(&mut r, nkv * hd), nkv * hd));
    let shape = AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq };
    g.push(Op::KvAppend { k: kt, v: vt, k_cache: kct, v_cache: vct, attrs: shape, rows: None });
    let err = Plan::new(&gpu(), g, PlanOptions { max_rows: 1, ..Default::default() }).err().expect("refused");
    assert!(err.to_string().contains("paged KV cache"), "{err}");
}
