//! Fuzzes the GGUF reader and everything reachable from a parsed file:
//! tensor data/dequantization/INT4 repacking, metadata accessors,
//! hyper-parameters and tokenizer construction. Any panic is a bug.
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run gguf_parse` (seed it with
//! `src/gguf/testdata/dequant_fixture.gguf`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code, unused_imports)]
#[path = "../../src/gguf/mod.rs"]
mod gguf;

fuzz_target!(|data: &[u8]| {
    let Ok(f) = gguf::GgufFile::from_bytes("fuzz", data.to_vec()) else {
        return;
    };
    let names: Vec<String> = f.tensor_infos().iter().map(|t| t.name.clone()).collect();
    for n in &names {
        let _ = f.tensor_data(n);
        let _ = f.tensor_f32(n);
        if let Ok(Some(g)) = f.tensor_int4(n) {
            let _ = g.dequantize();
        }
    }
    let md = f.metadata();
    for (k, _) in md.entries() {
        let _ = md.get_u32(k);
        let _ = md.get_i64(k);
        let _ = md.get_f32(k);
        let _ = md.get_bool(k);
        let _ = md.get_str(k);
        let _ = md.get_str_array(k);
        let _ = md.get_int_array(k);
        let _ = md.get_f32_array(k);
    }
    let _ = f.llama_params();
    if let Ok(t) = f.tokenizer() {
        if let Ok(enc) = t.tokenizer.encode("Hello world 123 <|im_end|>\n", true) {
            let _ = t.tokenizer.decode(enc.get_ids(), false);
        }
    }
});
