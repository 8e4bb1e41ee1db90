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
        let golden = script.with_extension("out");
        // Scores print whole; their last bits depend on the CPU's SIMD kernels.
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if std::env::var_os("XVEC_BLESS").is_some_and(|v| v == "1") || !same_to_1e4(&expected, &text) {
            assert_golden(&golden, &text);
        }
    }
}

/// Whether `a` and `b` are the same text but for decimals that differ by at most 1e-4
/// (relative above 1): words split at spaces, tabs and commas.
fn same_to_1e4(a: &str, b: &str) -> bool {
    let words = |s: &str| s.split([' ', '\t', ',', '\n']).map(String::from).collect::<Vec<_>>();
    let (wa, wb) = (words(a), words(b));
    wa.len() == wb.len()
        && wa.iter().zip(&wb).all(|(x, y)| {
            x == y
                || match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(p), Ok(q)) if x.contains('.') && y.contains('.') => (p - q).abs() <= 1e-4 * p.abs().max(1.0),
                    _ => false,
                }
        })
}

#[test]
fn scores_compare_to_1e4() {
    assert!(same_to_1e4("k\t0.43060043\tx", "k\t0.43060046\tx"));
    assert!(same_to_1e4("1.5,2", "1.50001,2"));
    assert!(!same_to_1e4("k\t0.4306\tx", "k\t0.4308\tx"));
    assert!(!same_to_1e4("k\t1\tx", "k\t1.00001\tx"), "an integer is compared exactly");
    assert!(!same_to_1e4("a b", "a b c"));
}

#[test]
fn durations_are_masked() {
    let p = Path::new("/tmp/x");
    assert_eq!(mask("time: 12.345 ms\nin 0.52s, 3 rows in 1.5ms", p), "time: # ms\nin #s, 3 rows in #ms\n");
    assert_eq!(mask("generation 2, 313.1 KiB on disk)", p), "generation 2, # KiB on disk)\n");
}
