//! Subcommands refuse arguments that leave nothing to do with a message and a failing exit
//! code, before loading anything: never a panic (exit 101), never "success" with no output.

fn gerbil(args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gerbil"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run gerbil");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn arguments_that_leave_nothing_to_do_are_refused() {
    let qwen3 = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/qwen3");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/qwen3/config.json");
    for (args, says) in [
        (vec!["speak", "--text", "  ", "--out", "/tmp/gerbil-never.wav"], "nothing to speak"),
        (vec!["profile", "--model", qwen3, "--steps", "0"], "at least 1"),
        (vec!["profile", "--model", qwen3, "--batch-rows", "0"], "at least 1"),
        (vec!["profile", "--model", qwen3, "--prefill", "0"], "at least 1"),
        (vec!["bench", "--models-only", "--configs", config, "--tokens", "0"], "--tokens"),
        (vec!["bench", "--models-only", "--kernels-only"], "nothing to run"),
    ] {
        let (code, err) = gerbil(&args);
        assert!(code == 1 && err.contains(says), "{args:?}: exit {code}, stderr: {err}");
    }
}
