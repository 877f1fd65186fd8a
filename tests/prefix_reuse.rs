//! Prefix reuse in the batched decoder (src/models/llm/batch.rs `release`, `reuse_prefix`): a new
//! sequence that starts from K/V rows another sequence left — in the same slot after it ended (a chat's
//! next turn), or copied from another slot, live or ended (a shared system prompt) — gives the logits
//! and greedy tokens of a session that prefilled the whole prompt itself.

mod common;

use std::path::PathBuf;

use common::{exec, rng};
use gerbil::gpu::KvDtype;
use gerbil::models::llm::{BatchedDecoder, KvPoolOptions, KvPoolSize, LoadOptions, Session, SessionOptions, TextModel};
use gerbil::weights::WeightFormat;
use gerbil::worker::backend::{BatchedBackend, SessionPool, TextBackend};
use rand::Rng;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

fn load(name: &str, format: WeightFormat) -> TextModel {
    load_kv(name, format, KvDtype::F32)
}

fn load_kv(name: &str, format: WeightFormat, kv_dtype: KvDtype) -> TextModel {
    load_pool(name, format, kv_dtype, None)
}

fn load_pool(name: &str, format: WeightFormat, kv_dtype: KvDtype, kv_pool: Option<KvPoolOptions>) -> TextModel {
    let opts = LoadOptions { format, max_context: 96, prefill_chunk: 16, kv_dtype, kv_pool, ..Default::default() };
    TextModel::load(&exec(), &fixture(name), opts).unwrap()
}

/// The whole sequence prefilled by a fresh session: its last logits and its greedy continuation.
fn fresh(model: &TextModel, tokens: &[u32], steps: usize) -> (Vec<f32>, Vec<u32>) {
    let mut s = Session::new(model, SessionOptions::default()).unwrap();
    s.prefill(tokens).unwrap();
    let logits = s.logits().unwrap();
    let mut s = Session::new(model, SessionOptions::default()).unwrap();
    (logits, s.generate(tokens, steps, |_| true).unwrap())
}

/// After the prompt's rest is prefilled into `slot`: its logits (within `tol`) and `steps` greedy tokens
/// (decoded alone, chained) equal a fresh session's over `whole`.
fn check_continuation(model: &TextModel, dec: &mut BatchedDecoder, slot: usize, whole: &[u32], tol: f32, what: &str) {
    let steps = 5;
    let (want_logits, want) = fresh(model, whole, steps);
    let d = max_diff(&dec.logits(slot).unwrap(), &want_logits);
    eprintln!("{what}: max |logit diff| {d:.1e}");
    assert!(d <= tol, "{what}: logits after the reused prefix differ by {d}");
    let mut got = dec.greedy_tokens(&[slot]).unwrap();
    dec.decode(&[(slot, got[0])]).unwrap();
    for _ in 2..steps {
        got.extend(dec.decode_chained(&[slot]).unwrap());
    }
    got.extend(dec.greedy_tokens(&[slot]).unwrap());
    assert_eq!(got, want, "{what}: greedy tokens");
    assert_eq!(dec.len(slot), whole.len() + steps - 1, "{what}: position");
}

fn reuse_cases(name: &str, format: WeightFormat) {
    reuse_cases_kv(name, format, KvDtype::F32, 1e-4, 1e-5);
}

/// A continuation's logits against a fresh prefill of the whole sequence, where the reused rows came
/// from decode steps (within `tol_decoded`) or from a prefill (`tol_prefilled`).
fn reuse_cases_kv(name: &str, format: WeightFormat, kv: KvDtype, tol_decoded: f32, tol_prefilled: f32) {
    reuse_cases_in(load_kv(name, format, kv), name, tol_decoded, tol_prefilled);
}

fn reuse_cases_in(model: TextModel, name: &str, tol_decoded: f32, tol_prefilled: f32) {
    let mut r = rng(&format!("prefix reuse {name}"));
    let vocab = model.arch.vocab() as u32;
    let mut tokens = |n: usize| -> Vec<u32> { (0..n).map(|_| r.random_range(0..vocab)).collect() };
    let mut dec = BatchedDecoder::new(&model, 4).unwrap();

    // A chat's first turn in slot 1: prompt, then greedy tokens decoded alone (single-sequence steps,
    // whose K/V rows only the scratch holds until the slot is released).
    let turn1 = tokens(21);
    dec.prefill(1, &turn1).unwrap();
    let mut out = dec.greedy_tokens(&[1]).unwrap();
    dec.decode(&[(1, out[0])]).unwrap();
    for _ in 0..4 {
        out.extend(dec.decode_chained(&[1]).unwrap());
    }
    out.extend(dec.greedy_tokens(&[1]).unwrap());
    // The cache holds turn1 and the five tokens fed back (the sixth was never fed).
    let held: Vec<u32> = turn1.iter().chain(&out[..5]).copied().collect();
    assert_eq!(dec.len(1), held.len());
    dec.release(1);
    // Another request takes the scratch in between, so the next turn's rows come from slot 1's region.
    let other = tokens(4);
    dec.prefill(2, &other).unwrap();
    dec.release(2);

    // The next turn in the same slot: everything held, then new tokens.
    let turn2: Vec<u32> = held.iter().copied().chain(tokens(9)).collect();
    dec.reuse_prefix(1, 1, held.len()).unwrap();
    assert_eq!(dec.len(1), held.len());
    dec.prefill(1, &turn2[held.len()..]).unwrap();
    // Rows a decode step wrote are the decode kernels' numbers, a rounding apart from a prefill's: the
    // same steps in one session give the same logits; a whole prefill, the same within that rounding.
    let mut mirror = Session::new(&model, SessionOptions::default()).unwrap();
    mirror.prefill(&turn1).unwrap();
    for &t in &out[..5] {
        mirror.set_next_token(t);
        mirror.decode_step().unwrap();
    }
    mirror.prefill(&turn2[held.len()..]).unwrap();
    let d = max_diff(&dec.logits(1).unwrap(), &mirror.logits().unwrap());
    assert!(d <= 1e-5, "{name}: next turn vs the same steps in one session: {d}");
    check_continuation(&model, &mut dec, 1, &turn2, tol_decoded, &format!("{name}: next turn, same slot"));

    // A shared system prompt: slot 0 decodes in batched steps with slot 1; slot 3 starts from the first
    // 18 positions of slot 0's live sequence.
    let system = tokens(18);
    let user_a: Vec<u32> = system.iter().copied().chain(tokens(6)).collect();
    dec.release(1);
    dec.prefill(0, &user_a).unwrap();
    dec.prefill(1, &tokens(4)).unwrap();
    let fed = dec.greedy_tokens(&[0, 1]).unwrap();
    dec.decode(&[(0, fed[0]), (1, fed[1])]).unwrap();
    let user_b: Vec<u32> = system.iter().copied().chain(tokens(7)).collect();
    let live_before = dec.pool_usage().map(|u| u.live);
    dec.reuse_prefix(0, 3, system.len()).unwrap();
    dec.prefill(3, &user_b[system.len()..]).unwrap();
    if let (Some(before), Some(u)) = (live_before, dec.pool_usage()) {
        // Blocks of 8: slot 3 holds 25 positions in 4 blocks, sharing slot 0's first two.
        assert_eq!(u.block_tokens, 8);
        assert_eq!(u.live, before + 2, "{name}: the system prompt's two whole blocks are held once");
    }
    let what = format!("{name}: system prompt copied from a live slot");
    check_continuation(&model, &mut dec, 3, &user_b, tol_prefilled, &what);
    // The source sequence is untouched: its next step equals a fresh session's.
    let a_so_far: Vec<u32> = user_a.iter().copied().chain([fed[0]]).collect();
    let next = dec.greedy_tokens(&[0]).unwrap()[0];
    let (_, want) = fresh(&model, &a_so_far, 1);
    assert_eq!(next, want[0], "{name}: the live source's own next token");

    // From an ended sequence into another free slot: slot 3's sequence ends, slot 2 starts from it.
    dec.release(3);
    let held3: Vec<u32> = user_b.clone();
    let turn: Vec<u32> = held3[..20].iter().copied().chain(tokens(3)).collect();
    dec.reuse_prefix(3, 2, 20).unwrap();
    dec.prefill(2, &turn[20..]).unwrap();
    check_continuation(&model, &mut dec, 2, &turn, tol_prefilled, &format!("{name}: prefix of an ended slot copied"));

    // Refused: more positions than the source holds, or a target that is not free.
    dec.release(2);
    assert!(dec.reuse_prefix(2, 1, 24).is_err(), "slot 1 is live");
    let held2 = turn.len() + 4;
    assert!(dec.reuse_prefix(2, 2, held2 + 1).is_err(), "past what slot 2 holds");
    assert!(dec.reuse_prefix(2, 2, held2).is_ok());
}

#[test]
fn reused_prefixes_equal_a_fresh_prefill_f32() {
    for name in ["llama", "qwen2"] {
        reuse_cases(name, WeightFormat::F32);
    }
}

/// f16 KV caches: rows copied at 2 bytes a value (a copy at f32 offsets lands rows in the wrong
/// positions: logits off by O(1)). A reused prefix that a prefill wrote holds the halves a fresh
/// prefill stores; rows that decode steps wrote are rounded from k and v a rounding apart from a
/// prefill's, which can end on the other side of a half's midpoint, a step of 2^-11 of the value.
/// Usually that costs 1e-5 to 2e-5; one seed (qwen3, 12820240827543092084) gave 1.9e-4.
/// `F16_DECODED` leaves room for a few such steps and stays far below a misplaced row's O(1); the
/// exact check is the one against the same steps in one session (1e-5, in `reuse_cases_in`).
#[test]
fn reused_prefixes_equal_a_fresh_prefill_f16_kv() {
    for (name, group) in [("llama", 32), ("qwen3", 128)] {
        reuse_cases_kv(name, WeightFormat::Int4 { group }, KvDtype::F16, F16_DECODED, 1e-5);
    }
}

/// The bound on f16-cached rows that decode steps wrote against a fresh prefill's (see above).
const F16_DECODED: f32 = 2e-3;

/// fp8 caches: measured 0.0 everywhere (k and v a rounding apart land on the same code far more often
/// than on the same half). A value that lands on the other side of a code's midpoint moves by an
/// eighth of itself; 2e-2 leaves room for one such value and stays far below a misplaced row's O(1).
#[test]
fn reused_prefixes_equal_a_fresh_prefill_fp8_kv() {
    for (name, group) in [("llama", 32), ("qwen3", 128)] {
        reuse_cases_kv(name, WeightFormat::Int4 { group }, KvDtype::Fp8, 2e-2, 1e-5);
    }
}

/// A paged pool with blocks of 8 positions: a prefix from another slot shares its whole blocks and
/// copies the part block after them (an 18-token system prompt: two shared, two positions copied; a
/// 20-token prefix of an ended slot: two shared, four copied); the source goes on writing its own
/// blocks; a chat's next turn keeps its slot's blocks.
#[test]
fn reused_prefixes_equal_a_fresh_prefill_paged() {
    let kv_pool = Some(KvPoolOptions { size: KvPoolSize::Tokens(200), block_tokens: 8 });
    for name in ["llama", "qwen2"] {
        reuse_cases_in(load_pool(name, WeightFormat::F32, KvDtype::F32, kv_pool), name, 1e-4, 1e-5);
    }
    let model = load_pool("qwen3", WeightFormat::Int4 { group: 128 }, KvDtype::F16, kv_pool);
    reuse_cases_in(model, "qwen3", F16_DECODED, 1e-5);
}

#[test]
fn reused_prefixes_equal_a_fresh_prefill_int4() {
    for (name, group) in [("llama", 32), ("qwen3", 128)] {
        reuse_cases(name, WeightFormat::Int4 { group });
    }
}

/// Families with recurrent state (LFM2, Qwen3.5), in both backends (batched decode with a state region
/// per slot, and one session per slot): a chat's next turn, which continues the whole previous
/// sequence, starts from it, even after another sequence used the batched decoder's scratch in between.
/// A shorter prefix cannot be kept (the state describes the whole sequence), nor another slot's; a
/// sequence that then starts from nothing starts from a zero state.
#[test]
fn recurrent_state_continues_a_whole_sequence() {
    for name in ["lfm2", "qwen3_5"] {
        let model = load(name, WeightFormat::F32);
        continue_whole_sequence(name, &model, &mut SessionPool::new(&model, 2).unwrap());
        continue_whole_sequence(name, &model, &mut BatchedBackend::new(&model, 2).unwrap());
    }
}

fn continue_whole_sequence(name: &str, model: &TextModel, pool: &mut dyn TextBackend) {
    let mut r = rng(&format!("session pool reuse {name}"));
    let vocab = model.arch.vocab() as u32;
    let mut tokens = |n: usize| -> Vec<u32> { (0..n).map(|_| r.random_range(0..vocab)).collect() };
    let turn1 = tokens(21);
    pool.prefill(0, &turn1).unwrap();
    let mut out = vec![pool.greedy_tokens(&[0]).remove(0).unwrap()];
    for _ in 0..4 {
        pool.decode(&[(0, *out.last().unwrap())]).unwrap();
        out.push(pool.greedy_tokens(&[0]).remove(0).unwrap());
    }
    let held: Vec<u32> = turn1.iter().chain(&out[..4]).copied().collect();
    pool.release(0);
    // Another sequence in slot 1 meanwhile (in the batched decoder: it takes the scratch).
    pool.prefill(1, &tokens(5)).unwrap();
    pool.release(1);
    assert!(!pool.reuse_prefix(0, 0, held.len() - 1).unwrap(), "{name}: a shorter prefix of recurrent state");
    assert!(!pool.reuse_prefix(1, 0, held.len()).unwrap(), "{name}: another slot's session");
    assert!(pool.reuse_prefix(0, 0, held.len()).unwrap(), "{name}: the whole sequence");
    let turn2: Vec<u32> = held.iter().copied().chain(tokens(9)).collect();
    pool.prefill(0, &turn2[held.len()..]).unwrap();
    let mut mirror = Session::new(model, SessionOptions::default()).unwrap();
    mirror.prefill(&turn1).unwrap();
    for &t in &out[..4] {
        mirror.set_next_token(t);
        mirror.decode_step().unwrap();
    }
    mirror.prefill(&turn2[held.len()..]).unwrap();
    let got = pool.logits(0).unwrap();
    let d = max_diff(&got, &mirror.logits().unwrap());
    assert!(d <= 1e-5, "{name}: next turn vs the same steps in one session: {d}");
    let (want, _) = fresh(model, &turn2, 1);
    let d = max_diff(&got, &want);
    eprintln!("{name}: next turn vs a whole prefill: {d:.1e}");
    assert!(d <= 1e-4, "{name}: next turn vs a whole prefill: {d}");
    // A new sequence from nothing after a refused reuse: the session's state is reset first.
    pool.release(0);
    assert!(!pool.reuse_prefix(0, 0, 3).unwrap());
    let other = tokens(11);
    pool.prefill(0, &other).unwrap();
    let d = max_diff(&pool.logits(0).unwrap(), &fresh(model, &other, 1).0);
    assert!(d <= 1e-5, "{name}: a new sequence in a used session: {d}");
}

/// A slot whose prefix another sequence shares, reused for a shorter prefix of its own (the same
/// prompt again after a longer sequence, an edited chat turn): it writes past that prefix inside a
/// block the other sequence shares, so that block is copied first; the sharer stays intact.
#[test]
fn a_shorter_reuse_inside_a_shared_block_leaves_the_sharer_intact() {
    let mut r = rng("prefix reuse shared block");
    let kv_pool = Some(KvPoolOptions { size: KvPoolSize::Tokens(200), block_tokens: 8 });
    let model = load_pool("llama", WeightFormat::F32, KvDtype::F32, kv_pool);
    let vocab = model.arch.vocab() as u32;
    let mut tokens = |n: usize| -> Vec<u32> { (0..n).map(|_| r.random_range(0..vocab)).collect() };
    let mut dec = BatchedDecoder::new(&model, 4).unwrap();
    let p = tokens(30);
    dec.prefill(0, &p).unwrap();
    // Slot 1 takes slot 0's first 20 positions: it shares blocks 0 and 1 (positions 0-15).
    dec.reuse_prefix(0, 1, 20).unwrap();
    let q: Vec<u32> = p[..20].iter().copied().chain(tokens(5)).collect();
    dec.prefill(1, &q[20..]).unwrap();
    dec.release(0);
    // Slot 0 again from its first 12 positions: position 12 is inside block 1, which slot 1 holds too.
    dec.reuse_prefix(0, 0, 12).unwrap();
    let again: Vec<u32> = p[..12].iter().copied().chain(tokens(9)).collect();
    dec.prefill(0, &again[12..]).unwrap();
    check_continuation(&model, &mut dec, 0, &again, 1e-5, "the slot reused for a shorter prefix");
    check_continuation(&model, &mut dec, 1, &q, 1e-5, "the sequence sharing its blocks");
}

/// A released slot's prefix parked when the slot takes another sequence (the server does this for a
/// prompt that does not continue it): the prefix's blocks stay under an id of their own, a later
/// sequence in another slot starts from it (sharing its whole blocks) with a fresh prefill's logits,
/// and the slot's new sequence is untouched. When room is needed the least recently released parked
/// prefix goes first, and it is named as evicted and refused afterwards.
#[test]
fn a_parked_prefix_outlives_its_slot_until_the_pool_needs_it() {
    let mut r = rng("prefix reuse parked");
    // 15 blocks of 8 positions.
    let kv_pool = Some(KvPoolOptions { size: KvPoolSize::Tokens(120), block_tokens: 8 });
    let model = load_pool("llama", WeightFormat::F32, KvDtype::F32, kv_pool);
    let vocab = model.arch.vocab() as u32;
    let mut tokens = |n: usize| -> Vec<u32> { (0..n).map(|_| r.random_range(0..vocab)).collect() };
    let mut dec = BatchedDecoder::new(&model, 2).unwrap();
    assert_eq!(dec.park(0), None, "nothing kept");
    let a = tokens(21);
    dec.prefill(0, &a).unwrap();
    assert_eq!(dec.park(0), None, "a live sequence is not parked");
    dec.release(0);
    let id = dec.park(0).unwrap();
    assert!(id >= dec.slots(), "a parked prefix's id is not a slot");
    assert_eq!((dec.held(0), dec.held(id)), (0, a.len()));
    assert_eq!(dec.park(0), None, "the slot kept nothing more");
    // Slot 0 goes on with another sequence in blocks of its own.
    let b = tokens(30);
    dec.prefill(0, &b).unwrap();
    let fed = dec.greedy_tokens(&[0]).unwrap()[0];
    dec.decode(&[(0, fed)]).unwrap();
    // Slot 1 starts from the parked prefix's first 19 positions.
    let c: Vec<u32> = a[..19].iter().copied().chain(tokens(6)).collect();
    dec.reuse_prefix(id, 1, 19).unwrap();
    dec.prefill(1, &c[19..]).unwrap();
    check_continuation(&model, &mut dec, 1, &c, 1e-5, "a sequence from a parked prefix");
    let b_so_far: Vec<u32> = b.iter().copied().chain([fed]).collect();
    let (want_b, _) = fresh(&model, &b_so_far, 1);
    let d = max_diff(&dec.logits(0).unwrap(), &want_b);
    assert!(d <= 1e-4, "the parked slot's new sequence: {d}");
    // Slot 1's sequence ends and is parked too (it shares the first parked prefix's first two blocks).
    dec.release(1);
    let id2 = dec.park(1).unwrap();
    assert_ne!(id2, id, "ids are not given twice");
    // Blocks now: the first parked prefix 3 (2 shared with the second), slot 0's 4, the second's 2 of
    // its own: 9 of 15. A 56-token prompt takes 7 blocks: the first parked prefix goes (its one block
    // of its own frees 7), the second stays.
    assert!(dec.take_evicted().is_empty());
    dec.prefill(1, &tokens(56)).unwrap();
    assert_eq!(dec.take_evicted(), vec![id], "the least recently released parked prefix goes first");
    assert_eq!(dec.held(id), 0);
    assert!(!dec.can_reuse_prefix(id, 1, 19) && dec.reuse_prefix(id, 1, 19).is_err(), "an evicted prefix is refused");
    assert_eq!(dec.held(id2), c.len() + 4);
    let usage = dec.pool_usage().unwrap();
    assert_eq!(usage.live + usage.cached, 15, "every block held: {usage:?}");
    dec.release(1);
    let d: Vec<u32> = c[..22].iter().copied().chain(tokens(3)).collect();
    dec.reuse_prefix(id2, 1, 22).unwrap();
    dec.prefill(1, &d[22..]).unwrap();
    check_continuation(&model, &mut dec, 1, &d, 1e-5, "a sequence from the parked prefix that stayed");
}
