//! Truncations and random corruption of a valid file never panic.

use super::super::GgufFile;
use super::util::FIXTURE;

/// Exercises every accessor of a file that parsed.
fn poke(f: &GgufFile) {
    let names: Vec<String> = f.tensor_infos().iter().map(|t| t.name.clone()).collect();
    for n in &names {
        let _ = f.tensor_data(n);
        let _ = f.tensor_f32(n);
        let _ = f.tensor_int4(n);
    }
    let _ = f.llama_params();
    let _ = f.tokenizer();
    let md = f.metadata();
    for (k, _) in md.entries() {
        let _ = md.get_u32(k);
        let _ = md.get_f32(k);
        let _ = md.get_str(k);
        let _ = md.get_str_array(k);
        let _ = md.get_int_array(k);
        let _ = md.get_f32_array(k);
    }
}

#[test]
fn every_truncated_prefix_is_an_error() {
    let last_end = {
        let f = GgufFile::from_bytes("fixture", FIXTURE.to_vec()).unwrap();
        let h = f.header();
        h.tensors.iter().map(|t| h.data_offset + t.offset + t.n_bytes).max().unwrap() as usize
    };
    for n in 0..FIXTURE.len() {
        let r = GgufFile::from_bytes(format!("prefix-{n}"), FIXTURE[..n].to_vec());
        match r {
            Ok(f) => {
                assert!(n >= last_end, "prefix {n} < {last_end} parsed");
                poke(&f);
            }
            Err(e) => assert!(e.to_string().contains(&format!("prefix-{n}"))),
        }
    }
}

/// xorshift64*, deterministic.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn random_byte_flips_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // header region (metadata + tensor infos) is where parsing happens
    let header_len = GgufFile::from_bytes("f", FIXTURE.to_vec()).unwrap().header().data_offset as usize;
    let mut parsed = 0;
    for iter in 0..4000 {
        let mut bytes = FIXTURE.to_vec();
        let flips = 1 + rng.next() % 8;
        for _ in 0..flips {
            let span = if iter % 4 == 0 { bytes.len() } else { header_len };
            let pos = (rng.next() as usize) % span;
            match rng.next() % 3 {
                0 => bytes[pos] ^= 1 << (rng.next() % 8),
                1 => bytes[pos] = rng.next() as u8,
                _ => bytes[pos] = 0xff,
            }
        }
        if let Ok(f) = GgufFile::from_bytes("flipped", bytes) {
            parsed += 1;
            poke(&f);
        }
    }
    assert!(parsed > 0, "no corrupted variant parsed; the test is not exercising accessors");
}
