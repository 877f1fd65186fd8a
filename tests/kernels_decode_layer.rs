//! decode_layer.wgsl (`Op::DecodeLayer`: a dense layer's decode step in one dispatch, its phases
//! meeting at grid barriers) and the probe that decides where it may run (gpu/grid_probe.rs).
//! Where the adapter passes the probe (the H200), the kernel is checked against the unfused plan:
//! greedy tokens identical and logits within 1e-5 over a prompt and 32 steps, with q / k / v
//! biases, with q / k norms, and past 256 positions where the attention splits. Where it fails
//! (Mesa 22.3's lavapipe, so CI), the pass must refuse, and the plan runs without it. On both, the
//! residency check through the kernel's own pipeline (graph/residency.rs) must fail a grid no GPU
//! holds at once, and, where the probe passes, pass the plan's own grid and leave the session
//! decoding as the unfused plan does. A barrier that gives up a wait (marked from the CPU here) makes
//! the session plan again without grid barriers and recompute the lost steps, on every adapter; so
//! must the batched decoder's single-sequence steps, which run the session's plan.
//! One test in its own binary: a grid barrier on a CPU adapter shares the cores with whatever else runs.

mod common;

use std::path::Path;

use common::reference_fixture::{fixture_dir, fixture_with_config};
use common::{exec, gpu, greedy};
use gerbil::gpu::KernelId;
use gerbil::graph::dispatch::Dim;
use gerbil::graph::Plan;
use gerbil::models::llm::{BatchedDecoder, LoadOptions, Session, SessionOptions, TextModel};
use gerbil::passes::FusionConfig;
use gerbil::weights::WeightFormat;

/// Fused within 1e-5 of unfused; the kernel shares the unfused plan's arithmetic (the H200 gives 0.0).
const TOLERANCE: f32 = 1e-5;

fn load(dir: &Path, positions: usize, fusion: FusionConfig) -> TextModel {
    let opts = LoadOptions {
        format: WeightFormat::Int4 { group: 32 },
        max_context: positions,
        prefill_chunk: 32,
        fusion,
        ..Default::default()
    };
    TextModel::load(&exec(), dir, opts).unwrap()
}

/// The decode plan's DecodeLayer grids, then the tokens and logits of a prefill of `prompt_len`
/// tokens (the fixture text repeated) and 32 greedy steps.
fn run(m: &TextModel, prompt_len: usize) -> (Vec<Dim>, Vec<u32>, Vec<Vec<f32>>) {
    let tok = m.tokenizer.as_ref().unwrap();
    let mut prompt = Vec::new();
    while prompt.len() < prompt_len {
        prompt.extend(tok.encode("The old fisherman walks down to the harbour at dawn, ", false).unwrap());
    }
    prompt.truncate(prompt_len);
    let mut s = Session::new(m, SessionOptions::default()).unwrap();
    let grids = s.decode_plan().dispatch_specs().filter(|d| d.kernel == KernelId::DecodeLayer).map(|d| d.grid.x);
    let grids: Vec<Dim> = grids.collect();
    let (toks, logits) = greedy(&mut s, &prompt, 32);
    (grids, toks, logits)
}

fn check(what: &str, dir: &Path, positions: usize, prompt_len: usize, grid: Dim) {
    let (g0, t0, l0) = run(&load(dir, positions, FusionConfig::none()), prompt_len);
    let layer = FusionConfig { decode_layer: true, ..FusionConfig::default() };
    let m = load(dir, positions, layer);
    // Twice: as loaded, and with odd-sized buffers allocated first, so the session's buffers sit
    // elsewhere. Which cache lines buffers share depends on where they sit, and plain loads of
    // values other workgroups published read stale lines in some placements (the kernel reads
    // them from @coherent bindings since).
    for placement in ["as allocated", "shifted"] {
        let _shim: Vec<wgpu::Buffer> = match placement {
            "shifted" => (1..4).map(|i| gpu().storage("placement shim", 4096 + 48 * i)).collect(),
            _ => Vec::new(),
        };
        let (g1, t1, l1) = run(&m, prompt_len);
        assert_eq!((&g0, g1), (&vec![], vec![grid; 2]), "{what}: one DecodeLayer a layer");
        assert_eq!(t0, t1, "{what} ({placement}): greedy tokens differ");
        let d = l0.iter().flatten().zip(l1.iter().flatten()).map(|(a, b)| (a - b).abs()).fold(f32::NAN, f32::max);
        eprintln!("{what} ({placement}): max |logit diff| decode_layer vs unfused {d:.2e}");
        assert!(d <= TOLERANCE, "{what} ({placement}): logits differ by {d}");
    }
}

/// The residency check (graph/residency.rs) through decode_layer's own pipeline: 2048 workgroups
/// of 256 invocations are more than any GPU holds at once (the H200: 132 SMs of at most 2048
/// invocations), so it must fail on every adapter; where the probe passes, the plan's own largest
/// grid must pass (else the session would have planned without the kernel).
fn check_residency(works: bool) {
    let forced = FusionConfig { decode_layer: true, grid_barrier_anywhere: true, ..FusionConfig::default() };
    let model = load(&fixture_dir("qwen3"), 96, forced);
    let s = Session::new(&model, SessionOptions::default()).unwrap();
    let plan = s.decode_plan();
    assert!(plan.dispatch_specs().any(|d| d.kernel == KernelId::DecodeLayer));
    assert!(!plan.grid_barriers_resident_at(2048), "2048 workgroups cannot all be resident");
    if !works {
        return;
    }
    assert!(plan.grid_barriers_resident(), "the plan's own grid is resident where the probe passes");
    // The checks leave the step and the barrier word as the plan needs them: the session still
    // decodes as the unfused plan does.
    let prompt = [1, 2, 3, 4, 5, 6, 7];
    let unfused = load(&fixture_dir("qwen3"), 96, FusionConfig::none());
    let (t0, l0) = greedy(&mut Session::new(&unfused, SessionOptions::default()).unwrap(), &prompt, 8);
    let (t1, l1) = greedy(&mut { s }, &prompt, 8);
    assert_eq!(t0, t1, "greedy tokens after the residency checks");
    let d = l0.iter().flatten().zip(l1.iter().flatten()).map(|(a, b)| (a - b).abs()).fold(f32::NAN, f32::max);
    assert!(d <= TOLERANCE, "logits after the residency checks differ by {d}");
}

/// The qwen3 fixture's greedy tokens on the unfused plan after `prompt`, and the fixture forced to
/// decode_layer with grid barriers on any adapter (so the failure path runs on lavapipe too).
fn unfused_tokens_and_forced_model(prompt: &[u32], tokens: usize) -> (Vec<u32>, TextModel) {
    let unfused = load(&fixture_dir("qwen3"), 96, FusionConfig::none());
    let want = Session::new(&unfused, SessionOptions::default()).unwrap().generate(prompt, tokens, |_| true).unwrap();
    let forced = FusionConfig { decode_layer: true, grid_barrier_anywhere: true, ..FusionConfig::default() };
    (want, load(&fixture_dir("qwen3"), 96, forced))
}

/// Sets `plan`'s barrier failure word from the CPU, as a barrier that gave up its wait would.
fn failure_marker(plan: &Plan) -> impl Fn() {
    let (buf, offset) = plan.barrier_failure_word().map(|(b, o)| (b.clone(), o)).expect("grid barriers");
    move || gpu().queue.write_buffer(&buf, offset, &1u32.to_le_bytes())
}

/// A grid barrier that waits out its polls (the grid stopped being resident together) sets the plan's
/// failure word (grid_sync.wgsl), and every later barrier passes at once. The word is set from the
/// CPU here: where grid barriers work, after 12 tokens, so that good batches come first and the
/// failure lands mid-generation; elsewhere (lavapipe, whose barriers do not synchronise) before the
/// first decode batch. `generate` must plan again without grid barriers and deliver exactly the
/// unfused plan's tokens; a `decode_step` caller gets the error instead, and the fallback after it.
fn check_failure_fallback(works: bool) {
    let prompt = [1, 2, 3, 4, 5, 6, 7];
    let (want, model) = unfused_tokens_and_forced_model(&prompt, 40);
    for at in if works { vec![12, 0] } else { vec![0] } {
        let mut s = Session::new(&model, SessionOptions::default()).unwrap();
        let mark = failure_marker(s.decode_plan());
        if at == 0 {
            mark();
        }
        let mut seen = 0;
        let got = s
            .generate(&prompt, 40, |_| {
                seen += 1;
                if seen == at {
                    mark();
                }
                true
            })
            .unwrap();
        assert!(s.replanned_without_grid_barriers, "marked at token {at}: planned again");
        assert!(s.decode_plan().barrier_failure_word().is_none());
        assert!(s.decode_plan().dispatch_specs().all(|d| d.kernel != KernelId::DecodeLayer));
        assert_eq!(got, want, "marked at token {at}: the tokens of the unfused plan");
    }
    // A step-by-step caller reads the token or the logits (sampling): either read reports it.
    for read in ["next_token", "logits"] {
        let mut s = Session::new(&model, SessionOptions::default()).unwrap();
        failure_marker(s.decode_plan())();
        s.prefill(&prompt).unwrap();
        s.next_token().unwrap();
        s.logits().unwrap();
        s.decode_step().unwrap();
        let err = if read == "logits" { s.logits().unwrap_err() } else { s.next_token().unwrap_err() };
        assert!(matches!(err, gerbil::models::ModelError::GridBarrierTimeout), "{read}: {err}");
        assert!(s.replanned_without_grid_barriers, "{read}");
        s.reset();
        assert_eq!(s.generate(&prompt, 40, |_| true).unwrap(), want, "{read}: after the error, on the fallback plan");
    }
}

/// The batched decoder decodes a lone sequence with the session's one-token plan: a barrier that
/// gives up a wait there is found with the step's token by whichever read comes (a chained step, the
/// greedy token, the logits), and the decoder plans again without grid barriers and computes the lost
/// steps again: the tokens are the unfused plan's. Marked before the first step, and where grid
/// barriers work also mid-generation.
fn check_batched_failure_fallback(works: bool) {
    let prompt = [1, 2, 3, 4, 5, 6, 7];
    let (want, model) = unfused_tokens_and_forced_model(&prompt, 16);
    for read in ["chained", "greedy", "logits"] {
        for at in if works { vec![0, 6] } else { vec![0] } {
            let mut dec = BatchedDecoder::new(&model, 2).unwrap();
            let mark = failure_marker(dec.single_sequence_plan());
            dec.prefill(1, &prompt).unwrap();
            let mut got = dec.greedy_tokens(&[1]).unwrap();
            if at == 0 {
                mark();
            }
            dec.decode(&[(1, got[0])]).unwrap();
            while got.len() < want.len() {
                if got.len() == at {
                    mark();
                }
                let next = match read {
                    "chained" => dec.decode_chained(&[1]).unwrap()[0],
                    "greedy" => dec.greedy_tokens(&[1]).unwrap()[0],
                    _ => gerbil::reference::argmax(&dec.logits(1).unwrap()),
                };
                got.push(next);
                if read != "chained" && got.len() < want.len() {
                    dec.decode(&[(1, next)]).unwrap();
                }
            }
            assert!(dec.single_sequence_plan().barrier_failure_word().is_none(), "{read} at {at}: planned again");
            assert_eq!(got, want, "{read}, marked at token {at}: the tokens of the unfused plan");
        }
    }
}

#[test]
fn decode_layer_runs_where_the_probe_passes() {
    let works = gpu().grid_barriers_work();
    eprintln!("grid barrier probe on {}: {works}", gpu().caps.adapter_name);
    check_failure_fallback(works);
    check_batched_failure_fallback(works);
    check_residency(works);
    if !works {
        let m = load(&fixture_dir("qwen3"), 96, FusionConfig { decode_layer: true, ..FusionConfig::default() });
        let s = Session::new(&m, SessionOptions::default()).unwrap();
        let r = s.pass_reports.iter().find(|r| r.pass == "decode_layer").unwrap();
        assert_eq!((r.fused, r.skipped.len()), (0, 2), "refused on both layers: {:?}", r.skipped);
        assert!(s.decode_plan().dispatch_specs().all(|d| d.kernel != KernelId::DecodeLayer));
        return;
    }
    // qwen2's weights re-headed as 2 heads of 32 lanes and 1 kv head (so o_proj gets partial rows):
    // q / k / v biases, and workgroups that run both the attention and the MLP. 4 q / k / v
    // workgroups (64 + 32 + 32 columns), 4 MLP ones.
    let dir = fixture_with_config("qwen2", "heads32", |c| {
        c["num_attention_heads"] = 2.into();
        c["num_key_value_heads"] = 1.into();
        c["head_dim"] = 32.into();
    });
    check("qwen2 (biases)", &dir, 96, 7, Dim::Fixed(4));
    std::fs::remove_dir_all(&dir).unwrap();
    // qwen3: q / k norms; 8 q / k / v workgroups (128 + 64 + 64 columns).
    check("qwen3", &fixture_dir("qwen3"), 96, 7, Dim::Fixed(8));
    // Past 256 positions each head's attention splits (up to 3 of 128 positions at 320): positions
    // 280-311, the grid sized each step by the heads' splits.
    let dir = fixture_with_config("qwen3", "320", |c| c["max_position_embeddings"] = 320.into());
    let grid = Dim::LayerGrid { at_least: 8, log2: 7, most: 3, max_seq: 320, heads: 4 };
    check("qwen3 split attention", &dir, 320, 280, grid);
    std::fs::remove_dir_all(&dir).unwrap();
}
