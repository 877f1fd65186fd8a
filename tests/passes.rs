//! Fusion passes: a snapshot of each family's fused decode dispatch list, and
//! fused-vs-unfused numerics (identical greedy tokens, logits within 1e-5) for
//! each pass, plus the skip path under a lowered storage-buffer limit.

mod common;

use std::path::PathBuf;

use common::reference_fixture::fixture_with_positions;
use common::{exec, gpu, greedy};
use gerbil::gpu::KernelId;
use gerbil::models::llm::{LoadOptions, Session, SessionOptions, TextModel};
use gerbil::passes::FusionConfig;
use gerbil::weights::WeightFormat;

/// The default passes without decode_layer, which runs only where the adapter passes the
/// grid-barrier probe: these plans are the same on every adapter.
fn base() -> FusionConfig {
    FusionConfig { decode_layer: false, ..FusionConfig::default() }
}

/// The default passes with decode_layer, as if the adapter could run grid barriers
/// (plan-level: no probe, no residency check).
fn layer_kernel() -> FusionConfig {
    FusionConfig { decode_layer: true, grid_barrier_anywhere: true, ..FusionConfig::default() }
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn model(name: &str, fusion: FusionConfig) -> TextModel {
    let opts = LoadOptions {
        format: WeightFormat::Int4 { group: 32 },
        max_context: 96,
        prefill_chunk: 32,
        fusion,
        ..Default::default()
    };
    TextModel::load(&exec(), &fixture(name), opts).unwrap()
}

/// One line per dispatch: kernel, builder node ids it covers, storage bindings.
fn describe(s: &Session) -> String {
    let plan = s.decode_plan();
    let mut out = String::new();
    for d in plan.dispatch_specs() {
        let storage = d.bindings.len();
        out += &format!("{:?} nodes={:?} storage={storage}\n", d.kernel, plan.graph.node_ids[d.op_index]);
    }
    out
}

fn check_snapshot(s: &Session, name: &str) {
    let got = describe(s);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/snapshots/decode_{name}.txt"));
    if std::env::var_os("GERBIL_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(got, want, "{name}: decode dispatch list changed (GERBIL_UPDATE_SNAPSHOTS=1 to accept)");
}

/// The decode_layer pass: a qwen3 layer in one dispatch.
#[test]
fn decode_layer_dispatch_list_snapshot() {
    let s = Session::new(&model("qwen3", layer_kernel()), SessionOptions::default()).unwrap();
    check_snapshot(&s, "qwen3_decode_layer");
}

/// The opt-in attention_qkv pass: a qwen3 layer in two dispatches.
#[test]
fn attention_qkv_dispatch_list_snapshot() {
    let cfg = FusionConfig { attention_qkv: true, ..base() };
    let s = Session::new(&model("qwen3", cfg), SessionOptions::default()).unwrap();
    check_snapshot(&s, "qwen3_attention_qkv");
    assert_eq!(s.decode_dispatches(), 2 * 2 + 4, "two dispatches a layer, plus embed, lm_head and argmax");
}

#[test]
fn decode_dispatch_list_snapshots() {
    for name in ["llama", "qwen2", "qwen3", "lfm2"] {
        let m = model(name, base());
        let s = Session::new(&m, SessionOptions::default()).unwrap();
        check_snapshot(&s, name);
        // Per layer: norm + q/k/v (or in_proj + short conv), attention, o + residual,
        // norm + gate/up + SwiGLU, down + residual; plus embed, final norm + lm_head,
        // the two argmax stages. Less a dispatch for each o_proj or down projection the partial-sum
        // passes folded into attention or the MLP, and for each q / k / v matvec folded into attention.
        let layers = m.arch.layers();
        let folded = |s: &Session| -> usize {
            let folds = |pass: &str| pass.ends_with("_partials") || pass == "attention_qkv";
            s.pass_reports.iter().filter(|r| folds(r.pass)).map(|r| r.fused).sum()
        };
        let folded_default = folded(&s);
        assert_eq!(s.decode_dispatches(), 5 * layers + 4 - folded_default, "{name}: default fusion, 5 per layer");
        let opt_out = FusionConfig { norm_matvec: false, ..base() };
        let s2 = Session::new(&model(name, opt_out), SessionOptions::default()).unwrap();
        assert_eq!(s2.decode_dispatches(), 6 * layers + 5 - folded(&s2), "{name}: without norm_matvec, 6 per layer");
        let unfused = Session::new(&model(name, FusionConfig::none()), SessionOptions::default()).unwrap();
        eprintln!(
            "{name}: {} dispatches fused ({} without norm_matvec), {} unfused",
            s.decode_dispatches(),
            s2.decode_dispatches(),
            unfused.decode_dispatches()
        );
    }
}

/// Decodes 32 greedy steps after the fixture prompt; returns tokens and logits.
fn run(m: &TextModel) -> (Vec<u32>, Vec<Vec<f32>>) {
    let prompt: Vec<u32> = m.tokenizer.as_ref().unwrap().encode("The old fisherman walks down to", false).unwrap();
    greedy(&mut Session::new(m, SessionOptions::default()).unwrap(), &prompt, 32)
}

/// Fused vs unfused under the same storage-buffer cap (the cap also picks the unfused
/// decode attention kernel: see `dispatch::select_one`).
fn compare(name: &str, what: &str, fusion: FusionConfig) {
    let unfused = FusionConfig { max_storage_buffers: fusion.max_storage_buffers, ..FusionConfig::none() };
    compare_with(&run(&model(name, unfused)), name, what, fusion);
}

fn compare_with(unfused: &(Vec<u32>, Vec<Vec<f32>>), name: &str, what: &str, fusion: FusionConfig) {
    let (t0, l0) = unfused;
    let (t1, l1) = run(&model(name, fusion));
    assert_eq!(*t0, t1, "{name} {what}: greedy tokens differ");
    let d = l0.iter().flatten().zip(l1.iter().flatten()).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    eprintln!("{name} {what}: max |logit diff| fused vs unfused {d:.2e}");
    assert!(d <= TOLERANCE, "{name} {what}: logits differ by {d}");
}

/// Fused within 1e-5 of unfused: the fused kernels share the unfused arithmetic (the matvec passes are
/// bit-identical; a decode plan's unfused attention runs the fused kernel's attention on the
/// separately normed / roped q and the cache, so only those kernels' rounding differs). The
/// partial-sum passes' consumers re-add the plain matvec's lane values in group_sum's order:
/// the workgroup-memory tree (lavapipe: CI), or where group_sum is subgroupAdd the driver's
/// butterfly as probed at start-up (gpu/subgroup_order.rs; the H200 adds neighbours first).
/// Measured on the H200 (commit `9ef35f5`): every case 0.0 (2.5e-5 to 3.2e-5 for the
/// partial-sum passes where the consumers assume the tree's order instead of the probed one).
const TOLERANCE: f32 = 1e-5;

#[test]
fn each_pass_matches_unfused() {
    let none = FusionConfig::none();
    let shared = FusionConfig { shared_input_matvec: true, ..none };
    let swiglu = FusionConfig { swiglu_epilogue: true, ..shared };
    // What the partial-sum passes take: residual epilogues and norm prologues.
    let layer = FusionConfig { norm_matvec: true, norm_swiglu: true, residual_epilogue: true, ..swiglu };
    let cases = [
        ("attention_decode", FusionConfig { attention_decode: true, ..none }),
        ("shared_input_matvec", shared),
        ("norm_matvec", FusionConfig { norm_matvec: true, ..shared }),
        ("swiglu_epilogue", swiglu),
        ("norm_swiglu", FusionConfig { norm_swiglu: true, ..swiglu }),
        ("add_rmsnorm", FusionConfig { add_rmsnorm: true, ..none }),
        ("add_rmsnorm + matvecs", FusionConfig { add_rmsnorm: true, ..shared }),
        ("residual_epilogue", FusionConfig { residual_epilogue: true, ..shared }),
        ("short_conv_state", FusionConfig { short_conv_state: true, ..none }),
        ("mlp_partials", FusionConfig { mlp_partials: true, ..layer }),
        ("attention_partials", FusionConfig { attention_decode: true, attention_partials: true, ..layer }),
        (
            "attention_qkv",
            FusionConfig { attention_decode: true, attention_partials: true, attention_qkv: true, ..layer },
        ),
        ("all", base()),
        ("all + attention_qkv", FusionConfig { attention_qkv: true, ..base() }),
        ("all but norm_matvec", FusionConfig { norm_matvec: false, ..base() }),
    ];
    for name in ["qwen3", "qwen2", "llama3_rope", "lfm2"] {
        let unfused = run(&model(name, none));
        for (what, cfg) in cases {
            compare_with(&unfused, name, what, cfg);
        }
    }
}

/// Past 256 positions one-token decode attention splits the context over several workgroups a
/// head (attention_decode.wgsl); the fused kernels and the unfused plan's attention split alike.
/// Fused against unfused over 24 greedy steps after a 280-token prompt (positions 280-303: three
/// splits), with q/k norms (qwen3), without (llama), and the hybrid lfm2's attention layers. The
/// fixtures allow 256 positions: a copy of each with 320 (random weights do not mind) is loaded.
#[test]
fn split_attention_matches_unfused_past_256_positions() {
    let long = |name: &str, fusion: FusionConfig| {
        let dir = fixture_with_positions(name, 320);
        let opts = LoadOptions {
            format: WeightFormat::Int4 { group: 32 },
            max_context: 320,
            prefill_chunk: 64,
            fusion,
            ..Default::default()
        };
        let m = TextModel::load(&exec(), &dir, opts).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        m
    };
    let run_long = |m: &TextModel| {
        let tok = m.tokenizer.as_ref().unwrap();
        let mut prompt = Vec::new();
        while prompt.len() < 280 {
            prompt.extend(tok.encode("The old fisherman walks down to the harbour at dawn, ", false).unwrap());
        }
        prompt.truncate(280);
        let mut s = Session::new(m, SessionOptions::default()).unwrap();
        let grid_y = |k: KernelId| s.decode_plan().dispatch_specs().find(|d| d.kernel == k).map(|d| d.grid.y);
        let split = grid_y(KernelId::AttentionDecodeO).or(grid_y(KernelId::AttentionDecode));
        let most = gerbil::graph::dispatch::Dim::KvSplits { log2: 7, most: 3, max_seq: 320, heads: 4, per_row: false };
        assert_eq!(split, Some(most), "attention split over up to ceil(320 / 128)");
        greedy(&mut s, &prompt, 24)
    };
    for (name, fusion) in [("qwen3", base()), ("llama3_rope", base()), ("lfm2", base())] {
        let (t0, l0) = run_long(&long(name, FusionConfig::none()));
        let (t1, l1) = run_long(&long(name, fusion));
        assert_eq!(t0, t1, "{name}: greedy tokens differ");
        let d = l0.iter().flatten().zip(l1.iter().flatten()).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        eprintln!("{name} split attention: max |logit diff| fused vs unfused {d:.2e}");
        assert!(d <= TOLERANCE, "{name}: logits differ by {d}");
    }
}

/// Each new pass really fires on the families it targets.
#[test]
fn new_passes_fire() {
    let count = |name: &str, cfg: FusionConfig, pass: &str| {
        let s = Session::new(&model(name, cfg), SessionOptions::default()).unwrap();
        s.pass_reports.iter().find(|r| r.pass == pass).map_or(0, |r| r.fused)
    };
    let d = base();
    // lfm2 fixture: 4 layers, 2 of them short conv.
    assert_eq!(count("lfm2", d, "short_conv_state"), 2);
    // Every RMSNorm (two per layer and the final one) becomes a matvec prologue.
    assert_eq!(count("lfm2", d, "norm_matvec"), 9);
    assert_eq!(count("llama", d, "norm_matvec"), 5);
    assert_eq!(count("lfm2", d, "add_rmsnorm"), 0, "no norm is left to pair with an add");
    // Without norm_matvec: the gate/up norms go to norm_swiglu, and an add + next norm
    // follows every down projection (the last one with the final norm).
    let d = FusionConfig { norm_matvec: false, ..d };
    assert_eq!(count("lfm2", d, "norm_swiglu"), 4);
    assert_eq!(count("lfm2", d, "add_rmsnorm"), 4);
    assert_eq!(count("llama", d, "add_rmsnorm"), 2);
    // Alone, it takes every residual add: each is followed by a norm (the last by the final norm).
    assert_eq!(count("llama", FusionConfig { add_rmsnorm: true, ..FusionConfig::none() }, "add_rmsnorm"), 4);
    // Partial sums (2-layer fixtures): every down projection (the last layer's too: the fixtures'
    // 384-token vocabulary lets the final norm be the lm_head's prologue), and every o_proj where
    // head_dim is a multiple of 32 (qwen3's 32; llama's 16).
    let d = base();
    assert_eq!(count("qwen3", d, "mlp_partials"), 2);
    assert_eq!(count("qwen3", d, "attention_partials"), 2);
    assert_eq!(count("llama", d, "mlp_partials"), 2);
    assert_eq!(count("llama", d, "attention_partials"), 0);
    // Without norm_matvec every down projection feeds an add + norm (the last, the final norm): the
    // MLP kernel leaves its partial rows to a PartialsNorm in place of [down] [add_rmsnorm].
    let nm = FusionConfig { norm_matvec: false, ..d };
    assert_eq!(count("qwen3", nm, "mlp_partials"), 2);
    assert_eq!(count("llama", nm, "mlp_partials"), 2);
    // The MLP kernel and the fused attention replace the separate down and o_proj matvecs.
    let kernels = |cfg| -> Vec<KernelId> {
        let s = Session::new(&model("qwen3", cfg), SessionOptions::default()).unwrap();
        s.decode_plan().dispatch_specs().map(|d| d.kernel).collect()
    };
    let n = |ks: &[KernelId], k: KernelId| ks.iter().filter(|x| **x == k).count();
    assert_eq!(n(&kernels(nm), KernelId::PartialsNorm), 2);
    assert_eq!(n(&kernels(nm), KernelId::AddRmsNorm), 0);
    let ks = kernels(d);
    assert_eq!(n(&ks, KernelId::MatvecMlpInt4), 2);
    assert_eq!(n(&ks, KernelId::AttentionDecodeO), 2);
    // Opted in, every attention with o_proj partials takes its q / k / v matvec (qwen3's hidden 64 <=
    // 1024): a layer is two dispatches.
    let qkv = FusionConfig { attention_qkv: true, ..d };
    assert_eq!(count("qwen3", qkv, "attention_qkv"), 2);
    assert_eq!(count("llama", qkv, "attention_qkv"), 0);
    let ks = kernels(qkv);
    assert_eq!((n(&ks, KernelId::AttentionQkvO), n(&ks, KernelId::AttentionDecodeO)), (2, 0));
    assert_eq!(n(&ks, KernelId::MatvecMlpInt4), 2);
    // decode_layer takes each layer's three dispatches where o_proj has partial rows; only where
    // grid barriers may run.
    assert_eq!(count("qwen3", layer_kernel(), "decode_layer"), 2);
    assert_eq!(count("llama", layer_kernel(), "decode_layer"), 0);
    let ks = kernels(layer_kernel());
    assert_eq!(n(&ks, KernelId::DecodeLayer), 2);
    assert_eq!(n(&ks, KernelId::AttentionDecodeO) + n(&ks, KernelId::MatvecMlpInt4), 0);
}

/// The partial-sum passes only rewrite one-token graphs (a batched decode graph keeps its matvecs).
#[test]
fn partial_sum_passes_leave_batched_graphs_alone() {
    use gerbil::models::decoder::Mode;
    use gerbil::passes::PassLimits;
    let m = model("qwen3", base());
    let io = m.arch.new_io(&gpu(), 8, 32, gerbil::gpu::KvDtype::F32).unwrap();
    for (one_token, want) in [(false, 0), (true, 2)] {
        let mut built = m.arch.build_graph(&io, Mode::Decode);
        let limits = PassLimits {
            max_storage_buffers_per_stage: 32,
            one_token,
            max_workgroup_storage: 32768,
            grid_barrier: true,
        };
        let cfg = FusionConfig { attention_qkv: true, ..base() };
        let reports = gerbil::passes::run(&mut built.graph, &cfg, limits);
        let fused = |pass: &str| reports.iter().find(|r| r.pass == pass).unwrap().fused;
        assert_eq!(fused("mlp_partials"), want, "one_token {one_token}");
        assert_eq!(fused("attention_partials"), want, "one_token {one_token}");
        assert_eq!(fused("attention_qkv"), want, "one_token {one_token}");
    }
}

#[test]
fn passes_skip_when_the_storage_limit_is_low() {
    // 8 storage buffers (a browser's WebGPU default): the 15-binding fused
    // matvec and 9-binding fused attention must be skipped, not emitted.
    let cfg = FusionConfig { max_storage_buffers: Some(8), ..base() };
    let m = model("qwen3", cfg);
    let s = Session::new(&m, SessionOptions::default()).unwrap();
    let skipped: usize = s.pass_reports.iter().map(|r| r.skipped.len()).sum();
    assert!(skipped > 0, "{:?}", s.pass_reports);
    for d in s.decode_plan().dispatch_specs() {
        assert!(d.bindings.len() <= 8, "{:?} has {} storage bindings", d.kernel, d.bindings.len());
    }
    drop(s);
    compare("qwen3", "limit 8", cfg);
}

#[test]
fn short_conv_and_add_norm_skip_when_the_storage_limit_is_low() {
    // 4 storage buffers: the 5-binding fused short conv and add + RMSNorm must be skipped.
    let cfg = FusionConfig { max_storage_buffers: Some(4), ..base() };
    let s = Session::new(&model("lfm2", cfg), SessionOptions::default()).unwrap();
    for pass in ["short_conv_state", "add_rmsnorm"] {
        let r = s.pass_reports.iter().find(|r| r.pass == pass).unwrap();
        assert_eq!(r.fused, 0, "{r:?}");
        assert!(!r.skipped.is_empty() && r.skipped.iter().all(|e| e.contains("storage buffers")), "{r:?}");
    }
    for d in s.decode_plan().dispatch_specs() {
        assert!(!matches!(d.kernel, KernelId::ShortConvUpdate | KernelId::AddRmsNorm), "{:?} emitted", d.kernel);
    }
    drop(s);
    compare("lfm2", "limit 4", cfg);
}

/// The dump-graph JSON lists every dispatch, and fusion accounts for every
/// node the builder made exactly once.
#[test]
fn dump_graph_covers_every_builder_node_once() {
    for name in ["qwen3", "lfm2"] {
        dump_graph_covers(name);
    }
}

fn dump_graph_covers(name: &str) {
    let m = model(name, base());
    let s = Session::new(&m, SessionOptions::default()).unwrap();
    let unfused = Session::new(&model(name, FusionConfig::none()), SessionOptions::default()).unwrap();
    let doc = gerbil::cli::dump_graph::describe(s.decode_plan());
    let entries = doc.as_array().unwrap();
    assert_eq!(entries.len(), s.decode_dispatches());
    let mut nodes: Vec<u64> =
        entries.iter().flat_map(|e| e["fused_nodes"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap())).collect();
    nodes.sort();
    let want: Vec<u64> = (0..unfused.decode_dispatches() as u64).collect();
    assert_eq!(nodes, want);
    for e in entries {
        assert_eq!(e["bindings"].as_array().unwrap().len() as u64, e["storage_bindings"].as_u64().unwrap());
    }
}

/// A final norm feeding a vocabulary-wide matvec stays its own dispatch (each of the matvec's
/// workgroups would recompute it); one feeding a narrow matvec becomes its prologue.
#[test]
fn norm_matvec_leaves_vocabulary_wide_matvecs_alone() {
    use gerbil::graph::{DeviceTensor, Graph, Op, Rows};
    use gerbil::passes::PassLimits;
    use gerbil::weights::int4::Int4Matrix;
    let k = 32;
    for (n, fused) in [(16385, false), (16384, true)] {
        let mut g = Graph::default();
        let x = g.activation("x", k, Rows::Tokens);
        let norm_w = g.bound("norm", DeviceTensor::f32(&gpu(), "norm", &vec![1.0; k], k).unwrap());
        let q = Int4Matrix { rows: n, cols: k, group: 32, q: vec![0x76543210; n * k / 8], sm: vec![[0.5, -1.0]; n] };
        let w = g.bound("lm_head", DeviceTensor::int4(&gpu(), "lm_head", &q).unwrap());
        let xn = g.activation("xn", k, Rows::Tokens);
        let logits = g.activation("logits", n, Rows::One);
        g.push(Op::RmsNorm { x, weight: norm_w, out: xn, dim: k, rows_per_token: 1, eps: 1e-5, add_unit: false });
        g.push(Op::MatMul { x: xn, w, bias: None, out: logits, last_row: true });
        g.outputs.push(logits);
        let limits = PassLimits {
            max_storage_buffers_per_stage: 32,
            one_token: true,
            max_workgroup_storage: 32768,
            grid_barrier: false,
        };
        let reports = gerbil::passes::run(&mut g, &base(), limits);
        let norms = g.ops.iter().filter(|op| matches!(op, Op::RmsNorm { .. })).count();
        assert_eq!(norms, usize::from(!fused), "{n} columns: ops {:?}", g.ops.iter().map(Op::name).collect::<Vec<_>>());
        let report = reports.iter().find(|r| r.pass == "norm_matvec").unwrap();
        assert_eq!(report.fused, usize::from(fused), "{n} columns: {report:?}");
    }
}
