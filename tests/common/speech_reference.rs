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
