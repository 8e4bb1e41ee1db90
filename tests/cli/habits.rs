//! Issue 43: habits brought from other tools. A large import is flushed at its end unless
//! --no-flush; `_key` is taken for the key when `id` is absent; dropping the last vector
//! field asks first; describe and explain print JSON types, and describe's summary in
//! every mode.

use std::path::Path;

use crate::harness::xvec;

/// A collection `name` in `dir` with a 2-d vector `v`.
fn collection(dir: &Path, name: &str) -> String {
    let c = dir.join(name).display().to_string();
    xvec(&["create", &c, "--vector", "v:2:l2"]).run().ok();
    c
}

/// `n` JSON Lines documents keyed `k0`, `k1`, ... in the member `key`.
fn jsonl(dir: &Path, name: &str, key: &str, n: usize) -> String {
    let p = dir.join(name);
    let text: String = (0..n).map(|i| format!("{{\"{key}\": \"k{i}\", \"v\": [{i}, 1]}}\n")).collect();
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The `unflushed rows` figure of `stats`.
fn unflushed(c: &str) -> u64 {
    let run = xvec(&["stats", c, "--mode", "tsv", "--no-headers"]).run();
    let line = run.ok().stdout.lines().find(|l| l.starts_with("unflushed rows\t")).map(str::to_string);
    line.and_then(|l| l.split('\t').nth(1).and_then(|n| n.parse().ok())).expect("unflushed rows")
}

/// More rows than auto_flush_rows (10000 when 0) are flushed at the end, and the summary
/// says so; --no-flush keeps them in the WAL and says that; a small import stays as it was.
#[test]
fn a_large_import_is_flushed_unless_no_flush() {
    let dir = tempfile::tempdir().unwrap();
    let big = jsonl(dir.path(), "big.jsonl", "id", 10_001);
    let small = jsonl(dir.path(), "small.jsonl", "id", 10);
    let c = collection(dir.path(), "a");
    let run = xvec(&["import", &c, &big]).run();
    assert_eq!(
        run.ok().stderr,
        format!(
            "imported 10001 of 10001 documents from {big}; flushed (more than 10000 rows; --no-flush keeps them \
             in the WAL)\n"
        )
    );
    assert_eq!(unflushed(&c), 0);
    let c = collection(dir.path(), "b");
    let run = xvec(&["import", &c, &big, "--no-flush"]).run();
    assert!(
        run.ok().stderr.ends_with("; kept in the WAL (--no-flush): each open replays them until a flush\n"),
        "{run}"
    );
    assert_eq!(unflushed(&c), 10_001);
    let run = xvec(&["import", &c, &small, "--upsert"]).run();
    assert_eq!(run.ok().stderr, format!("imported 10 of 10 documents from {small}\n"));
    xvec(&["import", &c, &small, "--flush", "--no-flush"]).run().code(2);
}

/// Without --key-field, an input with `_key` and no `id` (a dump's data, an export) takes
/// its keys from `_key` and says so once, in JSON Lines and CSV alike.
#[test]
fn key_member_is_detected_when_id_is_absent() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "c");
    let f = jsonl(dir.path(), "dumped.jsonl", "_key", 3);
    let run = xvec(&["import", &c, &f]).run();
    assert_eq!(
        run.ok().stderr,
        format!(
            "{f}: no `id` member: the keys are taken from `_key` (--key-field NAME names another)\n\
             imported 3 of 3 documents from {f}\n"
        )
    );
    let run = xvec(&["fetch", &c, "k2", "--mode", "jsonl"]).run();
    assert_eq!(run.ok().stdout, "{\"_key\":\"k2\",\"v\":[2.0,1.0]}\n");
    let csv = dir.path().join("more.csv");
    std::fs::write(&csv, "_key,v\nk9,\"[9, 1]\"\n").unwrap();
    let run = xvec(&["import", &c, csv.to_str().unwrap()]).run();
    assert!(run.ok().stderr.contains("the keys are taken from `_key`"), "{run}");
    xvec(&["fetch", &c, "k9"]).run().ok();
    // A named key member is used as given: `_key` is not looked for.
    let run = xvec(&["import", &c, &f, "--key-field", "name"]).run();
    run.code(1);
    assert!(!run.stderr.contains("taken from `_key`"), "{run}");
}

/// Dropping the last vector field is refused without --yes where nobody can be asked (a
/// pipe, a shell script); another vector field's drop is not asked about.
#[test]
fn dropping_the_last_vector_field_needs_yes_without_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c").display().to_string();
    xvec(&["create", &c, "--vector", "v:2:l2", "--vector", "w:2:l2"]).run().ok();
    xvec(&["alter", &c, "drop-field", "w"]).run().ok();
    let run = xvec(&["alter", &c, "drop-field", "v"]).run();
    run.code(2);
    assert_eq!(
        run.stderr,
        "error: `v` is the collection's last vector field: without it nothing can be queried by vector; pass --yes \
         to drop it\n"
    );
    let run = xvec(&["shell", &c, "--write", "-n", "-c", "alter drop-field v"]).run();
    run.code(2);
    assert!(run.stderr.contains("pass --yes to drop it"), "{run}");
    assert!(xvec(&["describe", &c, "--mode", "tsv"]).run().ok().stdout.contains("\nv\t"), "v is kept");
    let run = xvec(&["alter", &c, "drop-field", "v", "--yes"]).run();
    assert_eq!(run.ok().stderr, "dropped: field v; `xvec optimize` reclaims its bytes\n");
}

/// `describe --mode json` has booleans and numbers as JSON types, explain's share is a
/// number, and the describe summary reaches stderr in the modes without a footer.
#[test]
fn describe_and_explain_print_json_types_and_the_summary_in_every_mode() {
    let c = crate::harness::wordnet().to_str().unwrap();
    let run = xvec(&["describe", c, "--mode", "json"]).run();
    let fields: serde_json::Value = serde_json::from_str(&run.ok().stdout).unwrap();
    let emb = fields.as_array().unwrap().iter().find(|f| f["field"] == "emb").unwrap();
    assert_eq!((&emb["nullable"], &emb["dim"]), (&serde_json::json!(false), &serde_json::json!(384)), "{run}");
    assert!(run.stderr.starts_with("collection wordnet: 2500 documents (0 deleted), 1 segment"), "{run}");
    let run = xvec(&["describe", c, "--mode", "csv"]).run();
    let mut reader = csv::Reader::from_reader(run.ok().stdout.as_bytes());
    assert_eq!(reader.records().count(), 6, "{run}");
    assert!(run.stderr.contains("2500 documents"), "{run}");
    let run = xvec(&["describe", c, "--mode", "line"]).run();
    assert!(run.ok().stdout.contains("(collection wordnet: 2500 documents") && run.stderr.is_empty(), "{run}");
    let run = xvec(&["explain", "count", c, "--filter", "pos = 'v'", "--mode", "json"]).run();
    let rows: serde_json::Value = serde_json::from_str(&run.ok().stdout).unwrap();
    let share = rows[0]["share"].as_f64().expect("a number");
    assert!((share - 296.0 / 2500.0).abs() < 1e-9, "{run}");
    let run = xvec(&["explain", "count", c, "--filter", "pos = 'v'", "--mode", "table"]).run();
    assert!(run.ok().stdout.contains("11.84%"), "{run}");
}

/// `import C -` reads JSON Lines or CSV from standard input; a format read by seeking
/// (parquet, fvecs, npy) is refused by name, and without --format the hint names it.
#[test]
fn import_reads_standard_input_for_dash() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "c");
    let lines = "{\"id\": \"a\", \"v\": [1, 0]}\n{\"id\": \"b\", \"v\": [0, 1]}\n";
    let run = xvec(&["import", &c, "-", "--format", "jsonl"]).stdin(lines).run();
    assert_eq!(run.ok().stderr, "imported 2 of 2 documents from -\n");
    let run = xvec(&["import", &c, "-", "--format", "csv"]).stdin("id,v\nc,\"[1, 1]\"\nd,x\n").run();
    run.code(1);
    assert!(run.stderr.starts_with("<stdin>:3: error: "), "{run}");
    assert!(run.stderr.contains("imported 1 of 2 documents from -"), "{run}");
    let run = xvec(&["import", &c, "-", "--format", "parquet"]).stdin("").run();
    run.code(2);
    assert!(run.stderr.starts_with("error: parquet input cannot be read from standard input (`-`)"), "{run}");
    // Refused before reading: more input than a pipe holds, so the write meets a closed pipe.
    xvec(&["import", &c, "-"]).stdin(&lines.repeat(4096)).run().code(2);
    assert_eq!(xvec(&["count", &c, "--no-headers"]).run().ok().stdout, "3\n");
}
