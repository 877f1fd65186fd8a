//! Builds espeak-ng from the vendored source with `cc` (no cmake, pkg-config or autotools),
//! then compiles its data (intonations, phoneme tables, one dictionary per language) by
//! running the vendored espeak-ng command-line program, built for the host from the same
//! source, the way espeak-ng's own cmake/data.cmake does. The compiled files are embedded
//! into the crate (`OUT_DIR/embedded.rs`).

use std::env;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const VERSION: &str = "1.52.0.1";

/// src/libespeak-ng/CMakeLists.txt's list, less the optional parts (async, mbrola, klatt,
/// speech-player) that config/config.h turns off.
const LIB_FILES: &[&str] = &[
    "common.c",
    "mnemonics.c",
    "error.c",
    "ieee80.c",
    "compiledata.c",
    "compiledict.c",
    "dictionary.c",
    "encoding.c",
    "intonation.c",
    "langopts.c",
    "numbers.c",
    "phoneme.c",
    "phonemelist.c",
    "readclause.c",
    "setlengths.c",
    "soundicon.c",
    "spect.c",
    "ssml.c",
    "synthdata.c",
    "synthesize.c",
    "tr_languages.c",
    "translate.c",
    "translateword.c",
    "voices.c",
    "wavegen.c",
    "speech.c",
    "espeak_api.c",
];

const UCD_FILES: &[&str] = &["case.c", "categories.c", "ctype.c", "proplist.c", "scripts.c", "tostring.c"];

fn main() {
    let started = Instant::now();
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let src = manifest.join("espeak-ng");
    let config = manifest.join("config");
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    let target = env::var("TARGET").unwrap();
    let host = env::var("HOST").unwrap();
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=config");
    println!("cargo:rerun-if-changed=espeak-ng");

    // 1. The library for the target, linked into the crate.
    lib_build(&src, &config).compile("espeak-ng");
    if !target.contains("apple") && !target.contains("windows") {
        println!("cargo:rustc-link-lib=m");
    }

    // 2. The espeak-ng program for the host, to compile the data. When cross-compiling, the
    //    library is built a second time, for the host.
    let host_lib_dir = if target == host {
        out.clone()
    } else {
        let dir = out.join("host");
        fs::create_dir_all(&dir).unwrap();
        lib_build(&src, &config).target(&host).host(&host).out_dir(&dir).cargo_metadata(false).compile("espeak-ng");
        dir
    };
    let mut host_cc = lib_build(&src, &config);
    host_cc.target(&host).host(&host).cargo_metadata(false);
    let program = out.join("espeak-ng-compile");
    let mut cmd = host_cc.get_compiler().to_command();
    cmd.arg(src.join("src/espeak-ng.c")).arg("-o").arg(&program).arg(host_lib_dir.join("libespeak-ng.a"));
    if !host.contains("apple") {
        cmd.arg("-lm");
    }
    run(&mut cmd, "link the espeak-ng program");
    let lib_secs = started.elapsed().as_secs_f64();

    // 3. The data, laid out as espeak-ng-data is installed: what cmake/data.cmake does.
    let data_root = out.join("data");
    if data_root.exists() {
        fs::remove_dir_all(&data_root).unwrap();
    }
    let data = data_root.join("espeak-ng-data");
    fs::create_dir_all(data.join("voices")).unwrap();
    copy_dir(&src.join("espeak-ng-data/lang"), &data.join("lang")).unwrap();
    copy_dir(&src.join("espeak-ng-data/voices/!v"), &data.join("voices/!v")).unwrap();
    // The phoneme compiler writes a log beside its sources: compile from a copy.
    copy_dir(&src.join("phsource"), &data_root.join("phsource")).unwrap();
    let path_arg = format!("--path={}", data_root.display());
    let espeak = |args: &[&str], cwd: &Path| {
        let mut c = Command::new(&program);
        c.arg(&path_arg).args(args).current_dir(cwd);
        c.env_remove("ESPEAK_DATA_PATH");
        c
    };
    run(&mut espeak(&["--compile-intonations"], &data_root.join("phsource")), "compile intonations");
    run(&mut espeak(&["--compile-phonemes"], &data_root.join("phsource")), "compile phonemes");

    // One dictionary per `<lang>_rules` in dictsource, in parallel (each run writes only its
    // own <lang>_dict).
    let dictsource = src.join("dictsource");
    let mut langs: Vec<String> = fs::read_dir(&dictsource)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix("_rules").map(str::to_string))
        .collect();
    langs.sort();
    let jobs: usize = env::var("NUM_JOBS").ok().and_then(|j| j.parse().ok()).unwrap_or(2).max(1);
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(langs.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(lang) = langs.get(i) else { break };
                let output = espeak(&[&format!("--compile={lang}")], &dictsource).output().unwrap();
                if !output.status.success() || !data.join(format!("{lang}_dict")).exists() {
                    failures.lock().unwrap().push(format!(
                        "{lang}: {}{}",
                        String::from_utf8_lossy(&output.stdout),
                        String::from_utf8_lossy(&output.stderr)
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "espeak-ng failed to compile dictionaries:\n{}", failures.join("\n"));
    let data_secs = started.elapsed().as_secs_f64() - lib_secs;

    // 4. Embed every file of the compiled espeak-ng-data.
    let mut files = Vec::new();
    list_files(&data, &data, &mut files).unwrap();
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325; // FNV-1a over names and contents
    let mut total = 0u64;
    let mut rs = String::from("pub(crate) static FILES: &[(&str, &[u8])] = &[\n");
    for rel in &files {
        let bytes = fs::read(data.join(rel)).unwrap();
        total += bytes.len() as u64;
        for b in rel.as_bytes().iter().chain([0u8].iter()).chain(bytes.iter()) {
            hash = (hash ^ *b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        rs += &format!("    ({rel:?}, include_bytes!({:?})),\n", data.join(rel).display().to_string());
    }
    rs += "];\n";
    rs += &format!("pub(crate) const DATA_HASH: &str = \"{hash:016x}\";\n");
    rs += &format!("pub(crate) const DATA_BYTES: u64 = {total};\n");
    rs += &format!("pub(crate) const LANGUAGES: &[&str] = &{langs:?};\n");
    rs += &format!("pub(crate) const VERSION: &str = {VERSION:?};\n");
    fs::write(out.join("embedded.rs"), rs).unwrap();
    // Shown with `cargo build -vv`.
    println!(
        "gerbil-espeak: library {lib_secs:.1}s, data {data_secs:.1}s, {} files, {total} bytes embedded, {} dictionaries",
        files.len(),
        langs.len()
    );
}

fn lib_build(src: &Path, config: &Path) -> cc::Build {
    let lib = src.join("src/libespeak-ng");
    let ucd = src.join("src/ucd-tools/src");
    let mut b = cc::Build::new();
    b.include(config)
        .include(src.join("src/include"))
        .include(src.join("src/include/compat"))
        .include(ucd.join("include"))
        .include(&lib);
    for f in LIB_FILES {
        b.file(lib.join(f));
    }
    for f in UCD_FILES {
        b.file(ucd.join(f));
    }
    b.define("LIBESPEAK_NG_EXPORT", "1")
        // Never fall back to a system espeak-ng-data: callers always pass the data path.
        .define("PATH_ESPEAK_DATA", "\"/nonexistent/gerbil-espeak-ng-data\"")
        // Room for long cache paths (espeak-ng's default is 160 bytes).
        .define("N_PATH_HOME", "1024")
        .flag_if_supported("-fwrapv")
        .flag_if_supported("-fvisibility=hidden")
        .flag_if_supported("-fno-exceptions")
        .warnings(false)
        .extra_warnings(false)
        .flag_if_supported("-w");
    b
}

fn run(cmd: &mut Command, what: &str) {
    let output = cmd.output().unwrap_or_else(|e| panic!("{what}: {cmd:?}: {e}"));
    if !output.status.success() {
        panic!(
            "{what} failed ({}): {cmd:?}\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

fn copy_dir(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let dst = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &dst)?;
        } else {
            fs::copy(entry.path(), dst)?;
        }
    }
    Ok(())
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<String>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            list_files(root, &path, out)?;
        } else {
            let rel = path.strip_prefix(root).unwrap();
            let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.push(parts.join("/"));
        }
    }
    Ok(())
}
