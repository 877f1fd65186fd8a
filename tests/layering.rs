//! The crate's layering, checked on the source text under `src/` (plain Rust, no extra crates).
//!
//! The scan follows the module tree from `src/lib.rs` through its `mod x;` declarations (so only files
//! the crate compiles are read; `src/main.rs` is a separate crate and is not). Comments and the insides
//! of string and char literals are blanked first. In what is left it finds every path into the crate:
//! `use` trees (expanded: `use crate::a::{b, c::D}` is two paths), inline paths starting with `crate::`,
//! `super::` or `self::`, and in `use` trees a first segment naming a child module of the current
//! module (`pub use executor::Plan` in a `mod.rs`). Each is resolved against the module it sits in
//! (inline `mod x { .. }` blocks included) to an absolute path `a::b::..`.
//!
//! Test code is not checked: a module declared under `#[cfg(test)]` (inline, like `mod tests { .. }`,
//! or a file, like `src/gguf/tests/`), and any other item under `#[cfg(test)]`. Tests may use anything.
//!
//! Two rules:
//!
//! 1. **Layers.** `LAYERS` gives each top-level module a layer. A path from unit A into another unit B
//!    must go down: layer(B) < layer(A). A unit is the longest `LAYERS` entry that prefixes the module
//!    path (an entry `a::b` would make a submodule a unit apart from `a`). Units on one layer do not
//!    import each other. Every top-level module must have a row.
//!
//! 2. **No import loops between sibling files.** For every module P with a directory (`src/graph/`,
//!    `src/server/routes/`, ...), its children are the nodes: a file `P/x.rs` or a directory `P/x/`
//!    (everything under it counts as `x`). Child x imports child y when any file of x has a path
//!    resolving into `P::y::..`, or to a name P's own file (`mod.rs`) imports from y (the parent's
//!    re-exports: `super::Plan` where `graph/mod.rs` says `pub use executor::Plan` is an import of
//!    `executor`). A cycle among P's children fails the test. P's own file is not a node: `mod.rs`
//!    declaring and re-exporting its children, and children using what `mod.rs` defines itself, are not
//!    loops. The crate root's children (the top-level modules) are covered by rule 1.
//!
//! `KNOWN_LOOPS` lists the loops found when this test was written, in files their owners were
//! rewriting at the time, each as the exact set of children that import each other (a strongly
//! connected component), with the fix. A loop whose set is not listed fails, so a file joining a known
//! loop, or a new loop through a known import, fails too; an entry that no longer matches fails as
//! well, so the list only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layer table: (unit, layer, why). A unit may import only units on lower layers.
/// ARCHITECTURE.md's diagram from the bottom up.
const LAYERS: &[(&str, u32, &str)] = &[
    ("gpu", 0, "device, kernels, pipelines, buffers: the bottom of the GPU stack, importing nothing"),
    ("text", 0, "tokenizers, chat templates, sampling, grammars, transcript types: a leaf utility"),
    ("audio", 0, "decoding, resampling, mel features, encoding: a leaf utility"),
    ("speech", 0, "phonemizer (espeak-ng) and sentence splitting: a leaf utility"),
    ("gguf", 0, "the GGUF reader: a leaf utility"),
    ("weights", 1, "checkpoints, INT4 groups, hub and PyPI: above gpu only because WeightError wraps GpuError"),
    ("config", 2, "the only reader of the environment and config files; names weights' formats and hub options"),
    ("graph", 3, "the typed op graph, its executor and weight upload, over gpu and weights' INT4 groups"),
    ("nn", 3, "eager ops recorded into one pass, over gpu and weights' INT4 groups"),
    ("passes", 4, "fusion passes rewrite graph's graphs"),
    ("executor", 4, "the Executor: owns the device, runs the planned (graph) and eager (nn) tiers"),
    ("models", 5, "families, text sessions (models::llm), the speech and voice interfaces"),
    ("worker", 6, "the GPU thread: holds the models"),
    ("server", 7, "HTTP: holds a WorkerHandle"),
    ("bench", 8, "edge: measurements; nothing on the serving path imports it"),
    ("reference", 8, "edge: plain-Rust oracles (ops, a whole Llama) for tests; nothing on the serving path imports it"),
    ("cli", 9, "edge: the commands; may import anything"),
];

/// Loops left for now: (parent module, the children in the loop, why and the fix).
const KNOWN_LOOPS: &[(&str, &[&str], &str)] = &[];

fn main_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

// ---------------------------------------------------------------------------------------------
// Lexing: comments and literal contents blanked, then tokens with line numbers.

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The source with comments and the insides of string / char literals replaced by spaces (newlines
/// kept, so lines still count). Lifetimes and labels stay.
fn blank(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let keep_lines = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    keep_lines(&mut out, s[i]);
                    i += 1;
                }
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' && i + 1 < s.len() {
                    keep_lines(&mut out, s[i]);
                    i += 1;
                }
                keep_lines(&mut out, s[i]);
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if is_ident(c) && (i == 0 || !is_ident(s[i - 1])) {
            // An identifier, or a raw string's prefix (r"..", r#".."#, br"..", cr"..").
            let start = i;
            while i < s.len() && is_ident(s[i]) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            let mut j = i;
            while j < s.len() && s[j] == '#' {
                j += 1;
            }
            if matches!(word.as_str(), "r" | "br" | "cr") && s.get(j) == Some(&'"') {
                let hashes = j - i;
                out.push_str(&word);
                out.extend(std::iter::repeat_n('#', hashes));
                out.push('"');
                i = j + 1;
                loop {
                    if i >= s.len() {
                        break;
                    }
                    if s[i] == '"' && s[i + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes {
                        out.push('"');
                        out.extend(std::iter::repeat_n('#', hashes));
                        i += 1 + hashes;
                        break;
                    }
                    keep_lines(&mut out, s[i]);
                    i += 1;
                }
            } else {
                out.push_str(&word);
            }
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{1F600}'), else a lifetime or label.
            let close = if next == Some('\\') {
                (i + 3..s.len()).find(|&k| s[k] == '\'')
            } else if s.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(k) => {
                    out.push('\'');
                    for &ch in &s[i + 1..k] {
                        keep_lines(&mut out, ch);
                    }
                    out.push('\'');
                    i = k + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
}

fn tokens(clean: &str) -> Vec<(Tok, usize)> {
    let s: Vec<char> = clean.chars().collect();
    let (mut out, mut line, mut i) = (Vec::new(), 1, 0);
    while i < s.len() {
        let c = s[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if is_ident(c) || (c == '$' && s.get(i + 1).is_some_and(|&n| is_ident(n))) {
            let start = i;
            i += 1;
            while i < s.len() && is_ident(s[i]) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            out.push((Tok::Ident(word.trim_start_matches('$').to_string()), line));
        } else if c == ':' && s.get(i + 1) == Some(&':') {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Parsing: module declarations and paths into the crate.

/// A path found in a file, not yet resolved.
#[derive(Debug, Clone)]
struct RawRef {
    /// Segments as written (`super`, `crate`, names; a `use` leaf may end in `self` or `*`).
    path: Vec<String>,
    line: usize,
    /// Inline modules it sits in, inside the file's module.
    inline: Vec<String>,
    /// From a `use` tree (a first segment may then name a child module).
    in_use: bool,
    /// The name a `use` leaf brings into scope (its alias, or its last segment).
    binds: Option<String>,
}

#[derive(Debug, Default)]
struct Parsed {
    /// `mod x;` declarations at file level: (name, under cfg(test)).
    children: Vec<(String, bool)>,
    refs: Vec<RawRef>,
    /// `#![cfg(test)]` at the top of the file.
    test_file: bool,
}

struct Parser {
    t: Vec<(Tok, usize)>,
    i: usize,
}

impl Parser {
    fn ident(&self, k: usize) -> Option<&str> {
        match self.t.get(k) {
            Some((Tok::Ident(s), _)) => Some(s),
            _ => None,
        }
    }
    fn is(&self, k: usize, c: char) -> bool {
        matches!(self.t.get(k), Some((Tok::Punct(p), _)) if *p == c)
    }
    fn is_path(&self, k: usize) -> bool {
        matches!(self.t.get(k), Some((Tok::Path, _)))
    }

    /// Index past the bracket group opening at `k` (`(`, `[` or `{`).
    fn skip_group(&self, k: usize) -> usize {
        let mut depth = 0i32;
        let mut k = k;
        while k < self.t.len() {
            match self.t[k].0 {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => {
                    depth -= 1;
                    if depth == 0 {
                        return k + 1;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        k
    }

    /// Index past the item starting at `k`: its `;` at depth 0, or its closing `}` at depth 0.
    fn skip_item(&self, mut k: usize) -> usize {
        while k < self.t.len() {
            match self.t[k].0 {
                Tok::Punct(';') => return k + 1,
                Tok::Punct('{') => return self.skip_group(k),
                Tok::Punct('(' | '[') => k = self.skip_group(k),
                _ => k += 1,
            }
        }
        k
    }

    /// Whether the attribute group `#[...]` from `k` (at the `[`) to `end` is a `cfg` that needs `test`.
    fn cfg_test(&self, k: usize, end: usize) -> bool {
        let words: Vec<&str> = (k..end).filter_map(|j| self.ident(j)).collect();
        words.first() == Some(&"cfg") && words.contains(&"test") && !words.contains(&"not")
    }

    /// Expands the `use` tree at `self.i` into leaves with `prefix` before each.
    fn use_tree(&mut self, prefix: Vec<String>, out: &mut Vec<(Vec<String>, usize, Option<String>)>) {
        let mut path = prefix;
        if self.is_path(self.i) {
            // `::name`: an external crate.
            path.push("::".into());
            self.i += 1;
        }
        loop {
            let line = self.t.get(self.i).map_or(0, |t| t.1);
            if self.is(self.i, '*') {
                self.i += 1;
                path.push("*".into());
                out.push((path, line, None));
                return;
            }
            if self.is(self.i, '{') {
                self.i += 1;
                while self.i < self.t.len() && !self.is(self.i, '}') {
                    self.use_tree(path.clone(), out);
                    if self.is(self.i, ',') {
                        self.i += 1;
                    }
                }
                self.i += 1;
                return;
            }
            let Some(name) = self.ident(self.i).map(str::to_string) else {
                // Not a use tree we understand: give up on this one.
                self.i += 1;
                return;
            };
            self.i += 1;
            path.push(name.clone());
            if self.is_path(self.i) {
                self.i += 1;
                continue;
            }
            let mut binds = Some(name);
            if self.ident(self.i) == Some("as") {
                binds = self.ident(self.i + 1).map(str::to_string);
                self.i += 2;
            }
            out.push((path, line, binds));
            return;
        }
    }

    fn parse(mut self) -> Parsed {
        let mut p = Parsed::default();
        // (name, brace depth inside it) of the inline modules we are in.
        let mut inline: Vec<(String, i32)> = Vec::new();
        let mut depth = 0i32;
        let mut pending_test = false;
        while self.i < self.t.len() {
            let k = self.i;
            match &self.t[k].0 {
                Tok::Punct('#') => {
                    let inner = self.is(k + 1, '!');
                    let open = if inner { k + 2 } else { k + 1 };
                    if self.is(open, '[') {
                        let end = self.skip_group(open);
                        if self.cfg_test(open + 1, end) {
                            if inner && depth == 0 {
                                p.test_file = true;
                                return p;
                            }
                            pending_test |= !inner;
                        }
                        self.i = end;
                    } else {
                        self.i += 1;
                    }
                    continue;
                }
                Tok::Ident(w) if w == "pub" => {
                    self.i = if self.is(k + 1, '(') { self.skip_group(k + 1) } else { k + 1 };
                    continue;
                }
                _ => {}
            }
            if pending_test {
                pending_test = false;
                if self.ident(k) == Some("mod") && self.is(k + 2, ';') && inline.is_empty() {
                    p.children.push((self.ident(k + 1).unwrap_or_default().to_string(), true));
                }
                self.i = self.skip_item(k);
                continue;
            }
            match &self.t[k].0 {
                Tok::Ident(w) if w == "mod" && self.ident(k + 1).is_some() => {
                    let name = self.ident(k + 1).unwrap().to_string();
                    if self.is(k + 2, ';') {
                        assert!(inline.is_empty(), "a `mod {name};` inside an inline module is not supported here");
                        p.children.push((name, false));
                        self.i = k + 3;
                    } else if self.is(k + 2, '{') {
                        depth += 1;
                        inline.push((name, depth));
                        self.i = k + 3;
                    } else {
                        self.i = k + 1;
                    }
                }
                Tok::Ident(w) if w == "use" => {
                    self.i = k + 1;
                    let mut leaves = Vec::new();
                    self.use_tree(Vec::new(), &mut leaves);
                    let names: Vec<String> = inline.iter().map(|m| m.0.clone()).collect();
                    for (path, line, binds) in leaves {
                        p.refs.push(RawRef { path, line, inline: names.clone(), in_use: true, binds });
                    }
                    while self.i < self.t.len() && !self.is(self.i, ';') {
                        self.i += 1;
                    }
                }
                Tok::Ident(w) if matches!(w.as_str(), "crate" | "super" | "self") && self.is_path(k + 1) => {
                    let line = self.t[k].1;
                    let mut path = vec![w.clone()];
                    let mut j = k + 1;
                    while self.is_path(j) {
                        match self.ident(j + 1) {
                            Some(s) => path.push(s.to_string()),
                            None => break,
                        }
                        j += 2;
                    }
                    let names = inline.iter().map(|m| m.0.clone()).collect();
                    p.refs.push(RawRef { path, line, inline: names, in_use: false, binds: None });
                    self.i = j;
                }
                Tok::Punct('{') => {
                    depth += 1;
                    self.i += 1;
                }
                Tok::Punct('}') => {
                    if inline.last().is_some_and(|m| m.1 == depth) {
                        inline.pop();
                    }
                    depth -= 1;
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
        p
    }
}

// ---------------------------------------------------------------------------------------------
// The module tree and resolved references.

struct FileMod {
    file: PathBuf,
    /// Module path: `["graph", "dispatch"]` for src/graph/dispatch.rs.
    module: Vec<String>,
    parsed: Parsed,
}

impl FileMod {
    fn children(&self) -> impl Iterator<Item = &str> {
        self.parsed.children.iter().map(|c| c.0.as_str())
    }
}

/// A resolved path into the crate.
struct Ref {
    target: Vec<String>,
    line: usize,
    written: String,
}

fn rel(file: &Path) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    file.strip_prefix(&root).unwrap_or(file).display().to_string()
}

/// Every non-test module file, from src/lib.rs down.
fn module_tree() -> Vec<FileMod> {
    let mut out = Vec::new();
    let mut todo = vec![(main_dir().join("lib.rs"), Vec::<String>::new())];
    while let Some((file, module)) = todo.pop() {
        let src = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let parsed = Parser { t: tokens(&blank(&src)), i: 0 }.parse();
        if parsed.test_file {
            continue;
        }
        let name = file.file_name().unwrap().to_str().unwrap();
        let dir = if matches!(name, "lib.rs" | "mod.rs") {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for (child, test) in &parsed.children {
            if *test {
                continue;
            }
            let flat = dir.join(format!("{child}.rs"));
            let nested = dir.join(child).join("mod.rs");
            let path = if flat.exists() { flat } else { nested };
            assert!(path.exists(), "{}: `mod {child};` has no file", rel(&file));
            let mut m = module.clone();
            m.push(child.clone());
            todo.push((path, m));
        }
        out.push(FileMod { file, module, parsed });
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

/// Resolves a path written in `m` to an absolute one (None: outside the crate, or not a path we follow).
fn resolve(m: &FileMod, r: &RawRef) -> Option<Vec<String>> {
    let mut base: Vec<String> = m.module.iter().chain(&r.inline).cloned().collect();
    let mut segs = r.path.iter().peekable();
    match segs.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segs.next();
            base.clear();
        }
        Some("super") => {
            while segs.peek().is_some_and(|s| *s == "super") {
                segs.next();
                base.pop()?;
            }
        }
        Some("self") => {
            segs.next();
        }
        // A `use` path may start at a child module of the file's module (2018 paths).
        Some(first) if r.in_use && r.inline.is_empty() && m.children().any(|c| c == first) => {}
        _ => return None,
    }
    base.extend(segs.cloned());
    if base.last().is_some_and(|s| s == "self") {
        base.pop();
    }
    Some(base)
}

fn refs(m: &FileMod) -> Vec<Ref> {
    m.parsed
        .refs
        .iter()
        .filter_map(|r| {
            let target = resolve(m, r)?;
            Some(Ref { target, line: r.line, written: r.path.join("::") })
        })
        .collect()
}

/// The `LAYERS` row a module path falls in: the longest entry prefixing it.
fn unit_of(path: &[String]) -> Option<(&'static str, u32)> {
    LAYERS
        .iter()
        .filter(|(unit, _, _)| {
            let u: Vec<&str> = unit.split("::").collect();
            u.len() <= path.len() && u.iter().zip(path).all(|(a, b)| a == b)
        })
        .max_by_key(|(unit, _, _)| unit.len())
        .map(|(unit, layer, _)| (*unit, *layer))
}

fn dir_of(parent: &[String]) -> String {
    let mut s = String::from("src/");
    for p in parent {
        s.push_str(p);
        s.push('/');
    }
    s
}

// ---------------------------------------------------------------------------------------------

#[test]
fn imports_point_down_the_layers() {
    let tree = module_tree();
    let mut problems = Vec::new();
    let top: BTreeSet<&str> = tree.iter().filter(|m| m.module.len() == 1).map(|m| m.module[0].as_str()).collect();
    for t in &top {
        if !LAYERS.iter().any(|(u, _, _)| u == t) {
            problems.push(format!("src/{t}: the top-level module `{t}` has no row in LAYERS"));
        }
    }
    for m in &tree {
        let Some((from, from_layer)) = unit_of(&m.module) else { continue };
        for r in refs(m) {
            let Some((to, to_layer)) = unit_of(&r.target) else { continue };
            if to != from && to_layer >= from_layer {
                problems.push(format!(
                    "{}:{}: `{}` imports `{}` ({to}, layer {to_layer}) from {from} (layer {from_layer})",
                    rel(&m.file),
                    r.line,
                    r.written,
                    r.target.join("::"),
                ));
            }
        }
    }
    assert!(problems.is_empty(), "imports up the layers (see LAYERS in tests/layering.rs):\n{}", problems.join("\n"));
}

/// The layers that hold what the worker sees through the model interfaces (`models::llm`,
/// `models::speech`, `models::voice`) and nothing below them by name: a model family is a folder
/// under `src/models/` (every one but `llm`, the text model interface), and adding one must not
/// touch these layers.
const FAMILY_BLIND: &[&str] = &["worker", "server", "cli"];

#[test]
fn no_model_family_is_named_above_the_model_interfaces() {
    let models = main_dir().join("models");
    let families: BTreeSet<String> = std::fs::read_dir(&models)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| f != "llm")
        .collect();
    assert!(families.len() >= 5, "the family folders under src/models: {families:?}");
    let mut problems = Vec::new();
    for m in module_tree().iter().filter(|m| m.module.first().is_some_and(|t| FAMILY_BLIND.contains(&t.as_str()))) {
        for r in refs(m) {
            if r.target.len() > 1 && r.target[0] == "models" && families.contains(&r.target[1]) {
                problems.push(format!("{}:{}: `{}`", rel(&m.file), r.line, r.written));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} name a model family; go through models::llm / models::speech / models::voice instead:\n{}",
        FAMILY_BLIND.join(", "),
        problems.join("\n")
    );
}

/// Where work reaches the GPU only through `executor::Executor` (the worker owns it, the models keep
/// a clone): none of these opens a device or builds a plan or a recorder by itself.
const THROUGH_THE_EXECUTOR: &[&str] = &["models", "worker", "server"];
const TIER_CONSTRUCTORS: &[&str] = &["Gpu::new", "Plan::new", "Recorder::new"];

/// Lines of `text` (comments and literals blanked) calling one of `TIER_CONSTRUCTORS` by name (not a
/// longer name ending in one: `DecodePlan::new` is not `Plan::new`).
fn tier_constructor_calls(text: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for c in TIER_CONSTRUCTORS {
            let whole = line.match_indices(c).any(|(at, _)| !line[..at].chars().next_back().is_some_and(is_ident));
            if whole {
                found.push((i + 1, *c));
            }
        }
    }
    found
}

#[test]
fn the_worker_and_the_models_run_work_through_the_executor() {
    let mut problems = Vec::new();
    for m in
        module_tree().iter().filter(|m| m.module.first().is_some_and(|t| THROUGH_THE_EXECUTOR.contains(&t.as_str())))
    {
        let text = blank(&std::fs::read_to_string(&m.file).unwrap());
        for (line, c) in tier_constructor_calls(&text) {
            problems.push(format!("{}:{line}: `{c}`", rel(&m.file)));
        }
    }
    assert!(
        problems.is_empty(),
        "{} build plans and recorders through the Executor (exec.plan / exec.recorder):\n{}",
        THROUGH_THE_EXECUTOR.join(", "),
        problems.join("\n")
    );
}

#[test]
fn tier_constructor_scan_matches_whole_names_only() {
    let src = "let p = Plan::new(g);\nlet d = DecodePlan::new();\nlet r = crate::nn::Recorder::new(&g); Gpu::new(o)";
    assert_eq!(tier_constructor_calls(src), vec![(1, "Plan::new"), (3, "Gpu::new"), (3, "Recorder::new")]);
}

/// An import between two children of one module, with where it was seen.
type Edges = BTreeMap<Vec<String>, BTreeMap<(String, String), String>>;

fn sibling_edges(tree: &[FileMod]) -> Edges {
    // Names each module's own file imports (its re-exports among them), by the child they come from.
    let mut imported: BTreeMap<Vec<String>, BTreeMap<String, String>> = BTreeMap::new();
    let is_child = |parent: &[String], name: &str| {
        tree.iter().any(|m| {
            m.module.len() == parent.len() + 1 && m.module.starts_with(parent) && m.module[parent.len()] == name
        })
    };
    for m in tree {
        for r in &m.parsed.refs {
            let (Some(binds), true) = (&r.binds, r.inline.is_empty()) else { continue };
            let Some(target) = resolve(m, r) else { continue };
            if target.len() > m.module.len() && target.starts_with(&m.module) {
                let child = &target[m.module.len()];
                if is_child(&m.module, child) {
                    imported.entry(m.module.clone()).or_default().insert(binds.clone(), child.clone());
                }
            }
        }
    }
    let mut edges = Edges::new();
    for m in tree {
        for r in refs(m) {
            let common = m.module.iter().zip(&r.target).take_while(|(a, b)| a == b).count();
            if common == 0 || common >= m.module.len() || common >= r.target.len() {
                continue;
            }
            let parent = m.module[..common].to_vec();
            let (from, name) = (&m.module[common], &r.target[common]);
            let to = if is_child(&parent, name) {
                name.clone()
            } else if let Some(child) = imported.get(&parent).and_then(|i| i.get(name)) {
                child.clone()
            } else {
                continue;
            };
            if &to != from {
                let witness = format!("{}:{} `{}`", rel(&m.file), r.line, r.written);
                edges.entry(parent).or_default().entry((from.clone(), to)).or_insert(witness);
            }
        }
    }
    edges
}

/// The children reachable from `start` over `edges` (start included).
fn reachable(edges: &BTreeMap<(String, String), String>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::from([start.to_string()]);
    let mut todo = vec![start.to_string()];
    while let Some(n) = todo.pop() {
        for (_, b) in edges.keys().filter(|(a, _)| *a == n) {
            if seen.insert(b.clone()) {
                todo.push(b.clone());
            }
        }
    }
    seen
}

/// The strongly connected components of more than one child: sets of children that import each other.
fn loops(edges: &BTreeMap<(String, String), String>) -> Vec<BTreeSet<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let reach: BTreeMap<&String, BTreeSet<String>> = nodes.iter().map(|n| (*n, reachable(edges, n))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for n in &nodes {
        let scc: BTreeSet<String> = reach[n].iter().filter(|m| reach[m].contains(*n)).cloned().collect();
        if scc.len() > 1 && !out.contains(&scc) {
            out.push(scc);
        }
    }
    out
}

#[test]
fn no_import_loops_between_sibling_files() {
    let tree = module_tree();
    let edges = sibling_edges(&tree);
    let mut problems = Vec::new();
    let mut known_seen = vec![false; KNOWN_LOOPS.len()];
    for (parent, e) in &edges {
        let name = parent.join("::");
        for scc in loops(e) {
            let known = KNOWN_LOOPS
                .iter()
                .position(|(p, set, _)| *p == name && set.len() == scc.len() && set.iter().all(|c| scc.contains(*c)));
            if let Some(k) = known {
                known_seen[k] = true;
                continue;
            }
            let mut lines =
                vec![format!("{}: {{{}}} import each other:", dir_of(parent), Vec::from_iter(scc.clone()).join(", "))];
            for ((a, b), witness) in e {
                if scc.contains(a) && scc.contains(b) {
                    lines.push(format!("    {a} -> {b}: {witness}"));
                }
            }
            problems.push(lines.join("\n"));
        }
    }
    for ((parent, set, why), seen) in KNOWN_LOOPS.iter().zip(known_seen) {
        if !seen {
            problems.push(format!(
                "KNOWN_LOOPS: {parent}: {{{}}} is no longer a loop as listed; update or remove the entry ({why})",
                set.join(", ")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "import loops between sibling modules (see tests/layering.rs):\n{}",
        problems.join("\n")
    );
}

/// The scanner itself, on a small made-up file.
#[test]
fn scanner_reads_paths_and_skips_comments_strings_and_tests() {
    let src = r##"
//! A doc comment naming crate::server is not an import.
use super::ir::{Graph, dispatch::{self, Bind as B}};
use crate::gpu::Gpu;
pub(crate) use child::Thing;
mod child;
const S: &str = "crate::worker";
const R: &str = r#"crate::cli "quoted""#;
const C: char = '"';
const Q: char = '\'';
fn f<'a>(x: &'a str) -> usize { crate::text::len(x) /* crate::bench */ }
pub mod inner {
    use super::super::sibling::Z;
}
#[cfg(test)]
mod tests {
    use crate::reference::oracle;
}
#[cfg(test)]
mod more_tests;
"##;
    let parsed = Parser { t: tokens(&blank(src)), i: 0 }.parse();
    assert_eq!(parsed.children, vec![("child".to_string(), false), ("more_tests".to_string(), true)]);
    let m = FileMod { file: PathBuf::from("src/graph/x.rs"), module: vec!["graph".into(), "x".into()], parsed };
    let got: Vec<(String, usize)> = refs(&m).into_iter().map(|r| (r.target.join("::"), r.line)).collect();
    let want = [
        ("graph::ir::Graph", 3),
        ("graph::ir::dispatch", 3),
        ("graph::ir::dispatch::Bind", 3),
        ("gpu::Gpu", 4),
        ("graph::x::child::Thing", 5),
        ("text::len", 11),
        ("graph::sibling::Z", 13),
    ];
    assert_eq!(got, want.map(|(p, l)| (p.to_string(), l)).to_vec());
}

/// Loops are whole strongly connected components; a chain into one is not part of it.
#[test]
fn loops_are_the_sets_that_import_each_other() {
    let e: BTreeMap<(String, String), String> = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("e", "a")]
        .into_iter()
        .map(|(a, b)| ((a.to_string(), b.to_string()), String::new()))
        .collect();
    let want: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    assert_eq!(loops(&e), vec![want]);
}
