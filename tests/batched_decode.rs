//! Batched decode: the per-row attention kernel and per-row argmax against the CPU reference, and whole
//! batched decode steps of the dense and recurrent fixtures against single-sequence sessions, with rows at
//! different positions joining and leaving between steps.

mod common;

use std::path::PathBuf;

use common::{assert_close, exec, gpu, randn, rng, rope_table};
use gerbil::gpu::{KernelId, KvDtype};
use gerbil::graph::ir::{AttentionDecode, AttnShape, RopeAttrs};
use gerbil::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::models::llm::{BatchedDecoder, KvPoolOptions, KvPoolSize, LoadOptions, Session, SessionOptions, TextModel};
use gerbil::reference;
use gerbil::weights::WeightFormat;
use rand::Rng;

fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(&gpu(), label, data, cols).unwrap())
}

#[test]
fn attention_rows_each_row_at_its_own_slot_and_position() {
    let mut r = rng("attention_rows");
    // max_seq 1100: rows past 256 positions split their context over several workgroups a head
    // (attention_decode.wgsl), each row as many as its own context needs.
    for (nh, nkv, hd, rot, qk_norm, interleaved, max_seq) in [
        (4, 2, 16, 16, true, false, 80),
        (9, 3, 64, 64, false, false, 80),
        (6, 2, 32, 16, true, true, 80),
        (9, 3, 64, 64, false, false, 1100),
        (4, 2, 32, 16, true, true, 1100),
    ] {
        let slots = 5;
        let (qw, kvw) = (nh * hd, nkv * hd);
        let table = rope_table(max_seq, rot);
        // Rows use slots 3, 0, 4 (not in order, one slot idle) at different positions, including 0 and the last.
        let rows: Vec<(usize, usize)> = vec![(3, r.random_range(1..max_seq - 1)), (0, 0), (4, max_seq - 1)];
        let m = rows.len();
        let mut caches: Vec<reference::KvCache> = (0..slots)
            .map(|_| {
                let mut c = reference::KvCache::new(nkv, max_seq, hd);
                c.append(&randn(&mut r, max_seq * kvw), &randn(&mut r, max_seq * kvw), 0);
                c
            })
            .collect();
        let (q, k, v) = (randn(&mut r, m * qw), randn(&mut r, m * kvw), randn(&mut r, m * kvw));
        let (qn, kn) = (randn(&mut r, hd), randn(&mut r, hd));
        let mut g = Graph::default();
        let (qt, kt, vt) = (f32t(&mut g, "q", &q, qw), f32t(&mut g, "k", &k, kvw), f32t(&mut g, "v", &v, kvw));
        let flat: Vec<f32> = table.iter().flatten().copied().collect();
        let cs = f32t(&mut g, "cos_sin", &flat, 2);
        let (qnt, knt) = (f32t(&mut g, "qn", &qn, hd), f32t(&mut g, "kn", &kn, hd));
        let all_k: Vec<f32> = caches.iter().flat_map(|c| c.k.clone()).collect();
        let all_v: Vec<f32> = caches.iter().flat_map(|c| c.v.clone()).collect();
        let kc = f32t(&mut g, "k_cache", &all_k, hd);
        let vc = f32t(&mut g, "v_cache", &all_v, hd);
        let pairs: Vec<u32> = rows.iter().flat_map(|&(s, p)| [s as u32, p as u32]).collect();
        let rows_t = g.bound("rows", DeviceTensor::u32(&gpu(), "rows", &pairs).unwrap());
        let out = g.activation("out", qw, Rows::Tokens);
        let attrs = AttnShape { n_heads: nh, n_kv_heads: nkv, head_dim: hd, max_seq };
        let rope =
            RopeAttrs { n_q_heads: nh, n_kv_heads: nkv, head_dim: hd, rotary_dim: rot, interleaved, max_pos: max_seq };
        let scale = 1.0 / (hd as f32).sqrt();
        let attn = AttentionDecode {
            q: qt,
            k: kt,
            v: vt,
            cos_sin: cs,
            qk_norm: qk_norm.then_some((qnt, knt, 1e-6)),
            k_cache: kc,
            v_cache: vc,
            out,
            attrs,
            rope,
            scale,
        };
        g.push(Op::AttentionRows { attn, rows: rows_t });
        g.outputs.push(out);
        let plan = Plan::new(&gpu(), g, PlanOptions { max_rows: slots, ..Default::default() }).unwrap();
        plan.poison_activations();
        plan.set_rows_context(max_seq);
        plan.run(m, 0);
        // Splits a row: up to ceil(max_seq / 128), at most 128 workgroups in all; none at max_seq 80.
        let spec = plan.dispatch_specs().find(|d| d.kernel == KernelId::AttentionRows).unwrap();
        let splits = if max_seq > 256 { max_seq.div_ceil(128).min(128 / (nh * m)) } else { 1 };
        assert_eq!(plan.grid(spec, m), (nh as u32, (m * splits) as u32), "rows x splits");

        let mut want = Vec::new();
        for (i, &(slot, pos)) in rows.iter().enumerate() {
            let (qi, ki, vi) = (&q[i * qw..(i + 1) * qw], &k[i * kvw..(i + 1) * kvw], &v[i * kvw..(i + 1) * kvw]);
            let (q1, k1) = if qk_norm {
                (reference::rmsnorm(qi, &qn, hd, 1e-6, false), reference::rmsnorm(ki, &kn, hd, 1e-6, false))
            } else {
                (qi.to_vec(), ki.to_vec())
            };
            let q2 = reference::rope(&q1, nh, hd, rot, interleaved, &table, &[pos]);
            let k2 = reference::rope(&k1, nkv, hd, rot, interleaved, &table, &[pos]);
            caches[slot].append(&k2, vi, pos);
            want.extend(reference::attention(&q2, &caches[slot], nh, pos, scale));
        }
        let label = format!("attention_rows nh={nh} nkv={nkv} hd={hd}");
        assert_close(&label, &plan.read_f32(out, m * qw).unwrap(), &want, 2e-5, 1e-4);
        let want_k: Vec<f32> = caches.iter().flat_map(|c| c.k.clone()).collect();
        let want_v: Vec<f32> = caches.iter().flat_map(|c| c.v.clone()).collect();
        assert_close(
            "k caches after append",
            &gpu().read_f32(plan.buffer(kc), want_k.len()).unwrap(),
            &want_k,
            1e-6,
            1e-6,
        );
        assert_close(
            "v caches after append",
            &gpu().read_f32(plan.buffer(vc), want_v.len()).unwrap(),
            &want_v,
            0.0,
            0.0,
        );
    }
}

#[test]
fn argmax_per_row() {
    let mut r = rng("argmax_per_row");
    let (n, m, max_rows) = (1000, 5, 8);
    let mut logits = randn(&mut r, max_rows * n);
    // A tie in row 1: the lower index wins, like torch.argmax.
    logits[n + 10] = 5.0;
    logits[n + 700] = 5.0;
    let mut g = Graph::default();
    let x = f32t(&mut g, "x", &logits, n);
    let ones: Vec<f32> = vec![1.0; n];
    let w = f32t(&mut g, "unit", &ones, n);
    // The per-row argmax reads an activation with one row per token (as after lm_head).
    let l = g.activation("logits", n, Rows::Tokens);
    g.push(Op::RmsNorm { x, weight: w, out: l, dim: n, rows_per_token: 1, eps: 0.0, add_unit: false });
    let out = g.bound("tokens", DeviceTensor::u32(&gpu(), "tokens", &vec![u32::MAX; max_rows]).unwrap());
    g.push(Op::Argmax { logits: l, out, last_row: false });
    g.outputs.push(l);
    let plan = Plan::new(&gpu(), g, PlanOptions { max_rows, ..Default::default() }).unwrap();
    plan.run(m, 0);
    let got = gpu().read_u32(plan.buffer(out), max_rows).unwrap();
    for row in 0..m {
        let want = reference::argmax(&logits[row * n..(row + 1) * n]);
        assert_eq!(got[row], want, "row {row}");
    }
    assert_eq!(got[1], 10, "ties pick the lowest index");
    assert!(got[m..].iter().all(|&t| t == u32::MAX), "rows past the step are not written: {got:?}");
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// One sequence of the schedule: joins `slot` before step `join` with `prompt`, then is fed `feed[i]` at
/// step join + i, and leaves after its last token.
struct Seq {
    slot: usize,
    join: usize,
    prompt: Vec<u32>,
    feed: Vec<u32>,
    solo: Session,
}

/// Batched decode of the fixture == the same sequences decoded alone, step by step (logits <= tol).
fn batched_matches_single(name: &str, format: WeightFormat, tol: f32) {
    batched_matches_single_kv(name, format, tol, KvDtype::F32, None);
}

fn batched_matches_single_kv(
    name: &str,
    format: WeightFormat,
    tol: f32,
    kv_dtype: KvDtype,
    kv_pool: Option<KvPoolOptions>,
) {
    let mut r = rng(&format!("batched {name}"));
    let opts = LoadOptions { format, max_context: 64, prefill_chunk: 16, kv_dtype, kv_pool, ..Default::default() };
    let model = TextModel::load(&exec(), &fixture(name), opts).unwrap();
    let vocab = model.arch.vocab() as u32;
    let mut dec = BatchedDecoder::new(&model, 6).unwrap();
    let mut tokens = |n: usize| -> Vec<u32> { (0..n).map(|_| r.random_range(0..vocab)).collect() };
    // (slot, join step, prompt length, steps): rows at different positions; slot 2 is reused after its
    // first sequence leaves; a 20-token prompt spans two prefill chunks; up to 6 rows in a step, so the
    // matvec kernels (4 rows per workgroup) run two row blocks; slot 0 decodes alone at the end (a
    // partial row block of one, the server's lone-request case).
    let plan = [(0, 0, 5, 9), (2, 0, 12, 3), (1, 2, 20, 5), (2, 3, 1, 4), (3, 5, 9, 2), (4, 1, 3, 6), (5, 2, 4, 5)];
    let mut seqs: Vec<Seq> = plan
        .iter()
        .map(|&(slot, join, plen, steps)| Seq {
            slot,
            join,
            prompt: tokens(plen),
            feed: tokens(steps),
            solo: Session::new(&model, SessionOptions::default()).unwrap(),
        })
        .collect();
    let last_step = plan.iter().map(|p| p.1 + p.3).max().unwrap();
    let mut worst = 0f32;
    let mut rows_seen = Vec::new();
    for step in 0..last_step {
        for s in seqs.iter_mut().filter(|s| s.join == step) {
            dec.release(s.slot);
            dec.prefill(s.slot, &s.prompt).unwrap();
            s.solo.prefill(&s.prompt).unwrap();
            let d = max_diff(&dec.logits(s.slot).unwrap(), &s.solo.logits().unwrap());
            assert!(d <= tol, "{name}: prefill logits of slot {} differ by {d}", s.slot);
            assert_eq!(dec.greedy_tokens(&[s.slot]).unwrap()[0], s.solo.next_token().unwrap(), "{name}: prefill token");
        }
        let active: Vec<usize> =
            (0..seqs.len()).filter(|&i| seqs[i].join <= step && step < seqs[i].join + seqs[i].feed.len()).collect();
        let batch: Vec<(usize, u32)> =
            active.iter().map(|&i| (seqs[i].slot, seqs[i].feed[step - seqs[i].join])).collect();
        rows_seen.push(batch.len());
        dec.decode(&batch).unwrap();
        let slots: Vec<usize> = batch.iter().map(|b| b.0).collect();
        let greedy = dec.greedy_tokens(&slots).unwrap();
        for (row, &i) in active.iter().enumerate() {
            let s = &mut seqs[i];
            s.solo.set_next_token(s.feed[step - s.join]);
            s.solo.decode_step().unwrap();
            let got = dec.logits(s.slot).unwrap();
            let want = s.solo.logits().unwrap();
            // Relative to the row's largest logit: f32 rounding of sums in another order scales with it
            // (Qwen3.5's fixture has logits of several units); a wrong state or position is off by O(1).
            let scale = want.iter().fold(1f32, |m, x| m.max(x.abs()));
            let d = max_diff(&got, &want) / scale;
            worst = worst.max(d);
            assert!(
                d <= tol,
                "{name} {format:?}: step {step} row {row} (slot {}) logits differ by {d} (relative)",
                s.slot
            );
            assert_eq!(greedy[row], reference::argmax(&got), "{name}: GPU argmax of row {row}");
            assert_eq!(dec.len(s.slot), s.solo.pos, "{name}: positions");
            if step + 1 == s.join + s.feed.len() {
                // Ended: a paged pool keeps its blocks as a cached prefix until another needs them.
                dec.release(s.slot);
            }
        }
    }
    eprintln!(
        "{name} {format:?} KV {kv_dtype}: batched rows per step {rows_seen:?}, max |logit diff| / max |logit| vs single {worst:.2e}"
    );
    assert!(rows_seen.iter().any(|&n| n > 4), "the schedule decodes more rows than one row block at once");
    assert!(rows_seen.ends_with(&[1, 1]), "the schedule ends with one-row steps");
}

#[test]
fn batched_decode_equals_single_sequences_f32() {
    for name in ["llama", "qwen2", "qwen3"] {
        batched_matches_single(name, WeightFormat::F32, 2e-5);
    }
}

/// The recurrent families: each row's conv window (and Qwen3.5's delta-rule state) is its slot's; a
/// slot's state goes into the scratch for its prefill and single-sequence steps and back. The delta
/// rule carries each step's rounding (the batched and single kernels sum in other orders) into the
/// next, and the random fixture amplifies it unevenly: over 24 seeds Qwen3.5 measured 2.5e-6 to
/// 8.6e-6 relative, one seed 2.45e-5 (GERBIL_SEED=7007275752209299031); LFM2 1.1e-6 to 2.4e-6. A
/// state from the wrong slot or step is off by O(1).
#[test]
fn batched_decode_equals_single_sequences_recurrent_f32() {
    for (name, tol) in [("lfm2", 2e-5), ("qwen3_5", 1e-4)] {
        batched_matches_single(name, WeightFormat::F32, tol);
    }
}

#[test]
fn batched_decode_equals_single_sequences_recurrent_int4() {
    for name in ["lfm2", "qwen3_5"] {
        batched_matches_single(name, WeightFormat::Int4 { group: 32 }, 0.0);
    }
}

/// Packed KV caches (f16 and fp8): a slot's rows move between the batched caches and
/// the scratch session at 2 or 1 bytes a value, and both paths store and read the same values (the
/// recurrent families to the bit, as with f32 caches).
#[test]
fn batched_decode_equals_single_sequences_packed_kv() {
    for kv in [KvDtype::F16, KvDtype::Fp8] {
        for (name, tol) in [("llama", 1e-4), ("lfm2", 0.0), ("qwen3_5", 0.0)] {
            batched_matches_single_kv(name, WeightFormat::Int4 { group: 32 }, tol, kv, None);
        }
    }
}

/// A paged KV pool: blocks of 8 positions, 14 of them for the six slots (a region per slot would be
/// 48 blocks; the schedule's busiest step holds 13). Every row reads and writes its sequence through
/// the block table, sequences cross block boundaries, blocks given back are handed out again out of
/// order, and rows move between the pool and the scratch session in runs of consecutive blocks: the
/// logits equal the single sequences' as with a region per slot.
#[test]
fn batched_decode_equals_single_sequences_paged_kv() {
    let pool = Some(KvPoolOptions { size: KvPoolSize::Tokens(112), block_tokens: 8 });
    let int4 = WeightFormat::Int4 { group: 32 };
    for (name, format, tol, kv) in [
        ("llama", WeightFormat::F32, 2e-5, KvDtype::F32),
        ("qwen3", WeightFormat::F32, 2e-5, KvDtype::F32),
        ("lfm2", WeightFormat::F32, 2e-5, KvDtype::F32),
        ("qwen3_5", WeightFormat::F32, 1e-4, KvDtype::F32),
        ("llama", int4, 1e-4, KvDtype::F16),
        ("qwen3_5", int4, 0.0, KvDtype::Fp8),
    ] {
        batched_matches_single_kv(name, format, tol, kv, pool);
    }
}

#[test]
fn batched_decode_equals_single_sequences_int4() {
    for (name, group) in [("llama3_rope", 64), ("qwen3", 128)] {
        batched_matches_single(name, WeightFormat::Int4 { group }, 1e-4);
    }
}

/// The prompt-scoring prefill (one all-logits prefill per call, into a slot) gives the logits of a
/// session that keeps every row, and leaves the slot ready to decode.
#[test]
fn all_logits_prefill_into_a_slot() {
    let mut r = rng("all_logits_prefill");
    let opts = LoadOptions { format: WeightFormat::F32, max_context: 64, prefill_chunk: 16, ..Default::default() };
    let model = TextModel::load(&exec(), &fixture("llama"), opts).unwrap();
    let vocab = model.arch.vocab();
    let prompt: Vec<u32> = (0..21).map(|_| r.random_range(0..vocab as u32)).collect();
    let mut all = Session::new(&model, SessionOptions { all_logits: true }).unwrap();
    let mut want = Vec::new();
    for chunk in prompt.chunks(16) {
        all.prefill(chunk).unwrap();
        want.extend(all.logits().unwrap());
    }
    let mut dec = BatchedDecoder::new(&model, 3).unwrap();
    // Two calls, as the scheduler does when the prefill budget splits the prompt.
    let mut got = dec.prefill_all_logits(1, &prompt[..7]).unwrap();
    dec.prefill(0, &prompt[..3]).unwrap(); // another slot's prefill in between
    got.extend(dec.prefill_all_logits(1, &prompt[7..]).unwrap());
    assert_eq!(got.len(), prompt.len() * vocab);
    let d = max_diff(&got, &want);
    assert!(d <= 1e-4, "all-logits prefill differs by {d}");
    assert_close("last row via logits()", &dec.logits(1).unwrap(), &want[(prompt.len() - 1) * vocab..], 1e-4, 0.0);
    let mut solo = Session::new(&model, SessionOptions::default()).unwrap();
    solo.prefill(&prompt).unwrap();
    dec.decode(&[(1, 5)]).unwrap();
    solo.set_next_token(5);
    solo.decode_step().unwrap();
    let d = max_diff(&dec.logits(1).unwrap(), &solo.logits().unwrap());
    assert!(d <= 1e-4, "decode after a scored prefill differs by {d}");
}

/// Greedy pipelining: steps submitted with `decode_chained` (fed the previous step's GPU argmax, read one
/// step late) give each slot the tokens of a single-sequence greedy generation; a chained step over
/// other rows than the previous step's is refused.
#[test]
fn chained_greedy_steps_equal_single_sequence_generation() {
    for name in ["llama", "lfm2", "qwen3_5"] {
        chained_greedy_steps(name);
    }
}

fn chained_greedy_steps(name: &str) {
    let opts = LoadOptions { format: WeightFormat::Int4 { group: 32 }, max_context: 64, ..Default::default() };
    let model = TextModel::load(&exec(), &fixture(name), opts).unwrap();
    let prompts: [Vec<u32>; 3] = [vec![5, 9, 2], vec![17, 3, 3, 40, 8], vec![1]];
    let slots = [2usize, 0, 3];
    let steps = 12;
    let want: Vec<Vec<u32>> = prompts
        .iter()
        .map(|p| {
            let mut s = Session::new(&model, SessionOptions::default()).unwrap();
            s.generate(p, steps + 1, |_| true).unwrap()
        })
        .collect();
    let mut dec = BatchedDecoder::new(&model, 4).unwrap();
    for (&slot, p) in slots.iter().zip(&prompts) {
        dec.prefill(slot, p).unwrap();
    }
    let first = dec.greedy_tokens(&slots).unwrap();
    let mut got: Vec<Vec<u32>> = first.iter().map(|&t| vec![t]).collect();
    dec.decode(&slots.iter().copied().zip(first).collect::<Vec<_>>()).unwrap();
    assert!(dec.decode_chained(&[slots[0], slots[1]]).is_err(), "rows differ from the previous step's");
    for _ in 1..steps {
        let ids = dec.decode_chained(&slots).unwrap();
        for (g, id) in got.iter_mut().zip(ids) {
            g.push(id);
        }
    }
    for (g, id) in got.iter_mut().zip(dec.greedy_tokens(&slots).unwrap()) {
        g.push(id);
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, &w[..g.len()], "{name} slot {}: chained tokens vs Session::generate", slots[i]);
        assert_eq!(dec.len(slots[i]), prompts[i].len() + steps, "slot {} position", slots[i]);
    }
}

/// The server's lone request: single-sequence steps (the scratch session's one-token plan) chained like
/// batched ones; then a second sequence joins (the first's rows move into its slot region and its latest
/// outputs are parked), both decode as rows of batched steps, plain and chained; the second leaves and the
/// first goes on alone, chained again. Every token equals `Session::generate`'s.
#[test]
fn single_sequence_steps_hand_over_to_batched_steps_and_back() {
    for name in ["llama", "lfm2", "qwen3_5"] {
        hand_over(name);
    }
}

fn hand_over(name: &str) {
    let opts = LoadOptions { format: WeightFormat::Int4 { group: 32 }, max_context: 64, ..Default::default() };
    let model = TextModel::load(&exec(), &fixture(name), opts).unwrap();
    let (pa, pb) = ([5u32, 9, 2], [17u32, 3, 3, 40, 8]);
    let generate =
        |p: &[u32], n| Session::new(&model, SessionOptions::default()).unwrap().generate(p, n, |_| true).unwrap();
    let (want_a, want_b) = (generate(&pa, 24), generate(&pb, 8));
    let mut dec = BatchedDecoder::new(&model, 4).unwrap();
    let (a, b) = (1usize, 3usize);
    dec.prefill(a, &pa).unwrap();
    let mut got_a = dec.greedy_tokens(&[a]).unwrap();
    let alone = |dec: &mut BatchedDecoder, got: &mut Vec<u32>, chained: usize| {
        dec.decode(&[(a, *got.last().unwrap())]).unwrap();
        for _ in 0..chained {
            got.extend(dec.decode_chained(&[a]).unwrap());
        }
        got.extend(dec.greedy_tokens(&[a]).unwrap());
    };
    alone(&mut dec, &mut got_a, 5);
    assert_eq!(dec.len(a), pa.len() + 6);
    // b joins: its prefill takes the scratch.
    dec.prefill(b, &pb).unwrap();
    let mut got_b = dec.greedy_tokens(&[b]).unwrap();
    assert_eq!(dec.greedy_tokens(&[a]).unwrap(), [*got_a.last().unwrap()], "a's parked token");
    let both = |got_a: &[u32], got_b: &[u32]| vec![(a, *got_a.last().unwrap()), (b, *got_b.last().unwrap())];
    for _ in 0..2 {
        dec.decode(&both(&got_a, &got_b)).unwrap();
        let ids = dec.greedy_tokens(&[a, b]).unwrap();
        got_a.push(ids[0]);
        got_b.push(ids[1]);
    }
    dec.decode(&both(&got_a, &got_b)).unwrap();
    for _ in 0..3 {
        let ids = dec.decode_chained(&[a, b]).unwrap();
        got_a.push(ids[0]);
        got_b.push(ids[1]);
    }
    let ids = dec.greedy_tokens(&[a, b]).unwrap();
    got_a.push(ids[0]);
    got_b.push(ids[1]);
    dec.release(b);
    // a alone again: its rows come back from the region into the scratch.
    alone(&mut dec, &mut got_a, 6);
    assert_eq!(got_b, want_b[..got_b.len()], "{name} b: tokens vs Session::generate");
    assert_eq!(got_a, want_a[..got_a.len()], "{name} a: tokens vs Session::generate");
    assert_eq!((got_a.len(), dec.len(a)), (20, pa.len() + 19));
    // Its logits after a single-sequence step are the session's.
    let mut s = Session::new(&model, SessionOptions::default()).unwrap();
    s.prefill(&pa).unwrap();
    for &t in &got_a[..got_a.len() - 1] {
        s.set_next_token(t);
        s.decode_step().unwrap();
    }
    let d = max_diff(&dec.logits(a).unwrap(), &s.logits().unwrap());
    assert!(d <= 1e-4, "{name}: logits after single-sequence steps differ by {d}");
}

/// `gerbil bench`'s state figures: f32 K and V per attention layer per token, and the recurrent state
/// of one sequence (none for a dense family; LFM2's conv windows [L-1, hidden] per conv layer).
#[test]
fn state_bytes_per_token_and_per_sequence() {
    let opts = || LoadOptions { format: WeightFormat::F32, max_context: 64, ..Default::default() };
    let llama = TextModel::load(&exec(), &fixture("llama"), opts()).unwrap();
    let c = llama.arch.config();
    let dec = BatchedDecoder::new(&llama, 3).unwrap();
    assert_eq!(dec.state_bytes(), ((c.layers * 2 * c.kv_heads * c.head_dim * 4) as u64, 0));
    let lfm2 = TextModel::load(&exec(), &fixture("lfm2"), opts()).unwrap();
    let cfg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("lfm2").join("config.json")).unwrap()).unwrap();
    let attn = cfg["full_attn_idxs"].as_array().map(|a| a.len()).unwrap_or_else(|| {
        cfg["layer_types"].as_array().unwrap().iter().filter(|t| t.as_str() == Some("full_attention")).count()
    });
    let c = lfm2.arch.config();
    let conv = c.layers - attn;
    let kernel = cfg["conv_L_cache"].as_u64().unwrap() as usize;
    let dec = BatchedDecoder::new(&lfm2, 3).unwrap();
    assert_eq!(
        dec.state_bytes(),
        ((attn * 2 * c.kv_heads * c.head_dim * 4) as u64, (conv * (kernel - 1) * c.hidden * 4) as u64)
    );
}
