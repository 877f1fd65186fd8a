//! Every target in one binary: runs the one named by GERBIL_FUZZ_TARGET (tools/fuzz.sh uses it to
//! fuzz all targets at once on a machine with many cores, shipping one binary instead of eleven).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    static TARGET: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let target = TARGET.get_or_init(|| std::env::var("GERBIL_FUZZ_TARGET").expect("set GERBIL_FUZZ_TARGET"));
    harness::init();
    harness::run(target, data);
});
