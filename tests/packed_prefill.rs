//! Packed prefill: several sequences' prompt chunks in one step, each row at its own slot and
//! position (src/models/llm/batch/packed.rs). The row kernels against the CPU reference, then whole
//! models: a packed prefill equals each prompt prefilled alone, and the decode steps after it too.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use common::{assert_close, exec, gpu, randn, rng, rope_table};
use gerbil::gpu::KernelId;
use gerbil::graph::ir::{AttnShape, RopeAttrs};
use gerbil::graph::{DeviceTensor, Graph, Op, Plan, PlanOptions, Rows, TensorId};
use gerbil::models::llm::{BatchedDecoder, LoadOptions, Session, SessionOptions, TextModel};
use gerbil::reference;
use gerbil::weights::WeightFormat;
use rand::Rng;

fn f32t(g: &mut Graph, label: &str, data: &[f32], cols: usize) -> TensorId {
    g.bound(label, DeviceTensor::f32(&gpu(), label, data, cols).unwrap())
}

fn read(t: &Arc<DeviceTensor>, len: usize) -> Vec<f32> {
    match t.as_ref() {
        DeviceTensor::F32 { buf, .. } => gpu().read_f32(buf, len).unwrap(),
        _ => unreachable!(),
    }
}

/// Rope, KV append and attention with a rows table, as a packed prefill runs them: rows of one slot
/// out of order and interleaved with other slots' rows, a slot continuing what its cache held (its rows
/// attend to the old positions and to each other), a slot left alone, the last position.
#[test]
fn row_kernels_place_and_attend_each_row_at_its_own_slot_and_position() {
    let mut r = rng("packed rows");
    // max_seq 1100: few rows at a long context split it over several workgroups (decode attention).
    for (nh, nkv, hd, rot, interleaved, max_seq) in
        [(4, 2, 16, 16, false, 40), (9, 3, 64, 64, false, 80), (6, 2, 32, 16, true, 40), (4, 1, 32, 32, false, 1100)]
    {
        let slots = 4;
        let (qw, kvw) = (nh * hd, nkv * hd);
        let table = rope_table(max_seq, rot);
        // Slot 1 holds 5 positions and takes 3 more; slot 3 starts anew with 4; slot 2 takes the last
        // position; slot 0 is left alone.
        let rows: Vec<(usize, usize)> = vec![(1, 7), (3, 3), (2, max_seq - 1), (1, 5), (3, 0), (3, 2), (1, 6), (3, 1)];
        let m = rows.len();
        // Every position of every slot holds something (past a sequence's end, stale rows, as a reused
        // region does): a row must see its slot's positions up to its own and nothing after.
        let mut caches: Vec<reference::KvCache> = (0..slots)
            .map(|_| {
                let mut c = reference::KvCache::new(nkv, max_seq, hd);
                c.append(&randn(&mut r, max_seq * kvw), &randn(&mut r, max_seq * kvw), 0);
                c
            })
            .collect();
        let (q, k, v) = (randn(&mut r, m * qw), randn(&mut r, m * kvw), randn(&mut r, m * kvw));
        let kc =
            DeviceTensor::f32(&gpu(), "kc", &caches.iter().flat_map(|c| c.k.clone()).collect::<Vec<_>>(), hd).unwrap();
        let vc =
            DeviceTensor::f32(&gpu(), "vc", &caches.iter().flat_map(|c| c.v.clone()).collect::<Vec<_>>(), hd).unwrap();
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
        let rope =
            RopeAttrs { n_q_heads: nh, n_kv_heads: nkv, head_dim: hd, rotary_dim: rot, interleaved, max_pos: max_seq };
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

        // The reference: every row's k / v into its slot first, then each row attends.
        let pos: Vec<usize> = rows.iter().map(|r| r.1).collect();
        let mut q_rope = Vec::new();
        for (i, &(slot, p)) in rows.iter().enumerate() {
            let (qi, ki, vi) = (&q[i * qw..(i + 1) * qw], &k[i * kvw..(i + 1) * kvw], &v[i * kvw..(i + 1) * kvw]);
            q_rope.extend(reference::rope(qi, nh, hd, rot, interleaved, &table, &[p]));
            caches[slot].append(&reference::rope(ki, nkv, hd, rot, interleaved, &table, &[p]), vi, p);
        }
        let want: Vec<f32> = rows
            .iter()
            .enumerate()
            .flat_map(|(i, &(slot, p))| {
                reference::attention(&q_rope[i * qw..(i + 1) * qw], &caches[slot], nh, p, scale)
            })
            .collect();
        let label = format!("nh={nh} nkv={nkv} hd={hd} max_seq={max_seq} rows at {pos:?}");
        assert_close(&format!("rope q, {label}"), &plan.read_f32(qr, m * qw).unwrap(), &q_rope, 1e-6, 1e-6);
        assert_close(&format!("attention, {label}"), &plan.read_f32(out, m * qw).unwrap(), &want, 2e-5, 1e-4);
        let want_k: Vec<f32> = caches.iter().flat_map(|c| c.k.clone()).collect();
        let want_v: Vec<f32> = caches.iter().flat_map(|c| c.v.clone()).collect();
        assert_close(&format!("k caches, {label}"), &read(&kc, want_k.len()), &want_k, 1e-6, 1e-6);
        assert_close(&format!("v caches, {label}"), &read(&vc, want_v.len()), &want_v, 0.0, 0.0);
    }
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// A packed prefill of four prompts (one continuing a sequence its slot holds, one of a single token)
/// == each prompt prefilled alone: logits within `tol`, the same greedy token; then two batched decode
/// steps over the four slots == the sequences decoded alone (the K/V went to the right rows).
fn packed_matches_single(name: &str, format: WeightFormat, tol: f32) {
    let mut r = rng(&format!("packed {name}"));
    let opts = LoadOptions { format, max_context: 64, prefill_chunk: 32, ..Default::default() };
    let model = TextModel::load(&exec(), &fixture(name), opts).unwrap();
    let vocab = model.arch.vocab() as u32;
    let mut dec = BatchedDecoder::new(&model, 6).unwrap();
    assert_eq!(dec.packed_capacity(), Some((32, 6)), "{name}: rows and sequences of one packed step");
    let mut tokens = |n: usize| -> Vec<u32> { (0..n).map(|_| r.random_range(0..vocab)).collect() };
    let solo = || Session::new(&model, SessionOptions::default()).unwrap();
    // Slot 2 first holds 7 tokens (prefilled alone), then takes 9 more in the packed step.
    let head = tokens(7);
    dec.prefill(2, &head).unwrap();
    let mut sessions = [solo(), solo(), solo(), solo()];
    sessions[1].prefill(&head).unwrap();
    let chunks = [(0, tokens(5)), (2, tokens(9)), (5, tokens(1)), (3, tokens(12))];
    let seqs: Vec<(usize, &[u32])> = chunks.iter().map(|(s, t)| (*s, t.as_slice())).collect();
    assert!(dec.prefill_packed(&seqs).unwrap());
    for ((slot, t), s) in chunks.iter().zip(&mut sessions) {
        s.prefill(t).unwrap();
        let d = max_diff(&dec.logits(*slot).unwrap(), &s.logits().unwrap());
        assert!(d <= tol, "{name} {format:?}: packed prefill logits of slot {slot} differ by {d}");
        assert_eq!(dec.greedy_tokens(&[*slot]).unwrap()[0], s.next_token().unwrap(), "{name}: slot {slot}'s token");
        assert_eq!(dec.len(*slot), s.pos, "{name}: slot {slot}'s length");
    }
    for step in 0..2 {
        let feed = tokens(chunks.len());
        let batch: Vec<(usize, u32)> = chunks.iter().zip(&feed).map(|((s, _), &t)| (*s, t)).collect();
        dec.decode(&batch).unwrap();
        for ((slot, _), (s, &t)) in chunks.iter().zip(sessions.iter_mut().zip(&feed)) {
            s.set_next_token(t);
            s.decode_step().unwrap();
            let d = max_diff(&dec.logits(*slot).unwrap(), &s.logits().unwrap());
            assert!(d <= tol, "{name} {format:?}: decode step {step} of slot {slot} differs by {d}");
        }
    }
}

#[test]
fn packed_prefill_equals_single_prefills_f32() {
    for name in ["llama", "qwen2", "qwen3"] {
        packed_matches_single(name, WeightFormat::F32, 1e-4);
    }
}

#[test]
fn packed_prefill_equals_single_prefills_int4() {
    for (name, group) in [("llama3_rope", 64), ("qwen3", 128)] {
        packed_matches_single(name, WeightFormat::Int4 { group }, 1e-4);
    }
}

/// Chunks past the step's rows or sequences, a slot twice, or a chunk past the context are refused
/// before anything runs; the decoder then still prefills what fits.
#[test]
fn packed_prefill_refuses_what_does_not_fit() {
    let opts = LoadOptions { format: WeightFormat::F32, max_context: 64, prefill_chunk: 8, ..Default::default() };
    let model = TextModel::load(&exec(), &fixture("llama"), opts).unwrap();
    let mut dec = BatchedDecoder::new(&model, 3).unwrap();
    assert_eq!(dec.packed_capacity(), Some((8, 3)));
    let (five, four, one) = ([1u32; 5], [2u32; 4], [3u32; 1]);
    let too_many_rows = dec.prefill_packed(&[(0, &five), (1, &four)]).unwrap_err().to_string();
    assert!(too_many_rows.contains("9 tokens in 2 sequences (at most 8 in 3)"), "{too_many_rows}");
    let twice = dec.prefill_packed(&[(0, &one), (0, &one)]).unwrap_err().to_string();
    assert!(twice.contains("slot 0 twice"), "{twice}");
    let out_of_slots = dec.prefill_packed(&[(0, &one), (3, &one)]).unwrap_err().to_string();
    assert!(out_of_slots.contains("slot 3"), "{out_of_slots}");
    for s in 0..3 {
        assert_eq!(dec.len(s), 0, "slot {s} is untouched by a refused step");
    }
    let mut full = BatchedDecoder::new(&model, 3).unwrap();
    full.prefill(0, &[5; 62]).unwrap();
    let past = full.prefill_packed(&[(0, &[1, 2, 3]), (1, &one)]).unwrap_err();
    assert!(matches!(past, gerbil::models::ModelError::ContextFull { need: 65, max: 64 }), "{past}");
    let four_seqs = dec.prefill_packed(&[(0, &one), (1, &one), (2, &one), (3, &one)]).unwrap_err().to_string();
    assert!(four_seqs.contains("4 tokens in 4 sequences (at most 8 in 3)"), "{four_seqs}");
    // Exactly the step's rows and exactly its sequences fit.
    assert!(dec.prefill_packed(&[(0, &five), (2, &[4, 4, 4])]).unwrap());
    assert_eq!((dec.len(0), dec.len(1), dec.len(2)), (5, 0, 3));
    assert!(dec.prefill_packed(&[(0, &one), (1, &one), (2, &one)]).unwrap());
    assert_eq!((dec.len(0), dec.len(1), dec.len(2)), (6, 1, 4));
}
