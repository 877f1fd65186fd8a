//! Replays the committed fuzz corpus (fuzz/corpus/<target>/*) through the same code the cargo-fuzz
//! targets drive (fuzz/harness.rs), on stable Rust: what the fuzzer once found interesting, and
//! the crash reproducers kept after fixes, stay checked by every test run. The fuzzing itself
//! (libFuzzer, nightly) is `tools/fuzz.sh`.

#[path = "../fuzz/harness.rs"]
mod harness;

use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("corpus entry").path())
        .collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).expect("corpus file"))).collect()
}

#[test]
fn every_target_has_a_corpus_and_replays_it_without_a_crash() {
    std::fs::create_dir_all("/tmp/xdg").ok();
    for target in harness::TARGETS {
        let inputs = corpus(target);
        assert!(inputs.len() >= 3, "{target}: {} corpus files; run tools/make_fuzz_seeds.py", inputs.len());
        for (path, data) in inputs {
            let result = std::panic::catch_unwind(|| harness::run(target, &data));
            assert!(result.is_ok(), "{target}: {} crashes the target", path.display());
        }
    }
}
