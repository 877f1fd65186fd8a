//! Compiles LAME 3.100's encoder with the `cc` crate (no configure, make or sh), with the
//! config.h beside this file. The file list is upstream mp3lame-sys's own (its Windows build).

const LAME: &str = "lame-3.100";

fn main() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let cfg_dir = out.join("config");
    std::fs::create_dir_all(&cfg_dir).expect("create OUT_DIR/config");
    std::fs::copy("config.h", cfg_dir.join("config.h")).expect("copy config.h");
    println!("cargo:rerun-if-changed=config.h");
    println!("cargo:rerun-if-changed={LAME}");
    let lib = format!("{LAME}/libmp3lame");
    let files = [
        "bitstream.c", "encoder.c", "fft.c", "gain_analysis.c", "id3tag.c", "lame.c", "newmdct.c",
        "presets.c", "psymodel.c", "quantize_pvt.c", "vector/xmm_quantize_sub.c", "quantize.c",
        "reservoir.c", "set_get.c", "tables.c", "takehiro.c", "util.c", "vbrquantize.c", "VbrTag.c",
        "version.c",
    ];
    let mut cc = cc::Build::new();
    cc.files(files.iter().map(|f| format!("{lib}/{f}")))
        .include(format!("{LAME}/include"))
        .include(&cfg_dir)
        .include(&lib)
        .define("HAVE_CONFIG_H", None)
        .define("TAKEHIRO_IEEE754_HACK", None)
        .define("FLOAT8", Some("float"))
        .define("REAL_IS_FLOAT", Some("1"))
        .define("BS_FORMAT", Some("BINARY"))
        .warnings(false)
        .extra_warnings(false);
    // Debug builds of the host crate still get an optimized codec.
    if std::env::var("OPT_LEVEL").is_ok_and(|l| l == "0" || l == "1") {
        cc.opt_level(2);
    }
    cc.compile("mp3lame");
}
