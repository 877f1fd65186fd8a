//! The transformers reference outputs of a speech fixture (`tests/fixtures/<family>/ref`): f32 tensors, and
//! token ids stored as int32 (which the f32 checkpoint path does not read, so they are parsed raw).

use std::path::{Path, PathBuf};

use gerbil::weights::Checkpoint;

pub struct Reference {
    ck: Checkpoint,
    dir: PathBuf,
}

impl Reference {
    /// `fixture`: the fixture folder (holding `ref/reference.safetensors`).
    pub fn open(fixture: &Path) -> Self {
        let dir = fixture.join("ref");
        Reference { ck: Checkpoint::open(&dir).unwrap(), dir }
    }

    pub fn f32(&self, name: &str) -> Vec<f32> {
        let shape = self.ck.shape(name).unwrap();
        self.ck.f32(name, &shape).unwrap()
    }

    pub fn ids(&self, name: &str) -> Vec<u32> {
        let bytes = std::fs::read(self.dir.join("reference.safetensors")).unwrap();
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        let t = st.tensor(name).unwrap();
        t.data().chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u32).collect()
    }
}

/// What the decoder checks need of a speech decoder: logits of `want` rows after feeding `tokens`,
/// and an empty cache.
pub trait StepDecoder {
    fn step(&mut self, tokens: &[u32], want: &[usize]) -> Vec<f32>;
    fn reset(&mut self);
}

impl StepDecoder for gerbil::models::moonshine::Decoder<'_> {
    fn step(&mut self, tokens: &[u32], want: &[usize]) -> Vec<f32> {
        gerbil::models::moonshine::Decoder::step(self, tokens, want).unwrap()
    }
    fn reset(&mut self) {
        gerbil::models::moonshine::Decoder::reset(self)
    }
}

impl StepDecoder for gerbil::models::whisper::Decoder<'_> {
    fn step(&mut self, tokens: &[u32], want: &[usize]) -> Vec<f32> {
        gerbil::models::whisper::Decoder::step(self, tokens, want).unwrap()
    }
    fn reset(&mut self) {
        gerbil::models::whisper::Decoder::reset(self)
    }
}

/// The reference's `logits` under teacher forcing of `forced_ids` (fed in two steps, so the KV
/// cache is exercised), then a greedy argmax loop (no logits processors) giving `greedy_ids`.
pub fn check_decoder(r: &Reference, dec: &mut impl StepDecoder, vocab: usize) {
    let forced = r.ids("forced_ids");
    let split = 4;
    let rows_a: Vec<usize> = (0..split).collect();
    let mut got = dec.step(&forced[..split], &rows_a);
    let rows_b: Vec<usize> = (0..forced.len() - split).collect();
    got.extend(dec.step(&forced[split..], &rows_b));
    assert_eq!(got.len(), forced.len() * vocab);
    super::assert_close("decoder logits", &got, &r.f32("logits"), 1e-3, 1e-3);

    let greedy = r.ids("greedy_ids");
    dec.reset();
    let mut ids = vec![greedy[0]];
    while ids.len() < greedy.len() {
        let logits = dec.step(&ids[ids.len() - 1..], &[0]);
        let best = (0..vocab).max_by(|&a, &b| logits[a].total_cmp(&logits[b])).unwrap();
        ids.push(best as u32);
    }
    assert_eq!(ids, greedy, "greedy tokens");
}
