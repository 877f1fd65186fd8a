//! A model named on the Hugging Face hub, in the forms people copy from model cards and from
//! llama-server's `-hf` and Ollama's `hf.co/...`: `owner/repo` (a transformers repo, or a GGUF repo's
//! default quantization), `owner/repo:Q4_K_M` (the GGUF file of that quantization),
//! `owner/repo/path/file.gguf` (that file), each with an optional `@revision` (a branch, tag or
//! commit) after the repo: `owner/repo@v1.0:Q8_0`.

/// What of the repo is wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The repo as a whole: a transformers checkpoint, or where it has none, its default GGUF.
    Repo,
    /// The GGUF file of this quantization (`Q4_K_M`, `q8_0`: case does not matter).
    Quant(String),
    /// This file of the repo.
    File(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubSpec {
    /// `owner/name`.
    pub repo: String,
    /// A branch, tag or commit; None: the default branch.
    pub revision: Option<String>,
    pub target: Target,
}

/// The quantization taken from a GGUF repo named without one: llama-server's `-hf` default.
pub const DEFAULT_QUANT: &str = "Q4_K_M";

fn name_ok(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('.') && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

impl HubSpec {
    /// None where `spec` is not a hub name (a path such as `./model` or `/abs/model.gguf`).
    pub fn parse(spec: &str) -> Option<HubSpec> {
        // A path (`/abs`, `./m`, `~/m`) is refused below: its first part is not an owner's name.
        let mut parts = spec.splitn(3, '/');
        let (owner, rest, file) = (parts.next()?, parts.next()?, parts.next());
        // The name part may carry `@revision` and, without a file, `:QUANT`.
        let (name_rev, quant) = match (file, rest.split_once(':')) {
            (None, Some((n, q))) => (n, Some(q)),
            _ => (rest, None),
        };
        let (name, revision) = match name_rev.split_once('@') {
            Some((n, r)) => (n, Some(r)),
            None => (name_rev, None),
        };
        if !name_ok(owner) || !name_ok(name) {
            return None;
        }
        let rev_ok = |r: &str| !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c));
        if revision.is_some_and(|r| !rev_ok(r)) {
            return None;
        }
        let target = match (file, quant) {
            (Some(f), _) => {
                let ok = !f.is_empty() && f.split('/').all(|p| !p.is_empty() && p != "." && p != "..");
                if !ok {
                    return None;
                }
                Target::File(f.to_string())
            }
            (None, Some(q)) if name_ok(q) => Target::Quant(q.to_string()),
            (None, Some(_)) => return None,
            (None, None) => Target::Repo,
        };
        Some(HubSpec { repo: format!("{owner}/{name}"), revision: revision.map(String::from), target })
    }

    /// The revision to ask the hub for.
    pub fn revision(&self) -> &str {
        self.revision.as_deref().unwrap_or("main")
    }
}

/// A split GGUF's part suffix (`-00001-of-00003`), as llama.cpp's gguf-split names parts.
fn split_part(stem: &str) -> Option<(&str, &str)> {
    let (head, total) = stem.rsplit_once("-of-")?;
    let (base, part) = head.rsplit_once('-')?;
    let digits = |s: &str| s.len() == 5 && s.chars().all(|c| c.is_ascii_digit());
    (digits(part) && digits(total)).then_some((base, part))
}

/// The quantization a GGUF file name ends with, upper-cased (`gemma-3-270m-it-Q4_K_M.gguf` ->
/// `Q4_K_M`): the last `-` or `.` separated word of the stem, part suffix removed.
fn quant_of(file: &str) -> Option<String> {
    let base = file.rsplit('/').next()?;
    let stem = base.strip_suffix(".gguf").or_else(|| base.strip_suffix(".GGUF"))?;
    let stem = split_part(stem).map_or(stem, |(b, _)| b);
    let q = stem.rsplit(['-', '.']).next()?;
    Some(q.to_ascii_uppercase())
}

/// Model GGUF files (not a vision projector's `mmproj`).
fn model_ggufs(files: &[String]) -> impl Iterator<Item = &String> {
    files.iter().filter(|f| f.to_ascii_lowercase().ends_with(".gguf") && !f.to_ascii_lowercase().contains("mmproj"))
}

/// The GGUF file of `quant` (None: `DEFAULT_QUANT`, or the repo's only GGUF) among the repo's `files`.
/// Errors name what the repo has.
pub fn pick_gguf(repo: &str, files: &[String], quant: Option<&str>) -> Result<String, String> {
    let ggufs: Vec<&String> = model_ggufs(files).collect();
    let mut have: Vec<String> = ggufs.iter().filter_map(|f| quant_of(f)).collect();
    have.sort();
    have.dedup();
    if ggufs.is_empty() {
        return Err(format!("{repo} has no GGUF file"));
    }
    let want = quant.unwrap_or(DEFAULT_QUANT).to_ascii_uppercase();
    let mut matching: Vec<&String> = ggufs.iter().copied().filter(|f| quant_of(f).as_deref() == Some(&want)).collect();
    if matching.is_empty() && quant.is_none() && ggufs.len() == 1 {
        matching = ggufs;
    }
    matching.sort();
    match matching.as_slice() {
        [] => Err(format!("{repo} has no {want} GGUF; it has: {}", have.join(", "))),
        [one] if split_part(one.trim_end_matches(".gguf")).is_some() => Err(split_error(repo, one)),
        [one] => Ok(one.to_string()),
        [first, ..] if split_part(first.trim_end_matches(".gguf")).is_some() => Err(split_error(repo, first)),
        many => Err(format!(
            "{repo} has several {want} GGUF files ({}): name one as {repo}/FILE.gguf",
            many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        )),
    }
}

fn split_error(repo: &str, file: &str) -> String {
    format!(
        "{repo}/{file} is split into parts, which gerbil does not read: merge them with llama.cpp's \
         `llama-gguf-split --merge` and pass the merged file"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(repo: &str, revision: Option<&str>, target: Target) -> Option<HubSpec> {
        Some(HubSpec { repo: repo.into(), revision: revision.map(String::from), target })
    }

    #[test]
    fn every_form_parses_and_paths_do_not() {
        assert_eq!(HubSpec::parse("o/r"), spec("o/r", None, Target::Repo));
        assert_eq!(HubSpec::parse("o/r:Q4_K_M"), spec("o/r", None, Target::Quant("Q4_K_M".into())));
        assert_eq!(HubSpec::parse("o/r@v1.0:q8_0"), spec("o/r", Some("v1.0"), Target::Quant("q8_0".into())));
        assert_eq!(HubSpec::parse("o/r@abc123"), spec("o/r", Some("abc123"), Target::Repo));
        assert_eq!(HubSpec::parse("o/r/sub/m-Q8_0.gguf"), spec("o/r", None, Target::File("sub/m-Q8_0.gguf".into())));
        assert_eq!(HubSpec::parse("o/r@dev/m.gguf"), spec("o/r", Some("dev"), Target::File("m.gguf".into())));
        assert_eq!(HubSpec::parse("o/r@dev").unwrap().revision(), "dev");
        let voice = "rhasspy/piper-voices/en/en_US/joe/medium/en_US-joe-medium.onnx";
        let file = Target::File("en/en_US/joe/medium/en_US-joe-medium.onnx".into());
        assert_eq!(HubSpec::parse(voice), spec("rhasspy/piper-voices", None, file));
        assert_eq!(HubSpec::parse("openai/whisper-tiny.en"), spec("openai/whisper-tiny.en", None, Target::Repo));
        assert_eq!(HubSpec::parse("o/r").unwrap().revision(), "main");
        for bad in [
            "./m",
            "/abs/m.gguf",
            "~/m",
            "o",
            "o/",
            "/r",
            "o/r:",
            "o/r@",
            "o/r@:Q4",
            "o/.r",
            "o/r/",
            "o/r/../x",
            "o/r//x",
        ] {
            assert_eq!(HubSpec::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn quantizations_are_read_from_file_names() {
        assert_eq!(quant_of("gemma-3-270m-it-Q4_K_M.gguf").as_deref(), Some("Q4_K_M"));
        assert_eq!(quant_of("sub/SmolLM2-135M-Instruct.q4_1.gguf").as_deref(), Some("Q4_1"));
        assert_eq!(quant_of("m-Q8_0-00001-of-00002.gguf").as_deref(), Some("Q8_0"));
        assert_eq!(quant_of("m-Q8_0.bin"), None);
        assert_eq!(split_part("m-Q8_0-00002-of-00003"), Some(("m-Q8_0", "00002")));
        assert_eq!(split_part("m-Q8_0-2-of-3"), None);
        assert_eq!(split_part("m-Q8_0-00002-of-3"), None, "both numbers have five digits");
        assert_eq!(split_part("m-Q8_0-2-of-00003"), None);
    }

    #[test]
    fn the_named_quantization_or_the_default_is_picked() {
        let files: Vec<String> =
            ["README.md", "m-Q4_K_M.gguf", "m-Q4_K.gguf", "m-q8_0.gguf", "mmproj-m-Q8_0.gguf", "x/m-F16.gguf"]
                .map(String::from)
                .to_vec();
        assert_eq!(pick_gguf("o/r", &files, Some("q4_k_m")), Ok("m-Q4_K_M.gguf".into()));
        assert_eq!(pick_gguf("o/r", &files, Some("Q4_K")), Ok("m-Q4_K.gguf".into()), "not Q4_K_M");
        assert_eq!(pick_gguf("o/r", &files, Some("Q8_0")), Ok("m-q8_0.gguf".into()), "not the projector");
        assert_eq!(pick_gguf("o/r", &files, Some("F16")), Ok("x/m-F16.gguf".into()));
        assert_eq!(pick_gguf("o/r", &files, None), Ok("m-Q4_K_M.gguf".into()));
        let err = pick_gguf("o/r", &files, Some("Q5_K_S")).unwrap_err();
        assert_eq!(err, "o/r has no Q5_K_S GGUF; it has: F16, Q4_K, Q4_K_M, Q8_0");
        let one = vec!["m-Q6_K.gguf".to_string()];
        assert_eq!(pick_gguf("o/r", &one, None), Ok("m-Q6_K.gguf".into()), "a repo's only GGUF");
        assert!(pick_gguf("o/r", &one, Some("Q4_K_M")).is_err(), "a named one is not replaced");
        let two = vec!["a-Q6_K.gguf".to_string(), "b-Q8_0.gguf".to_string()];
        assert!(pick_gguf("o/r", &two, None).unwrap_err().contains("has no Q4_K_M GGUF; it has: Q6_K, Q8_0"));
        assert_eq!(pick_gguf("o/r", &["config.json".to_string()], None), Err("o/r has no GGUF file".into()));
        let split = ["m-Q8_0-00001-of-00002.gguf", "m-Q8_0-00002-of-00002.gguf"].map(String::from).to_vec();
        assert!(pick_gguf("o/r", &split, Some("Q8_0")).unwrap_err().contains("llama-gguf-split --merge"));
        let one_part = vec!["m-Q8_0-00001-of-00001.gguf".to_string()];
        assert!(pick_gguf("o/r", &one_part, None).unwrap_err().contains("split into parts"), "a lone part");
        let dup = ["a/m-Q8_0.gguf", "b/m-Q8_0.gguf"].map(String::from).to_vec();
        assert!(pick_gguf("o/r", &dup, Some("Q8_0"))
            .unwrap_err()
            .contains("several Q8_0 GGUF files (a/m-Q8_0.gguf, b/m-Q8_0.gguf)"));
    }
}
