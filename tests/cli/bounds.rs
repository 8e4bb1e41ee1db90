//! Hostile sizes through the real binary. `xvec query DIR --pk K --ef 1000000000` died
//! with `memory allocation of 137438953472 bytes failed` (SIGABRT), `--group-by F
//! --per-group 1000000000` the same with 12 GB. Every size flag is now bounded: a value
//! beyond its bound is a usage error (exit 2) before anything runs, in argv and in the
//! shell alike, and a bound only the collection knows (its default refine) is a query
//! error (exit 1).
//!
//! Each run is capped at a small address space, so an attempted huge allocation aborts
//! the child and fails the test, and must end within a second.

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::harness::{Run, Xvec, data, xvec};

const ADDRESS_SPACE: u64 = 512 << 20;
const U64_MAX: &str = "18446744073709551615";

/// The WordNet sample under an HNSW int8 index with refine `refine`, optimized.
fn indexed(refine: u32) -> &'static Path {
    static DIRS: OnceLock<std::sync::Mutex<Vec<(u32, &'static Path)>>> = OnceLock::new();
    let mut dirs = DIRS.get_or_init(Default::default).lock().unwrap();
    if let Some((_, p)) = dirs.iter().find(|(r, _)| *r == refine) {
        return p;
    }
    let dir = tempfile::tempdir().unwrap().keep();
    let schema = std::fs::read_to_string(data("schema.json")).unwrap().replace(
        r#""index": {"type": "flat"}"#,
        &format!(r#""index": {{"type": "hnsw", "quantize": "int8", "refine": {refine}}}"#),
    );
    assert!(schema.contains("hnsw"));
    let schema_file = dir.join("schema.json");
    std::fs::write(&schema_file, schema).unwrap();
    let c = dir.join("c");
    let cs = c.to_str().unwrap();
    xvec(&["create", cs, "--schema", schema_file.to_str().unwrap()]).run().ok();
    xvec(&["import", cs, &data("wordnet.jsonl"), "--vectors", &format!("emb={}", data("wordnet.fvecs"))]).run().ok();
    xvec(&["optimize", cs, "--concurrency", "2"]).run().ok();
    let c: &'static Path = c.leak();
    dirs.push((refine, c));
    c
}

/// Runs capped, within a second.
fn bounded(x: Xvec) -> Run {
    let t = Instant::now();
    let run = x.address_space(ADDRESS_SPACE).run();
    assert!(t.elapsed() < Duration::from_secs(1), "took {:?}{run}", t.elapsed());
    run
}

fn query(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["query", dir.to_str().unwrap(), "--pk", "n.01317391"];
    all.extend_from_slice(args);
    bounded(xvec(&all))
}

/// The statement `query --pk ... ARGS` in a batch shell.
fn shell_query(dir: &Path, args: &[&str]) -> Run {
    let statement = format!("query --pk n.01317391 {}", args.join(" "));
    bounded(xvec(&["shell", dir.to_str().unwrap(), "-c", &statement]))
}

/// Flags out of range, each with the value clap must name and the range it must print.
fn out_of_range() -> Vec<(Vec<&'static str>, &'static str, &'static str)> {
    let mut cases = Vec::new();
    for v in [U64_MAX, "1000000000"] {
        cases.push((vec!["--ef", v], "--ef <N>", "1..=100000"));
        cases.push((vec!["--refine", v], "--refine <FACTOR>", "0..=1000000"));
        cases.push((vec!["-k", v], "--k <N>", "1..=100000"));
        cases.push((vec!["--group-by", "pos", "--per-group", v], "--per-group <N>", "1..=1000000"));
    }
    cases.push((vec!["--ef", "100001"], "--ef <N>", "1..=100000"));
    cases.push((vec!["--refine", "1000001"], "--refine <FACTOR>", "0..=1000000"));
    cases.push((vec!["-k", "100001"], "--k <N>", "1..=100000"));
    cases.push((vec!["--group-by", "pos", "--per-group", "1000001"], "--per-group <N>", "1..=1000000"));
    cases
}

#[test]
fn query_size_flags_out_of_range_exit_2_in_argv_and_shell() {
    let c = indexed(4);
    for (args, flag, range) in out_of_range() {
        let value = args[args.len() - 1];
        let expected = format!("invalid value '{value}' for '{flag}': {value} is not in {range}");
        let argv = query(c, &args);
        argv.code(2);
        assert!(argv.stderr.starts_with(&format!("error: {expected}\n")), "{argv}");
        let run = shell_query(c, &args);
        run.code(2);
        assert_eq!(run.stderr, format!("-c #1:1: {}", argv.stderr), "{run}");
    }
}

#[test]
fn query_size_products_beyond_their_bound_exit_2_in_argv_and_shell() {
    let c = indexed(4);
    let cases: [(&[&str], &str); 4] = [
        (&["-k", "100000", "--refine", "11"], "--refine × -k is 11 × 100000 = 1100000, above the limit of 1000000"),
        (&["-k", "1", "--refine", "1000000"], ""),
        (
            &["--group-by", "pos", "-k", "100000", "--per-group", "1000000"],
            "-k × --per-group is 100000 × 1000000 = 100000000000, above the limit of 1000000",
        ),
        (
            &["--group-by", "pos", "-k", "1001", "--per-group", "1000"],
            "-k × --per-group is 1001 × 1000 = 1001000, above the limit of 1000000",
        ),
    ];
    for (args, error) in cases {
        let (run, in_shell) = (query(c, args), shell_query(c, args));
        if error.is_empty() {
            run.ok();
            in_shell.ok();
            continue;
        }
        run.code(2);
        assert_eq!(run.stderr, format!("error: {error}\n"), "{run}");
        in_shell.code(2);
        assert_eq!(in_shell.stderr, format!("-c #1:1: error: {error}\n"), "{in_shell}");
    }
    // At the bounds: the query runs, within the same address space and time.
    query(c, &["-k", "100000", "--ef", "100000", "--refine", "10", "--fields", "lemma"]).ok();
    query(c, &["--group-by", "lemma", "-k", "1", "--per-group", "1000000", "--refine", "1"]).ok();
    query(c, &["--group-by", "lemma", "-k", "100000", "--per-group", "10", "--refine", "1"]).ok();
}

/// The field's own refine is only known once the collection is open: a query error.
#[test]
fn a_bound_crossed_by_the_schema_default_is_a_query_error_exit_1() {
    let c = indexed(1000);
    let error = "refine × k is 1001000, above the limit of 1000000";
    let run = query(c, &["-k", "1001"]);
    run.code(1);
    assert_eq!(run.stderr, format!("error: {error}\n"), "{run}");
    let run = shell_query(c, &["-k", "1001"]);
    run.code(1);
    assert_eq!(run.stderr, format!("-c #1:1: error: {error}\n"), "{run}");
    let run = query(c, &["--group-by", "pos", "-k", "100", "--per-group", "20"]);
    run.code(1);
    assert_eq!(run.stderr, "error: refine × ef is 2000000, above the limit of 1000000\n", "{run}");
    query(c, &["-k", "1000"]).ok();
}

/// Thread counts and search sizes of the other commands are bounded while parsing too.
#[test]
fn other_commands_refuse_hostile_sizes_while_parsing() {
    let c = indexed(4).to_str().unwrap();
    let q = data("queries.fvecs");
    let cases: [&[&str]; 9] = [
        &["optimize", c, "--concurrency", "4294967295"],
        &["optimize", c, "--concurrency", U64_MAX],
        &["import", c, "x.jsonl", "--batch-size", U64_MAX],
        &["tui", c, "--ef", "4294967295"],
        &["tui", c, "--refine", "4294967295"],
        &["bench", "--dataset", "d", "--ef", "4294967295"],
        &["bench", "--dataset", "d", "--refine", "4294967295"],
        &["bench", "--dataset", "d", "--gt-threads", "4294967295"],
        &["bench", "--dataset", "d", "--optimize-concurrency", "4294967295"],
    ];
    for args in cases {
        let run = bounded(xvec(args));
        run.code(2);
        assert!(run.stderr.starts_with("error: invalid value"), "{run}");
    }
    let run = bounded(xvec(&["query", c, "--vector-file", &q, "--row", U64_MAX]));
    run.code(1);
    assert!(run.stderr.contains("row 18446744073709551615 is out of range"), "{run}");
}
