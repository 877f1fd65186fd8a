//! The encoder-decoder kernels (LayerNorm, GELU, im2col/conv1d, strided
//! attention) through `nn::Recorder` on the real adapter, against
//! `reference::speech`, with fresh random inputs and NaN-poisoned outputs.

mod common;

use common::{assert_close, gpu, randn, rng};
use gerbil::models::whisper::tokens::{choose, log_probs, LogitFilter, Specials};
use gerbil::nn::{
    logit_stats_cpu, mask_bits, AttnArgs, Conv1d, LogitRules, LogitStats, Mat, Recorder, Strided, EMPTY, STATS_WORDS,
};
use gerbil::reference::{self, speech};
use rand::Rng;

fn poisoned(rows: usize, cols: usize) -> Mat {
    Mat::from_data(&gpu(), "out", &vec![f32::NAN; rows * cols], cols)
}

fn up(data: &[f32], cols: usize) -> Mat {
    Mat::from_data(&gpu(), "in", data, cols)
}

#[test]
fn layer_norm_rows() {
    let mut r = rng("layer_norm");
    for (rows, dim) in [(1, 64), (5, 384), (3, 700), (33, 80)] {
        let mut x = randn(&mut r, rows * dim);
        // An offset mean, so a kernel that skips centring fails.
        x.iter_mut().for_each(|v| *v += 3.0);
        let (w, b) = (randn(&mut r, dim), randn(&mut r, dim));
        let out = poisoned(rows, dim);
        let mut rec = Recorder::new(&gpu());
        rec.layer_norm(&up(&x, dim), &up(&w, dim), &up(&b, dim), 1e-5, &out);
        rec.submit();
        let want = speech::layer_norm(&x, &w, &b, dim, 1e-5);
        assert_close("layer_norm", &out.read(&gpu()).unwrap(), &want, 2e-5, 2e-5);
    }
}

#[test]
fn gelu_and_add() {
    let mut r = rng("gelu");
    for (rows, width) in [(1, 10), (7, 300), (2, 1536)] {
        let x: Vec<f32> = randn(&mut r, rows * width).iter().map(|v| v * 4.0).collect();
        let y = randn(&mut r, rows * width + width); // more rows than x: a position table
        let (g, s) = (poisoned(rows, width), poisoned(rows, width));
        let mut rec = Recorder::new(&gpu());
        let xm = up(&x, width);
        rec.gelu(&xm, &g);
        rec.add(&xm, &up(&y, width), &s);
        rec.submit();
        assert_close("gelu", &g.read(&gpu()).unwrap(), &speech::gelu(&x), 1e-6, 1e-5);
        let sum: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
        assert_close("add", &s.read(&gpu()).unwrap(), &sum, 0.0, 0.0);
    }
}

#[test]
fn conv1d_via_im2col() {
    let mut r = rng("conv1d");
    // (t_in, c_in, c_out, kernel, stride, pad): Whisper's two convs, Moonshine-like strides.
    for (t_in, c_in, c_out, kernel, stride, pad) in
        [(50, 80, 64, 3, 1, 1), (50, 64, 64, 3, 2, 1), (301, 1, 24, 127, 64, 0), (41, 24, 40, 7, 3, 0)]
    {
        let x = randn(&mut r, t_in * c_in);
        let w = randn(&mut r, c_out * c_in * kernel);
        let b = randn(&mut r, c_out);
        let conv = Conv1d { c_in, kernel, stride, pad };
        let t_out = conv.out_len(t_in);
        let out = poisoned(t_out, c_out);
        let scratch = poisoned(t_out, c_in * kernel);
        let mut rec = Recorder::new(&gpu());
        rec.conv1d(&up(&x, c_in), conv, &up(&w, c_in * kernel), Some(&up(&b, c_out)), &scratch, &out);
        rec.submit();
        let want = speech::conv1d(&x, c_in, &w, Some(&b), kernel, stride, pad);
        assert_eq!(want.len(), t_out * c_out);
        assert_close("conv1d", &out.read(&gpu()).unwrap(), &want, 1e-4, 1e-4);
    }
}

#[test]
fn linear_matvec_and_matmul() {
    let mut r = rng("linear");
    for (m, n, k) in [(1, 70, 64), (3, 33, 100), (37, 65, 48)] {
        let (x, w, b) = (randn(&mut r, m * k), randn(&mut r, n * k), randn(&mut r, n));
        let out = poisoned(m, n);
        let mut rec = Recorder::new(&gpu());
        rec.linear(&up(&x, k), &up(&w, k), Some(&up(&b, n)), &out);
        rec.submit();
        assert_close("linear", &out.read(&gpu()).unwrap(), &reference::matmul(&x, &w, Some(&b), k), 1e-4, 1e-4);
    }
}

#[test]
fn attention_strided_causal_and_cross() {
    let mut r = rng("attention_full");
    // (n_q, kv_len, heads, hd, causal_from): encoder self-attention over fused QKV,
    // a decoder prefill and a single decode step over a cache, cross-attention
    // with more than 256 keys (several online-softmax blocks).
    for (n_q, kv_len, heads, hd, causal) in
        [(20, 20, 4, 16, None), (5, 5, 2, 64, Some(0)), (1, 9, 6, 64, Some(8)), (3, 300, 3, 32, None)]
    {
        let d = heads * hd;
        // Queries in a fused [n_q, 3D] buffer; keys/values in a fused [kv_len, 2D] one.
        let q = randn(&mut r, n_q * 3 * d);
        let kv = randn(&mut r, kv_len * 2 * d);
        let out = poisoned(n_q, d);
        let a = AttnArgs {
            n_heads: heads,
            head_dim: hd,
            kv_len,
            q_stride: 3 * d,
            kv_stride: 2 * d,
            k_off: 0,
            v_off: d,
            causal_from: causal,
            row_off: 0,
        };
        let (qm, kvm) = (up(&q, 3 * d), up(&kv, 2 * d));
        let mut rec = Recorder::new(&gpu());
        rec.attention(&qm, &kvm, &kvm, a, &out);
        rec.submit();
        let want = speech::attention(&q, &kv, &kv, n_q, heads, hd, kv_len, 3 * d, 2 * d, 0, d, causal);
        assert_close("attention_full", &out.read(&gpu()).unwrap(), &want, 2e-5, 1e-4);
    }
}

/// Sequences packed one after another in one fused [rows, 3D] buffer (batched encoders): each attends
/// only to its own keys, through `row_off` and key/value offsets, in both kernels (the scratch matmul
/// path, which lavapipe takes past 4 rows, and the one-workgroup-per-query kernel).
#[test]
fn attention_of_sequences_packed_in_one_buffer() {
    let mut r = rng("attention_full packed");
    let (heads, hd) = (4, 16);
    let d = heads * hd;
    let lens = [5, 7, 3];
    let total: usize = lens.iter().sum();
    let qkv = randn(&mut r, total * 3 * d);
    let qm = up(&qkv, 3 * d);
    for scratch in [false, true] {
        let out = poisoned(total, d);
        let scores = Recorder::new(&gpu()).attention_scores(heads, 8);
        let mut rec = Recorder::new(&gpu());
        let mut want = Vec::new();
        let mut r0 = 0;
        for &n in &lens {
            let a = AttnArgs {
                n_heads: heads,
                head_dim: hd,
                kv_len: n,
                q_stride: 3 * d,
                kv_stride: 3 * d,
                k_off: r0 * 3 * d + d,
                v_off: r0 * 3 * d + 2 * d,
                causal_from: None,
                row_off: r0,
            };
            let q = qm.with_rows(n);
            if scratch {
                rec.attention_scratch(&q, &qm, &qm, a, &out.with_rows(n), &scores);
            } else {
                rec.attention(&q, &qm, &qm, a, &out.with_rows(n));
            }
            let own = &qkv[r0 * 3 * d..(r0 + n) * 3 * d];
            want.extend(speech::attention(own, own, own, n, heads, hd, n, 3 * d, 3 * d, d, 2 * d, None));
            r0 += n;
        }
        rec.submit();
        assert_close(&format!("packed attention, scratch {scratch}"), &out.read(&gpu()).unwrap(), &want, 2e-5, 1e-4);
    }
}

#[test]
fn copy_rows_into_a_cache() {
    let mut r = rng("copy_rows");
    let src = randn(&mut r, 3 * 8);
    let cache = poisoned(10, 8);
    let mut rec = Recorder::new(&gpu());
    rec.copy_rows(&up(&src, 8), &cache, 4);
    rec.submit();
    let got = cache.read(&gpu()).unwrap();
    assert_eq!(&got[32..56], &src[..]);
}

fn stats_close(what: &str, got: &LogitStats, want: &LogitStats) {
    let near = |a: f32, b: f32| a == b || (a - b).abs() <= 1e-4 * (1.0 + b.abs());
    for g in 0..2 {
        assert_eq!(got.arg[g], want.arg[g], "{what}: argmax of group {g}: {got:?} vs {want:?}");
        assert_eq!(got.max[g], want.max[g], "{what}: max of group {g}");
        assert!(near(got.lse[g], want.lse[g]), "{what}: lse of group {g}: {got:?} vs {want:?}");
        assert_eq!(got.garg[g], want.garg[g], "{what}: Gumbel pick of group {g}: {got:?} vs {want:?}");
        assert!(
            near(got.gumbel[g], want.gumbel[g]),
            "{what}: Gumbel value of group {g}: {} vs {}",
            got.gumbel[g],
            want.gumbel[g]
        );
        assert_eq!(got.glogit[g], want.glogit[g], "{what}: logit of the Gumbel pick of group {g}");
    }
    assert_eq!(got.probe, want.probe, "{what}: probe");
}

/// Runs `logit_stats` for each (row, rules) of `logits` [rows, vocab] on the adapter.
fn gpu_stats(logits: &[f32], vocab: usize, masks: &[u32], rules: &[(usize, LogitRules)]) -> Vec<LogitStats> {
    let g = gpu();
    let lm = up(logits, vocab);
    let mb = g.storage_from("masks", masks);
    let out = g.storage_from("stats", &vec![0x7fc0_0000u32; rules.len() * STATS_WORDS]);
    let mut rec = Recorder::new(&g);
    for (slot, (row, r)) in rules.iter().enumerate() {
        rec.logit_stats(&lm, *row, &mb, vocab.div_ceil(32), r, &out, slot);
    }
    rec.submit();
    let words = g.read_u32(&out, rules.len() * STATS_WORDS).unwrap();
    words.chunks_exact(STATS_WORDS).map(LogitStats::from_words).collect()
}

#[test]
fn logit_stats_masks_groups_and_gumbel_sampling() {
    let mut r = rng("logit_stats");
    for vocab in [300usize, 5000, 51864] {
        let rows = 2;
        let logits: Vec<f32> = randn(&mut r, rows * vocab).iter().map(|v| v * 8.0).collect();
        let words = vocab.div_ceil(32);
        let pick = |r: &mut rand::rngs::StdRng, n: usize| -> Vec<u32> {
            (0..n).map(|_| r.random_range(0..vocab as u32)).collect()
        };
        let mut masks = mask_bits(vocab, &pick(&mut r, vocab / 10));
        masks.extend(mask_bits(vocab, &pick(&mut r, vocab / 10)));
        let split = (vocab * 3 / 4) as u32;
        let v = vocab as u32;
        let seed = r.random::<u32>();
        let cases = [
            (0, LogitRules::all(vocab, 7)),
            (1, LogitRules { split, kill_end: 0, ts_lo: split, ts_hi: v, mask: true, ..Default::default() }),
            (
                1,
                LogitRules {
                    split,
                    kill_end: split / 2,
                    ts_lo: split + 9,
                    ts_hi: split + 40,
                    mask: true,
                    begin: true,
                    probe: v - 1,
                    ..Default::default()
                },
            ),
            (
                0,
                LogitRules {
                    split,
                    kill_end: split,
                    ts_lo: v,
                    ts_hi: v,
                    sample: Some((0.7, seed)),
                    ..Default::default()
                },
            ),
            (
                1,
                LogitRules {
                    split,
                    ts_lo: split + 3,
                    ts_hi: v,
                    mask: true,
                    sample: Some((1.0, seed ^ 1)),
                    ..Default::default()
                },
            ),
        ];
        let got = gpu_stats(&logits, vocab, &masks, &cases);
        for (i, ((row, rules), g)) in cases.iter().zip(&got).enumerate() {
            let want = logit_stats_cpu(&logits[row * vocab..(row + 1) * vocab], &masks, words, rules);
            stats_close(&format!("vocab {vocab} case {i}"), g, &want);
        }
        // An empty group reports the sentinel, not garbage.
        assert_eq!((got[3].arg[0], got[3].max[0], got[3].lse[1]), (u32::MAX, EMPTY, EMPTY));
    }
}

/// The GPU path (rules + logit_stats + choose) picks the same token with the
/// same log-probability as the CPU filters (`LogitFilter::apply`, argmax,
/// log-softmax) over random logits and random histories of text and timestamp tokens.
#[test]
fn whisper_gpu_selection_matches_the_cpu_filters() {
    let mut r = rng("whisper_select");
    let vocab = 1200usize;
    let (eot, tb) = (700u32, 720u32);
    let sp = Specials {
        eot,
        sot: eot + 1,
        sot_prev: Some(eot + 2),
        sot_lm: Some(eot + 3),
        transcribe: None,
        translate: None,
        no_speech: Some(eot + 4),
        no_timestamps: tb - 1,
        ts_begin: tb,
        languages: vec![],
    };
    let filter = LogitFilter {
        sp,
        suppress: vec![eot + 1, eot + 2, eot + 3, eot + 4, 5, 77, 300],
        begin_suppress: vec![220, eot],
        max_initial_timestamp: 50,
        vocab,
    };
    let masks = filter.masks();
    let mut cases = Vec::new();
    let mut rows = Vec::new();
    for case in 0..24 {
        let n = case % 6;
        let mut hist: Vec<u32> = Vec::new();
        let mut ts = tb;
        for _ in 0..n {
            if r.random_bool(0.5) {
                ts += r.random_range(0..20);
                hist.push(ts.min(vocab as u32 - 1));
            } else {
                hist.push(r.random_range(0..eot));
            }
        }
        let mut row: Vec<f32> = randn(&mut r, vocab).iter().map(|v| v * 6.0).collect();
        // Every other case makes timestamps likely, so the forcing rule fires.
        let boost = if case % 2 == 0 { 4.0 } else { 0.0 };
        row[tb as usize..].iter_mut().for_each(|v| *v += boost);
        cases.push(hist);
        rows.push(row);
    }
    let flat: Vec<f32> = rows.concat();
    let want: Vec<(usize, LogitRules)> = cases.iter().enumerate().map(|(i, h)| (i, filter.rules(h, None))).collect();
    let got = gpu_stats(&flat, vocab, &masks, &want);
    for ((hist, row), st) in cases.iter().zip(&rows).zip(&got) {
        let mut cpu = row.clone();
        filter.apply(&mut cpu, hist);
        let top = cpu.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let best = cpu.iter().position(|&v| v == top).unwrap() as u32;
        let lp = log_probs(&cpu)[best as usize];
        let (tok, glp) = choose(st, false);
        assert_eq!(tok, best, "history {hist:?}");
        assert!((glp - lp).abs() < 1e-4, "log-probability {glp} vs {lp} (history {hist:?})");
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum WLayout {
    /// Unaligned offsets / k: matmul_bcast.wgsl.
    Unaligned,
    /// w [n, k] rows, everything a multiple of 4: matmul_block16.
    AlongK,
    /// w [k, n] (contiguous along n), aligned: matmul_block16_kn.
    AlongN,
}

#[test]
fn matmul_strided_bcast_and_block16() {
    let mut r = rng("matmul_strided");
    use WLayout::*;
    // Shapes straddle the 16 x 16 invocation blocks and 64 x 64 workgroup tiles.
    for (m, n, k, batch, layout) in [
        (16, 64, 8, 1, Unaligned),
        (37, 70, 33, 1, Unaligned),
        (5, 130, 64, 3, Unaligned),
        (16, 64, 8, 1, AlongK),
        (37, 70, 36, 1, AlongK),
        (5, 130, 64, 3, AlongK),
        (81, 150, 20, 2, AlongK),
        (16, 64, 8, 1, AlongN),
        (37, 68, 36, 1, AlongN),
        (81, 132, 24, 3, AlongN),
    ] {
        let aligned = layout != Unaligned;
        let pad = if aligned { 4 } else { 3 };
        let (x_rs, x_bs) = (batch * (k + pad), k + pad);
        let x_off = if aligned { 4 } else { 2 };
        let (w_ns, w_ks) = if layout == AlongK { (k, 1) } else { (1, n) };
        let w_off = if aligned { 8 } else { 5 };
        let x = randn(&mut r, x_off + m * x_rs + 7);
        let w = randn(&mut r, w_off + batch * k * n + 5);
        let b = randn(&mut r, n);
        let (y_rs, y_bs) = (batch * n, n);
        let y = gpu().storage_from("y", &vec![f32::NAN; m * y_rs]);
        let s = Strided {
            m,
            n,
            k,
            batch,
            x_off,
            x_rs,
            x_bs,
            w_off,
            w_ns,
            w_ks,
            w_bs: k * n,
            y_off: 0,
            y_rs,
            y_bs,
            scale: 0.5,
        };
        let mut rec = Recorder::new(&gpu());
        rec.matmul_strided(&up(&x, 1).buf, &up(&w, 1).buf, Some(&up(&b, n).buf), &y, &s);
        rec.submit();
        let got = gpu().read_f32(&y, m * y_rs).unwrap();
        let mut want = vec![0f32; m * y_rs];
        for bb in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let mut acc = 0f32;
                    for kk in 0..k {
                        acc += x[x_off + bb * x_bs + i * x_rs + kk] * w[w_off + bb * k * n + j * w_ns + kk * w_ks];
                    }
                    want[bb * y_bs + i * y_rs + j] = acc * 0.5 + b[j];
                }
            }
        }
        assert_close(&format!("matmul_strided {m}x{n}x{k} b{batch} {layout:?}"), &got, &want, 1e-4, 1e-4);
    }
}

/// `linear` with few rows: on CPU adapters matvec_cols8.wgsl (k % 4 == 0),
/// matvec_f32.wgsl otherwise and on GPUs; column counts straddle 8 and 512.
#[test]
fn linear_few_rows() {
    let mut r = rng("linear_few_rows");
    for (m, n, k) in [(1, 600, 36), (3, 517, 64), (4, 9, 12), (2, 40, 10)] {
        let x = randn(&mut r, m * k);
        let w = randn(&mut r, n * k);
        let b = randn(&mut r, n);
        let out = poisoned(m, n);
        let mut rec = Recorder::new(&gpu());
        rec.linear(&up(&x, k), &up(&w, k), Some(&up(&b, n)), &out);
        rec.submit();
        let want: Vec<f32> = (0..m * n)
            .map(|i| {
                let (row, col) = (i / n, i % n);
                (0..k).map(|j| x[row * k + j] * w[col * k + j]).sum::<f32>() + b[col]
            })
            .collect();
        assert_close(&format!("linear {m}x{n}x{k}"), &out.read(&gpu()).unwrap(), &want, 1e-5, 1e-4);
    }
}

#[test]
fn softmax_rows_and_matmul_attention() {
    let mut r = rng("softmax_rows");
    let (rows, width) = (5, 700);
    let x: Vec<f32> = randn(&mut r, rows * width).iter().map(|v| v * 10.0).collect();
    let m = up(&x, width);
    let mut rec = Recorder::new(&gpu());
    rec.softmax_rows(&m);
    rec.submit();
    let mut want = Vec::new();
    for row in x.chunks(width) {
        let mx = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = row.iter().map(|v| (v - mx).exp()).collect();
        let s: f32 = e.iter().sum();
        want.extend(e.iter().map(|v| v / s));
    }
    assert_close("softmax_rows", &m.read(&gpu()).unwrap(), &want, 1e-6, 1e-4);

    // Encoder-style attention through the scratch path (on CPU adapters: two
    // strided matmuls and the softmax; elsewhere the fused kernel), with a
    // scratch that holds two heads so the heads go in groups.
    for (n_q, heads, hd) in [(40, 3, 64), (300, 2, 32)] {
        let d = heads * hd;
        let qkv = randn(&mut r, n_q * 3 * d);
        let a = AttnArgs {
            n_heads: heads,
            head_dim: hd,
            kv_len: n_q,
            q_stride: 3 * d,
            kv_stride: 3 * d,
            k_off: d,
            v_off: 2 * d,
            causal_from: None,
            row_off: 0,
        };
        let out = poisoned(n_q, d);
        let scratch = poisoned(2 * n_q, n_q);
        let qm = up(&qkv, 3 * d);
        let mut rec = Recorder::new(&gpu());
        rec.attention_scratch(&qm, &qm, &qm, a, &out, &scratch);
        rec.submit();
        let want = speech::attention(&qkv, &qkv, &qkv, n_q, heads, hd, n_q, 3 * d, 3 * d, d, 2 * d, None);
        assert_close("attention_scratch", &out.read(&gpu()).unwrap(), &want, 2e-5, 1e-4);
    }
}

/// `linear_w` with INT4 weights (Moonshine's decoder projections): the matvec
/// kernel up to 64 rows, the tiled matmul above, against the dequantized
/// weights on the CPU; group 64 where it divides the input, else 32.
#[test]
fn linear_int4_matvec_and_matmul() {
    use gerbil::nn::{Int4Mat, Weight};
    use gerbil::weights::int4::Int4Matrix;
    let mut r = rng("linear_int4");
    for (m, n, k, group) in [(1, 416, 416, 32), (3, 100, 1664, 64), (64, 40, 96, 32), (70, 130, 128, 64)] {
        let w = randn(&mut r, n * k);
        let x = randn(&mut r, m * k);
        let b = randn(&mut r, n);
        let q = Int4Mat::upload(&gpu(), "w", &w, n, k).unwrap();
        assert_eq!(q.group, group, "group for k = {k}");
        let deq = Int4Matrix::quantize(&w, n, k, group).unwrap().dequantize();
        let out = poisoned(m, n);
        let mut rec = Recorder::new(&gpu());
        rec.linear_w(&up(&x, k), &Weight::Int4(q), Some(&up(&b, n)), &out);
        rec.submit();
        let want: Vec<f32> = (0..m * n)
            .map(|i| {
                let (row, col) = (i / n, i % n);
                (0..k).map(|j| x[row * k + j] * deq[col * k + j]).sum::<f32>() + b[col]
            })
            .collect();
        assert_close(&format!("linear int4 {m}x{n}x{k}"), &out.read(&gpu()).unwrap(), &want, 1e-4, 1e-4);
    }
    // Shapes the kernels cannot take fall back to f32 rather than failing.
    assert!(matches!(Weight::new(&gpu(), "w", &randn(&mut r, 4 * 40), 4, 40, true), Weight::F32(_)));
}
