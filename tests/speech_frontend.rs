//! espeak-ng phonemization (the C library, as Piper uses it) and Piper's id mapping, against
//! the ids the onnxruntime reference was made from (tests/fixtures/piper/joe_hello_world.json).

use std::collections::HashMap;

use gerbil::speech::{espeak, phonemes, sentences};

#[derive(serde::Deserialize)]
struct Reference {
    phonemes: String,
    ids: Vec<i64>,
}

fn joe_map() -> HashMap<String, Vec<i64>> {
    // The voice's phoneme_id_map is the same table for every espeak Piper voice; the test
    // carries it in the fixture so it needs no downloaded asset.
    let v: serde_json::Value = serde_json::from_str(include_str!("fixtures/piper/phoneme_id_map.json")).unwrap();
    serde_json::from_value(v).unwrap()
}

#[test]
fn hello_world_phonemes_and_ids() {
    let r: Reference = serde_json::from_str(include_str!("fixtures/piper/joe_hello_world.json")).unwrap();
    let clauses = espeak::phonemize("Hello world.", "en-us").unwrap();
    assert_eq!(clauses.join(" "), r.phonemes);
    assert_eq!(phonemes::ids(&clauses, &joe_map()), r.ids);
}

#[test]
fn clauses_keep_punctuation() {
    let clauses = espeak::phonemize("Well, is it raining?", "en-us").unwrap();
    assert_eq!(clauses.len(), 2, "{clauses:?}");
    assert!(clauses[0].ends_with(','), "{clauses:?}");
    assert!(clauses[1].ends_with('?'), "{clauses:?}");
    assert!(espeak::phonemize("x", "no-such-voice-xx").is_err());
}

#[test]
fn sentences_split_before_phonemization() {
    let s = sentences::split("The sun rose. Birds sang! Did you hear them?");
    assert_eq!(s.len(), 3);
    for sentence in s {
        assert!(!espeak::phonemize(&sentence, "en-us").unwrap().is_empty());
    }
}
