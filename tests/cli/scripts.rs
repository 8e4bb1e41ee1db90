//! The example scripts in `commands/` run and print what is committed beside them
//! (`NAME.xvec` → `NAME.out`, stdout and stderr interleaved, timings masked).

use std::path::Path;

use crate::harness::{assert_golden, commands_dir, xvec};

/// Replaces run-dependent numbers (durations, the scratch directory, the size on disk,
/// which varies by a byte with the decimal length of a random WAL salt in the manifest)
/// with fixed text.
fn mask(text: &str, scratch: &Path) -> String {
    let text = text.replace(&scratch.display().to_string(), "$SCRATCH");
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        // Words of a line end at spaces and at the tabs of table output.
        let words: Vec<&str> = line.split([' ', '\t']).collect();
        let gaps: Vec<char> = line.chars().filter(|c| *c == ' ' || *c == '\t').collect();
        let masked: Vec<String> = words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let next = |n: usize| words.get(i + n).copied().unwrap_or_default();
                let size = ["KiB", "MiB", "GiB"].contains(&next(1)) && next(2) == "on" && next(3).starts_with("disk");
                if size && w.parse::<f64>().is_ok() { "#".to_string() } else { mask_duration(w, next(1)) }
            })
            .collect();
        for (i, w) in masked.iter().enumerate() {
            out.push_str(w);
            out.extend(gaps.get(i));
        }
        out.push('\n');
    }
    out
}

/// A duration (`0.52s`, `12.3ms`, or `12.3` before `ms`) becomes `#`.
fn mask_duration(word: &str, next: &str) -> String {
    let body = word.trim_end_matches([',', ')', ';']);
    let tail = &word[body.len()..];
    let decimal = |s: &str| s.contains('.') && s.parse::<f64>().is_ok();
    for unit in ["ms", "s"] {
        if body.strip_suffix(unit).is_some_and(decimal) {
            return format!("#{unit}{tail}");
        }
    }
    if decimal(body) && next.starts_with("ms") { format!("#{tail}") } else { word.to_string() }
}

#[test]
fn example_scripts_print_their_committed_output() {
    let dir = commands_dir();
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xvec"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 3, "{scripts:?}");
    for script in scripts {
        let scratch = tempfile::tempdir().unwrap();
        let coll = scratch.path().join("wordnet");
        let name = script.file_name().unwrap().to_str().unwrap();
        let run = xvec(&["shell", coll.to_str().unwrap(), "--write", "-f", name]).cwd(&dir).run_merged();
        let mut text = mask(&run.stdout, scratch.path());
        text.push_str(&format!("[exit status {}]\n", run.code.unwrap_or(-1)));
        assert_golden(&script.with_extension("out"), &text);
    }
}

#[test]
fn durations_are_masked() {
    let p = Path::new("/tmp/x");
    assert_eq!(mask("time: 12.345 ms\nin 0.52s, 3 rows in 1.5ms", p), "time: # ms\nin #s, 3 rows in #ms\n");
    assert_eq!(mask("generation 2, 313.1 KiB on disk)", p), "generation 2, # KiB on disk)\n");
}
