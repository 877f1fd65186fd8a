//! The reference a hybrid-family fixture carries (tools/make_fixtures_*.py): prompt ids, transformers'
//! prefill logits, the greedy continuation and the logits of each decode step.

use std::path::PathBuf;

pub struct Reference {
    pub prompt: Vec<u32>,
    pub prefill_logits: Vec<f32>,
    pub generated: Vec<u32>,
    pub step_logits: Vec<f32>,
    pub vocab: usize,
    pub prompt_text: String,
}

pub fn fixture_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A copy of fixture `name` whose config allows `positions` positions (random weights do not mind),
/// in a fresh temporary folder the caller removes once the model is loaded.
pub fn fixture_with_positions(name: &str, positions: usize) -> PathBuf {
    fixture_with_config(name, &format!("{positions}"), |c| c["max_position_embeddings"] = positions.into())
}

/// A temporary copy of fixture `name` with its config.json changed by `edit` (`tag` names the copy).
/// The caller removes the directory.
pub fn fixture_with_config(name: &str, tag: &str, edit: impl Fn(&mut serde_json::Value)) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gerbil-{name}-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in std::fs::read_dir(fixture_dir(name)).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, dir.join(f.file_name().unwrap())).unwrap();
    }
    let cfg = dir.join("config.json");
    let mut c: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
    edit(&mut c);
    std::fs::write(&cfg, c.to_string()).unwrap();
    dir
}

/// Reads `reference.safetensors` + `meta.json` of fixture `name`.
pub fn read_reference(name: &str) -> Reference {
    let dir = fixture_dir(name);
    let bytes = std::fs::read(dir.join("reference.safetensors")).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let f32s = |n: &str| -> (Vec<f32>, Vec<usize>) {
        let t = st.tensor(n).unwrap();
        (t.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect(), t.shape().to_vec())
    };
    let ids = |n: &str| -> Vec<u32> {
        st.tensor(n).unwrap().data().chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap()) as u32).collect()
    };
    let (prefill_logits, shape) = f32s("prefill_logits");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    Reference {
        prompt: ids("prompt_ids"),
        prefill_logits,
        generated: ids("generated_ids"),
        step_logits: f32s("step_logits").0,
        vocab: shape[1],
        prompt_text: meta["prompt"].as_str().unwrap().to_string(),
    }
}

pub fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}
