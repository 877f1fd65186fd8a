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

/// `gerbil transcribe` refuses what POST /v1/audio/transcriptions refuses, before loading the
/// model: silence (Whisper "hears" words in it) and word timestamps outside verbose_json.
#[test]
fn transcribe_refuses_what_the_route_refuses() {
    let dir = std::env::temp_dir().join(format!("gerbil-cli-args-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let silent = dir.join("silent.wav");
    let mut wav = b"RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00\x00\x7d\x00\x00\x02\x00\x10\x00data".to_vec();
    wav.extend(32000u32.to_le_bytes());
    wav.extend(vec![0u8; 32000]);
    let riff = (wav.len() - 8) as u32;
    wav[4..8].copy_from_slice(&riff.to_le_bytes());
    std::fs::write(&silent, wav).unwrap();
    let silent = silent.to_str().unwrap();
    for (args, says) in [
        (vec!["transcribe", "--model", "/nonexistent", silent], "silent (every sample is zero)"),
        (vec!["transcribe", "--word-timestamps", silent], "--word-timestamps needs --format verbose_json"),
    ] {
        let (code, err) = gerbil(&args);
        assert!(code == 1 && err.contains(says), "{args:?}: exit {code}, stderr: {err}");
    } // Argument errors (clap's exit code 2): a run count of 0 timed nothing, a temperature the route refuses.
    for (args, says) in [
        (vec!["transcribe", "--runs", "0", silent], "--runs"),
        (vec!["transcribe", "--temperature", "1.5", silent], "between 0 and 1"),
    ] {
        let (code, err) = gerbil(&args);
        assert!(code == 2 && err.contains(says), "{args:?}: exit {code}, stderr: {err}");
    }
}

/// Moonshine does not time words and knows English only: the flag and another language are
/// refused, as the HTTP route refuses them, instead of being ignored.
#[test]
fn word_timestamps_are_refused_for_moonshine() {
    let assets = gerbil::config::test_assets_dir();
    let (model, audio) = (assets.join("moonshine-base"), assets.join("audio/beckett.wav"));
    assert!(model.exists() && audio.exists(), "run tools/fetch_test_assets.sh");
    let args = ["transcribe", "--model", model.to_str().unwrap(), "--word-timestamps", "--format", "verbose_json"];
    let (code, err) = gerbil(&[&args[..], &[audio.to_str().unwrap()]].concat());
    assert!(code == 1 && err.contains("does not time words"), "exit {code}, stderr: {err}"); // A language it does not know is refused too (it used to be ignored).
    let args = ["transcribe", "--model", model.to_str().unwrap(), "--language", "fr", audio.to_str().unwrap()];
    let (code, err) = gerbil(&args);
    assert!(code == 1 && err.contains("'fr' is not supported"), "exit {code}, stderr: {err}");
}

/// An empty GERBIL_MODELS / GERBIL_CORS_ORIGINS is refused with the variable named, before
/// anything loads (rather than emptying the model list / enabling CORS for no origin). A server
/// that starts instead is killed after 30 s and fails the test.
#[test]
fn empty_environment_lists_are_refused() {
    for (var, says) in [("GERBIL_MODELS", "GERBIL_MODELS is empty"), ("GERBIL_CORS_ORIGINS", "CORS origin ''")] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gerbil"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env(var, "")
            .env("XDG_RUNTIME_DIR", std::env::temp_dir())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run gerbil");
        let t0 = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if t0.elapsed().as_secs() > 30 {
                child.kill().unwrap();
                panic!("{var}=\"\": gerbil serve started instead of refusing");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.code() == Some(1) && err.contains(says), "{var}: {:?} {err}", out.status);
    }
}

/// `gerbil speak --out` takes its format from the extension; one it cannot encode is refused
/// before the voice loads (rather than writing WAV bytes whatever the name).
#[test]
fn speak_refuses_an_out_extension_it_cannot_encode() {
    for (out, says) in
        [("/tmp/gerbil-never.ogg", "'.ogg' is not an audio format"), ("/tmp/gerbil-never", "no extension")]
    {
        let (code, err) = gerbil(&["speak", "--out", out]);
        assert!(code == 1 && err.contains(says), "{out}: exit {code}, stderr: {err}");
    }
}
