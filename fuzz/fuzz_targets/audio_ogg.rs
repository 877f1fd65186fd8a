//! cargo-fuzz target `audio_ogg`: see fuzz/harness.rs for what it exercises.
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::init();
    harness::run("audio_ogg", data);
});
