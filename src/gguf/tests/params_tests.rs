//! Hyper-parameters and the Q/K row un-permutation.

use super::super::{select_rows_f32, unpermute_rows, GgufError, GgufFile, GgufLlamaParams};
use super::util::{fixture, Builder};

/// convert_hf_to_gguf's permute as literal index arithmetic:
/// `w.reshape(n_head, 2, hd/2, ...).swapaxes(1, 2).reshape(w.shape)`, i.e.
/// GGUF row `h*hd + i*2 + j` holds HF row `h*hd + j*hd/2 + i`.
fn python_permute(rows: usize, n_head: usize) -> Vec<usize> {
    let hd = rows / n_head;
    let mut perm = vec![0; rows];
    for h in 0..n_head {
        for i in 0..hd / 2 {
            for j in 0..2 {
                perm[h * hd + i * 2 + j] = h * hd + j * (hd / 2) + i;
            }
        }
    }
    perm
}

#[test]
fn unpermute_rows_inverts_python_permute() {
    // numpy: permute(np.arange(16), 2) and permute(np.arange(12), 3)
    assert_eq!(python_permute(16, 2), [0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15]);
    assert_eq!(python_permute(12, 3), [0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11]);
    for (rows, n_head) in [(16, 2), (12, 3), (576, 9), (192, 3), (4096, 32), (2, 1)] {
        let perm = python_permute(rows, n_head); // gguf[p] = hf[perm[p]]
        let src = unpermute_rows(rows, n_head); // hf[o] = gguf[src[o]]
        for (o, &p) in src.iter().enumerate() {
            assert_eq!(perm[p], o, "rows={rows} n_head={n_head}");
        }
    }
    // applied to data
    let hf: Vec<f32> = (0..16 * 3).map(|x| x as f32).collect();
    let perm = python_permute(16, 2);
    let gguf = select_rows_f32(&hf, 3, &perm);
    assert_eq!(select_rows_f32(&gguf, 3, &unpermute_rows(16, 2)), hf);
}

#[test]
#[should_panic(expected = "multiple of 2 * n_head")]
fn unpermute_rows_rejects_bad_shapes() {
    unpermute_rows(10, 3);
}

fn qwen_like(arch: &str) -> Vec<u8> {
    qwen_like_layers(arch, 28)
}

fn qwen_like_layers(arch: &str, layers: u32) -> Vec<u8> {
    let mut b = Builder::new();
    let k = |s: &str| format!("{arch}.{s}");
    b.kv_str("general.architecture", arch)
        .kv_u32(&k("block_count"), layers)
        .kv_u32(&k("context_length"), 40960)
        .kv_u32(&k("embedding_length"), 1024)
        .kv_u32(&k("feed_forward_length"), 3072)
        .kv_u32(&k("attention.head_count"), 16)
        .kv_u32(&k("attention.head_count_kv"), 8)
        .kv_u32(&k("attention.key_length"), 128)
        .kv_u32(&k("attention.value_length"), 128)
        .kv_f32(&k("rope.freq_base"), 1_000_000.0)
        .kv_f32(&k("attention.layer_norm_rms_epsilon"), 1e-6)
        .kv_str(&k("rope.scaling.type"), "yarn")
        .kv_f32(&k("rope.scaling.factor"), 4.0)
        .kv_u32(&k("rope.scaling.original_context_length"), 32768)
        .kv_str_array("tokenizer.ggml.tokens", &["a", "b", "c"]);
    b.build()
}

#[test]
fn params_qwen3_style_metadata() {
    let f = GgufFile::from_bytes("q3", qwen_like("qwen3")).unwrap();
    let p = f.llama_params().unwrap();
    assert_eq!(
        p,
        GgufLlamaParams {
            arch: "qwen3".into(),
            block_count: 28,
            embedding_length: 1024,
            feed_forward_length: 3072,
            head_count: 16,
            head_count_kv: 8,
            rope_freq_base: 1_000_000.0,
            rope_dimension_count: 128,
            rms_eps: 1e-6,
            context_length: 40960,
            vocab_size: 3,
            rope_scaling_type: Some("yarn".into()),
            rope_scaling_factor: Some(4.0),
            rope_scaling_original_context_length: Some(32768),
            key_length: Some(128),
            value_length: Some(128),
        }
    );
    assert_eq!(p.head_dim(), 128);
    assert!(!p.qk_rows_permuted());
}

#[test]
fn params_errors() {
    let e = GgufFile::from_bytes("q", qwen_like("gpt2")).unwrap().llama_params().unwrap_err();
    assert!(e.to_string().contains("gpt2"), "{e}");
    // the fixture says arch=llama but has no llama.* keys
    let e = fixture().llama_params().unwrap_err();
    assert!(matches!(e, GgufError::MissingKey { .. }), "{e}");
    assert!(e.to_string().contains("llama."), "{e}");
    // Zero layers loaded as a model that echoes its embeddings.
    let e = GgufFile::from_bytes("q", qwen_like_layers("qwen3", 0)).unwrap().llama_params().unwrap_err();
    assert!(e.to_string().contains("block_count"), "{e}");
}

/// Qwen3 metadata without rope scaling, with the three numbers `GgufSource::config` range-checks.
fn qwen3_numbers(context: u32, freq_base: f32, eps: f32) -> Vec<u8> {
    let mut b = Builder::new();
    b.kv_str("general.architecture", "qwen3")
        .kv_u32("qwen3.block_count", 2)
        .kv_u32("qwen3.context_length", context)
        .kv_u32("qwen3.embedding_length", 64)
        .kv_u32("qwen3.feed_forward_length", 128)
        .kv_u32("qwen3.attention.head_count", 4)
        .kv_u32("qwen3.attention.head_count_kv", 2)
        .kv_f32("qwen3.rope.freq_base", freq_base)
        .kv_f32("qwen3.attention.layer_norm_rms_epsilon", eps)
        .kv_str_array("tokenizer.ggml.tokens", &["a", "b", "c"]);
    b.build()
}

/// GGUF files go through the same range checks as config.json (models::check_text_numbers):
/// a context of 0, a rope base <= 0 or a negative epsilon fail the load, naming the GGUF key.
#[test]
fn gguf_config_refuses_out_of_range_numbers() {
    use crate::models::llama::gguf::GgufSource;
    let dir = std::env::temp_dir().join(format!("gerbil-gguf-range-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = |name: &str, bytes: Vec<u8>| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        GgufSource::open(&path).map_err(|e| e.to_string()).and_then(|s| s.config().map_err(|e| e.to_string()))
    };
    assert!(config("ok.gguf", qwen3_numbers(4096, 1e6, 1e-6)).is_ok());
    for (name, bytes, word) in [
        ("ctx0.gguf", qwen3_numbers(0, 1e6, 1e-6), "max_position_embeddings"),
        ("rope0.gguf", qwen3_numbers(4096, 0.0, 1e-6), "rope_theta"),
        ("ropeneg.gguf", qwen3_numbers(4096, -1.0, 1e-6), "rope_theta"),
        ("eps.gguf", qwen3_numbers(4096, 1e6, -1e-6), "eps"),
    ] {
        let e = config(name, bytes).expect_err(name);
        assert!(e.contains("GGUF metadata") && e.contains(word), "{name}: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
