//! The architecture the compiler does not enforce, checked: no module cycles between
//! siblings in any crate, an engine that names no terminal or benchmark crate, and no
//! dispatch over index kinds outside the index layer that a new kind could slip past
//! (`matches!` or a `_ =>` arm over `IndexParams`, `IndexType` and the like).
//!
//! A reference is a `crate::…` or `super::…` path outside comments and test code (tests
//! may reach anywhere; the item under a `#[cfg(test)]` is skipped, not the rest of its
//! file). Each one is reduced to the two children of the lowest common
//! ancestor of the referring and the referred module, so a parent using its child (a
//! re-export) is no edge; then every parent's child graph must be acyclic (Tarjan).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::repo_root;

const CRATES: [&str; 4] = ["crates/xvec/src", "crates/xvec-io/src", "crates/xvec-bench/src", "crates/xvec-cli/src"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `a/b/mod.rs` and `a/b.rs` are module `a::b`; `lib.rs` and `main.rs` the root.
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut m: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        m.pop();
    }
    m
}

fn ident_at(s: &str) -> Option<&str> {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    (end > 0 && !s.as_bytes()[0].is_ascii_digit()).then(|| &s[..end])
}

/// The paths a line names: `(supers, segments)`, `supers` = None for `crate::`.
fn references(line: &str) -> Vec<(Option<usize>, Vec<String>)> {
    let mut out = Vec::new();
    let b = line.as_bytes();
    let mut i = 0;
    while i < line.len() {
        let rest = &line[i..];
        let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b':');
        let head = if rest.starts_with("crate::") {
            Some(None)
        } else if rest.starts_with("super::") {
            Some(Some(1))
        } else {
            None
        };
        let (Some(mut supers), true) = (head, boundary) else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        // `crate::` and `super::` are both 7 bytes.
        let mut at = i + 7;
        while line[at..].starts_with("super::") {
            supers = supers.map(|n| n + 1);
            at += 7;
        }
        if line[at..].starts_with('{') {
            let close = line[at..].find('}').map_or(line.len(), |c| at + c);
            for name in line[at + 1..close].split(',') {
                if let Some(id) = ident_at(name.trim()) {
                    out.push((supers, vec![id.to_string()]));
                }
            }
            i = close.max(at + 1);
            continue;
        }
        let mut segs = Vec::new();
        while let Some(id) = ident_at(&line[at..]) {
            segs.push(id.to_string());
            at += id.len();
            if !line[at..].starts_with("::") {
                break;
            }
            at += 2;
        }
        if !segs.is_empty() {
            out.push((supers, segs));
        }
        i = at.max(i + 1);
    }
    out
}

/// The lines of `text` outside test code, numbered from 0: the item under each
/// `#[cfg(test)]` (a `mod tests;` line, or a braced block to its closing brace) is left
/// out, and the rest of the file kept.
fn non_test_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut n = 0;
    while n < lines.len() {
        if !lines[n].trim_start().starts_with("#[cfg(test)]") {
            out.push((n, lines[n]));
            n += 1;
            continue;
        }
        // Skip the attribute, further attributes, and the item they annotate.
        n += 1;
        while n < lines.len() && lines[n].trim_start().starts_with("#[") {
            n += 1;
        }
        let mut depth = 0i64;
        let mut opened = false;
        while n < lines.len() {
            let code = lines[n].split("//").next().unwrap_or("");
            for c in code.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            n += 1;
            if (opened && depth <= 0) || (!opened && code.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    out
}

/// Sibling-module cycles of one crate, each as its edges with one `file:line` apiece.
fn cycles(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(root, f)).collect();
    // parent -> (from child, to child) -> where
    let mut edges: BTreeMap<Vec<String>, BTreeMap<(String, String), String>> = BTreeMap::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let me = module_of(root, file);
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in non_test_lines(&text) {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (supers, segs) in references(line) {
                let mut target: Vec<String> = match supers {
                    None => Vec::new(),
                    Some(up) => me[..me.len().saturating_sub(up)].to_vec(),
                };
                target.extend(segs);
                while !target.is_empty() && !modules.contains(&target) {
                    target.pop();
                }
                let k = me.iter().zip(&target).take_while(|(a, b)| a == b).count();
                if k >= me.len() || k >= target.len() {
                    continue;
                }
                let place = format!("{}:{}", file.strip_prefix(root).unwrap().display(), n + 1);
                edges.entry(me[..k].to_vec()).or_default().entry((me[k].clone(), target[k].clone())).or_insert(place);
            }
        }
    }
    let mut found = Vec::new();
    for (parent, es) in &edges {
        let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (a, b) in es.keys() {
            graph.entry(a).or_default().push(b);
        }
        for comp in strongly_connected(&graph) {
            let inside: Vec<String> = es
                .iter()
                .filter(|((a, b), _)| comp.contains(a.as_str()) && comp.contains(b.as_str()))
                .map(|((a, b), w)| format!("{a} -> {b} ({w})"))
                .collect();
            found.push(format!("{}: crate::{}: {}", root.display(), parent.join("::"), inside.join(", ")));
        }
    }
    found
}

/// Tarjan's algorithm; components of more than one node.
fn strongly_connected<'a>(g: &BTreeMap<&'a str, Vec<&'a str>>) -> Vec<BTreeSet<&'a str>> {
    struct T<'a, 'g> {
        g: &'g BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<BTreeSet<&'a str>>,
    }
    impl<'a> T<'a, '_> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for &w in self.g.get(v).map_or(&[][..], Vec::as_slice) {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.stack.contains(&w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    comp.insert(w);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    self.out.push(comp);
                }
            }
        }
    }
    let mut t = T { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), out: Vec::new() };
    for &v in g.keys() {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.out
}

#[test]
fn no_crate_has_a_module_cycle() {
    let found: Vec<String> = CRATES.iter().flat_map(|c| cycles(&repo_root().join(c))).collect();
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::b::B;\npub struct A;\n").unwrap();
    std::fs::write(src.join("b.rs"), "use super::{a, c};\npub struct B;\n").unwrap();
    let found = cycles(src);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("a -> b (a.rs:1)") && found[0].contains("b -> a (b.rs:1)"), "{found:?}");
    std::fs::write(src.join("b.rs"), "// use crate::a::A;\npub struct B;\n#[cfg(test)]\nuse crate::a::A;\n").unwrap();
    assert!(cycles(src).is_empty());
    // Only the item under `#[cfg(test)]` is test code: a reference after it still counts.
    let b = "#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod more {\n    use crate::a::A;\n}\nuse crate::a::A;\n";
    std::fs::write(src.join("b.rs"), b).unwrap();
    let found = cycles(src);
    assert!(found.len() == 1 && found[0].contains("b -> a (b.rs:7)"), "{found:?}");
}

/// Where the index kinds are defined and dispatched: a new kind is added here.
const INDEX_LAYER: [&str; 3] =
    ["crates/xvec/src/index/", "crates/xvec/src/schema/index/", "crates/xvec/src/schema/knobs.rs"];

/// Paths naming an index kind.
const KIND_PATHS: [&str; 5] = ["IndexParams::", "IndexType::", "VectorIndex::", "GraphIndexView::", "GraphIndex::"];

/// Dispatches over index kinds in `files` that a new kind would compile past: a
/// `matches!` naming a kind, or a `_ =>` arm of a match whose other arms name kinds.
fn kind_dispatches(root: &Path, files: &[PathBuf]) -> Vec<String> {
    let names_kind = |s: &str| KIND_PATHS.iter().any(|k| s.contains(k));
    let indent = |s: &str| s.len() - s.trim_start().len();
    let mut found = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let lines = non_test_lines(&text);
        for (i, &(n, line)) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let arm = code.trim_start().starts_with("_ =>");
            let bad = if code.contains("matches!(") {
                names_kind(code)
            } else if arm {
                // The arms of this match: the lines above at the same indent, up to the
                // `match` line (less indented).
                let w = indent(code);
                lines[..i]
                    .iter()
                    .rev()
                    .map(|(_, l)| *l)
                    .take_while(|l| l.trim().is_empty() || indent(l) >= w)
                    .filter(|l| indent(l) == w)
                    .any(|l| names_kind(l.split("=>").next().unwrap_or("")))
            } else {
                false
            };
            if bad {
                found.push(format!("{}:{}: {}", file.strip_prefix(root).unwrap().display(), n + 1, line.trim()));
            }
        }
    }
    found
}

fn outside_the_index_layer() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = Vec::new();
    for c in CRATES {
        rust_files(&root.join(c), &mut files);
    }
    files.retain(|f| {
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        !INDEX_LAYER.iter().any(|l| rel.starts_with(l))
    });
    files
}

#[test]
fn no_dispatch_over_index_kinds_outside_the_index_layer() {
    let found = kind_dispatches(&repo_root(), &outside_the_index_layer());
    assert!(
        found.is_empty(),
        "`matches!` or `_ =>` over index kinds outside the index layer (a new kind would compile past them; \
         add a method to IndexParams or the index layer and match every kind there):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_kind_dispatch_check_sees_one() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("a.rs");
    let text = "fn f(p: &IndexParams) -> bool {\n    match p {\n        IndexParams::Hnsw(_) => true,\n        _ => false,\n    }\n}\n\
                fn g(p: &IndexParams) -> bool {\n    matches!(p, IndexParams::Flat(_))\n}\n\
                fn h(q: Quantize) -> bool {\n    match q {\n        Quantize::None => true,\n        _ => false,\n    }\n}\n";
    std::fs::write(&f, text).unwrap();
    let found = kind_dispatches(dir.path(), &[f]);
    assert_eq!(found, ["a.rs:4: _ => false,", "a.rs:8: matches!(p, IndexParams::Flat(_))"]);
}

#[test]
fn the_engine_names_no_terminal_or_benchmark_crate() {
    let mut files = Vec::new();
    rust_files(&repo_root().join("crates/xvec/src"), &mut files);
    let banned =
        ["xvec_bench", "clap", "ratatui", "rustyline", "crossterm", "indicatif", "comfy_table", "hdrhistogram"];
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for b in banned {
                let named = line.contains(&format!("{b}::")) || line.contains(&format!("use {b}"));
                assert!(!named, "{}:{}: the engine names `{b}`: {line}", f.display(), n + 1);
            }
        }
    }
    let manifest = std::fs::read_to_string(repo_root().join("crates/xvec/Cargo.toml")).unwrap();
    assert!(!manifest.contains("[features]"), "the engine has no features (no optional terminal parts)");
}
