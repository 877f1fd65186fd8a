//! Builds the vendored libopus 1.5.2 (opus/) as a static library with `cc`: a portable
//! floating-point build (no intrinsics, no run-time CPU detection, no DNN features), with the
//! defines libopus's own meson/cmake/autotools builds use for that configuration. No pkg-config,
//! no cmake and no system libopus: the only library this emits is `static=opus`.

use std::path::{Path, PathBuf};

/// The directories of opus/ whose every .c file is part of the library (CELT_SOURCES,
/// SILK_SOURCES, SILK_SOURCES_FLOAT, OPUS_SOURCES and OPUS_SOURCES_FLOAT of libopus's *.mk).
const SOURCE_DIRS: [&str; 4] = ["celt", "silk", "silk/float", "src"];
const INCLUDE_DIRS: [&str; 5] = ["include", "celt", "silk", "silk/float", "src"];

fn sources(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in SOURCE_DIRS {
        let dir = root.join(dir);
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("reading opus/").path();
            if path.extension().is_some_and(|e| e == "c") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join("opus");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=opus");

    let mut build = cc::Build::new();
    let msvc = build.get_compiler().is_like_msvc();
    build.files(sources(&root)).warnings(false).extra_warnings(false);
    for dir in INCLUDE_DIRS {
        build.include(root.join(dir));
    }
    build
        .define("OPUS_BUILD", None)
        .define("PACKAGE_VERSION", Some("\"1.5.2\""))
        .define("HAVE_LRINTF", Some("1"))
        .define("HAVE_LRINT", Some("1"))
        // The upstream default: cheap run-time checks that stop on a broken invariant.
        .define("ENABLE_HARDENING", Some("1"));
    if msvc {
        // MSVC's C has no variable-length arrays; libopus then uses alloca (malloc.h).
        build.define("USE_ALLOCA", None).define("_CRT_SECURE_NO_WARNINGS", None);
    } else {
        build.define("VAR_ARRAYS", Some("1"));
    }
    // A debug build of gerbil would otherwise compile the codec unoptimized (slow tests); the C
    // code is not what one steps through.
    if matches!(std::env::var("OPT_LEVEL").as_deref(), Ok("0") | Ok("1")) {
        build.opt_level(2);
    }
    // Emits cargo:rustc-link-lib=static=opus and its search path.
    build.compile("opus");
    println!("cargo:include={}", root.join("include").display());
}
