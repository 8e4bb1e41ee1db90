//! Issue 36: input the tool accepted silently or answered badly. An import that stops
//! part-way says what it committed; a member or column named twice, a vector file longer
//! than the input and an over-long string are refused by name; `-0` is an integer; `-o -`
//! is standard output; a long filter is echoed only around its error; search knobs that
//! contradict each other are usage errors (exit 2).

use std::path::Path;

use crate::harness::xvec;

/// A collection `c` in `dir` with a string `t`, an int32 `n` and a 2-d vector `v`.
fn collection(dir: &Path, index: &str) -> String {
    let c = dir.join("c").display().to_string();
    xvec(&["create", &c, "--field", "t:string", "--field", "n:int32", "--vector", "v:2:l2", "--index", index])
        .run()
        .ok();
    c
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn count(c: &str) -> String {
    xvec(&["count", c, "--mode", "tsv", "--no-headers"]).run().ok().stdout.clone()
}

/// A CSV whose quote never closes swallows the rest of the file into one cell: the import
/// stops there, and says how many rows are committed and from which lines.
#[test]
fn an_import_that_stops_part_way_says_what_it_committed() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "flat");
    let f = write(
        dir.path(),
        "bad.csv",
        "id,t,n,v\na,x,1,\"[1,0]\"\nb,x,2,\"[0,1]\"\nc,\"oops,3,\"[1,1]\"\nd,x,4,\"[1,1]\"\n",
    );
    let run = xvec(&["import", &c, &f, "--batch-size", "1"]).run();
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "{f}: import stopped: 2 rows committed (lines 2–3); resume with --skip-existing or --upsert\n\
             error: {f}:4: the row has 3 fields, the header 4; every row needs one cell per column\n"
        )
    );
    assert_eq!(count(&c), "2\n");

    // Nothing committed says so too.
    let f = write(dir.path(), "first.csv", "id,t,n,v\nc,\"oops,3,\"[1,1]\"\n");
    let run = xvec(&["import", &c, &f]).run();
    run.code(1);
    assert!(run.stderr.starts_with(&format!("{f}: import stopped: no rows committed\nerror: {f}:2: ")), "{run}");
}

#[test]
fn a_member_or_column_named_twice_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "flat");
    let f = write(
        dir.path(),
        "dup.jsonl",
        "{\"id\":\"a\",\"t\":\"x\",\"n\":1,\"v\":[1,0],\"n\":2}\n{\"id\":\"b\",\"t\":\"x\",\"n\":-0,\"v\":[0,1]}\n",
    );
    let run = xvec(&["import", &c, &f]).run();
    run.code(1);
    assert!(
        run.stderr.starts_with(&format!(
            "{f}:1: error: member `n` appears twice in the object; each field may be given once\n"
        )),
        "{run}"
    );
    // `-0` is an integer: 0.
    let run = xvec(&["fetch", &c, "b", "--mode", "jsonl"]).run();
    assert!(run.ok().stdout.contains("\"n\":0"), "{run}");

    let f = write(dir.path(), "dup.csv", "id,n,t,n\nc,1,x,2\n");
    let run = xvec(&["import", &c, &f]).run();
    run.code(1);
    assert!(
        run.stderr.contains(&format!(
            "error: {f}:1: column `n` appears twice in the header (columns 2 and 4); each field may be given once\n"
        )),
        "{run}"
    );
    let run = xvec(&["insert", &c, r#"{"id": "e", "t": "x", "t": "y", "n": 1, "v": [1, 0]}"#]).run();
    run.code(2);
    assert!(run.stderr.starts_with("error: document 1: member `t` appears twice"), "{run}");
    assert_eq!(count(&c), "1\n");
}

/// `--vectors` pairs row i of the vector file with document i: a vector file with rows
/// left over means the pairing was not what the user meant.
#[test]
fn a_vector_file_longer_than_the_input_is_an_error_naming_both_counts() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "flat");
    let f = write(dir.path(), "rows.jsonl", "{\"id\":\"a\",\"t\":\"x\",\"n\":1}\n{\"id\":\"b\",\"t\":\"x\",\"n\":2}\n");
    let vectors = dir.path().join("v.fvecs");
    let row = |x: f32| [2i32.to_le_bytes(), x.to_le_bytes(), 0f32.to_le_bytes()].concat();
    std::fs::write(&vectors, [row(1.0), row(2.0), row(3.0)].concat()).unwrap();
    let run = xvec(&["import", &c, &f, "--vectors", &format!("v={}", vectors.display())]).run();
    run.code(1);
    assert!(
        run.stderr.ends_with(&format!(
            "error: the vector file for `v` has 3 rows, the input {f} 2 documents; each vector row pairs with one \
             document\n"
        )),
        "{run}"
    );
}

/// A string past 16 MiB is refused at validation, naming key and field: before the issue
/// it was acknowledged, and a 1 GiB one made the WAL unreadable.
#[test]
fn a_string_past_its_bound_is_refused_by_key_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "flat");
    let big = "x".repeat(xvec::MAX_STRING_BYTES + 1);
    let f = write(dir.path(), "big.jsonl", &format!("{{\"id\":\"a\",\"t\":\"{big}\",\"n\":1,\"v\":[1,0]}}\n"));
    let run = xvec(&["import", &c, &f]).address_space(1 << 30).run();
    run.code(1);
    assert!(
        run.stderr.starts_with(&format!(
            "{f}:1: error: key \"a\": field `t` holds a string of 16777217 bytes; a string holds at most 16777216 \
             (16 MiB)\n"
        )),
        "{run}"
    );
    assert_eq!(count(&c), "0\n");
}

#[test]
fn export_to_a_dash_writes_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "flat");
    xvec(&["insert", &c, r#"{"id": "a", "t": "x", "n": 1, "v": [1, 0]}"#]).run().ok();
    let run = xvec(&["export", &c, "-o", "-"]).cwd(dir.path()).run();
    assert_eq!(run.ok().stdout, "{\"id\":\"a\",\"t\":\"x\",\"n\":1,\"v\":[1.0,0.0]}\n");
    assert!(!dir.path().join("-").exists(), "no file named `-`");
    let run = xvec(&["export", &c, "--format", "npy", "-o", "-"]).cwd(dir.path()).run();
    run.code(2);
    assert!(run.stderr.contains("pass -o FILE (not standard output)"), "{run}");
}

/// A filter of 100 KB (an argument holds at most 128 KiB) with an error near its end: the message shows the text
/// around the error, cut with `…`, not the whole filter.
#[test]
fn a_long_filter_is_echoed_only_around_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "flat");
    let filter = format!("{}n = 'x'", "n = 1 OR ".repeat(11_000));
    let run = xvec(&["count", &c, "--filter", &filter]).run();
    run.code(2);
    assert!(run.stderr.len() < 1000, "{} bytes of error", run.stderr.len());
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert!(lines[0].starts_with("error: filter: line 1, column 99005:"), "{run}");
    assert!(lines[1].starts_with('…') && lines[1].ends_with("n = 'x'"), "{run}");
    assert_eq!(lines[2].len() - lines[2].trim_start().len() + 3, lines[1].chars().count(), "{run}");
}

/// `--ef 5 -k 10` exited 1 where every other bad flag exits 2.
#[test]
fn search_knobs_that_contradict_each_other_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "hnsw");
    xvec(&["insert", &c, r#"{"id": "a", "t": "x", "n": 1, "v": [1, 0]}"#]).run().ok();
    let run = xvec(&["query", &c, "[1, 0]", "-k", "10", "--ef", "5"]).run();
    run.code(2);
    assert_eq!(run.stderr, "error: ef 5 is smaller than k 10; ef must be at least k\n");
}

/// A 300 MB string under `ulimit -v 1000000` aborted the import (SIGABRT). A line past the
/// line bound (128 MiB) is refused before it is buffered: an error naming the line, under
/// a 1 GiB address space.
#[test]
fn a_line_past_its_bound_is_refused_before_it_is_buffered() {
    let dir = tempfile::tempdir().unwrap();
    let c = collection(dir.path(), "flat");
    let f = dir.path().join("huge.jsonl");
    let mut text = String::with_capacity(140 << 20);
    text.push_str("{\"id\":\"a\",\"n\":1,\"t\":\"");
    text.extend(std::iter::repeat_n('x', (2 * xvec::MAX_DOC_BYTES) + (1 << 20)));
    text.push_str("\"}\n{\"id\":\"b\",\"t\":\"x\",\"n\":2,\"v\":[1,0]}\n");
    std::fs::write(&f, text).unwrap();
    let f = f.display().to_string();
    let run = xvec(&["import", &c, &f]).address_space(1 << 30).run();
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "{f}: import stopped: no rows committed\nerror: {f}:1: the line is longer than 134217728 bytes, the \
             bound on one line of input (twice the 67108864-byte document bound)\n"
        )
    );
    // A CSV record whose quoted cell spans many short lines is bounded the same way.
    let f = dir.path().join("huge.csv");
    let mut text = String::with_capacity(140 << 20);
    text.push_str("id,t,n\na,\"");
    text.extend(std::iter::repeat_n("xxxxxxx\n", (2 * xvec::MAX_DOC_BYTES) / 8 + (1 << 17)));
    text.push_str("\",1\n");
    std::fs::write(&f, text).unwrap();
    let f = f.display().to_string();
    let run = xvec(&["import", &c, &f]).address_space(1 << 30).run();
    run.code(1);
    assert!(
        run.stderr.ends_with(&format!(
            "error: {f}:2: a record is longer than 134217728 bytes, the bound on one row of input\n"
        )),
        "{run}"
    );
}

/// A raw vector file's rows become the field's element type by the engine's one rule
/// (`Value::vector_from_f32s`, which the Python package's columns use too): an int8 field
/// takes integers, and a row that is not one is reported by row and index, the rest kept.
#[test]
fn a_raw_vector_row_that_does_not_fit_an_int8_field_is_named_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let schema = write(
        dir.path(),
        "schema.json",
        r#"{"name": "q", "fields": [{"name": "v", "type": "vector_int8", "dim": 2, "metric": "l2"}]}"#,
    );
    let c = dir.path().join("c").display().to_string();
    xvec(&["create", &c, "--schema", &schema]).run().ok();
    let vectors = dir.path().join("v.fvecs");
    let row = |x: f32, y: f32| [2i32.to_le_bytes(), x.to_le_bytes(), y.to_le_bytes()].concat();
    std::fs::write(&vectors, [row(1.0, -2.0), row(3.0, 0.5), row(127.0, -128.0)].concat()).unwrap();
    let run = xvec(&["import", &c, &vectors.display().to_string()]).run();
    assert!(run.stderr.contains("holds 0.5; expected an integer in -128..=127 at index 1"), "{run}");
    assert_eq!(count(&c), "2\n");
}
