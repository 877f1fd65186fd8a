//! The embedded data installs into a fresh cache folder and espeak-ng runs from it alone.

use std::path::PathBuf;

fn cache_root(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gerbil-espeak-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn install_initialize_phonemize() {
    let root = cache_root("main");
    let dir = gerbil_espeak::install_data(&root).unwrap();
    assert!(dir.join("phontab").is_file() && dir.join("en_dict").is_file() && dir.join("voices/!v").is_dir());
    // Reused when complete.
    let modified = std::fs::metadata(dir.join("en_dict")).unwrap().modified().unwrap();
    assert_eq!(gerbil_espeak::install_data(&root).unwrap(), dir);
    assert_eq!(std::fs::metadata(dir.join("en_dict")).unwrap().modified().unwrap(), modified);

    let mut es = gerbil_espeak::lock();
    assert!(matches!(es.set_voice("en-us"), Err(gerbil_espeak::Error::NotInitialized)));
    assert!(es.initialize(&root.join("missing")).is_err());
    es.initialize(&dir).unwrap();
    assert_eq!(es.loaded_data_path().as_deref(), Some(dir.as_path()));
    es.set_voice("en-us").unwrap();
    assert_eq!(es.text_to_phonemes("Hello world.").unwrap(), ["həlˈoʊ wˈɜːld."]);
    assert_eq!(es.text_to_phonemes("Well, is it raining?").unwrap(), ["wˈɛl,", "ɪz ɪt ɹˈeɪnɪŋ?"]);
    es.set_voice("de").unwrap();
    assert_eq!(es.text_to_phonemes("Hallo Welt.").unwrap(), ["hˈaloː vˈɛlt."]);
    es.set_voice("fr").unwrap();
    assert_eq!(es.text_to_phonemes("bonjour").unwrap(), ["bɔ̃ʒˈuʁ"]);
    assert!(matches!(es.set_voice("no-such-voice-xx"), Err(gerbil_espeak::Error::Voice(_))));
    drop(es);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn concurrent_installs_agree() {
    let root = cache_root("race");
    let dirs: Vec<PathBuf> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4).map(|_| s.spawn(|| gerbil_espeak::install_data(&root).unwrap())).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(dirs.windows(2).all(|w| w[0] == w[1]));
    let leftovers: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&root);
}
