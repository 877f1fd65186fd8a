//! Tests for the GGUF module (run by `cargo test` in any crate mounting it).
//!
//! Tests marked "needs assets" read files fetched by
//! `tools/gguf/fetch_test_assets.sh` from `$GERBIL_TEST_ASSETS`
//! (default `$HOME/.cache/gerbil-test-assets`) and fail if they are missing.

mod dequant_tests;
mod int4_tests;
mod params_tests;
mod reader_errors;
mod reader_tests;
mod robustness;
mod smollm2_tests;
mod tokenizer_tests;
mod util;
