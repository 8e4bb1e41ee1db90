//! One query result printed in every output mode, compared with a committed snapshot:
//! vectors abbreviated in table-like modes and whole in json/jsonl, text quoted per format.

use crate::harness::{assert_golden, xvec};

#[test]
fn every_output_mode_prints_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("modes");
    let c = c.to_str().unwrap();
    xvec(&["create", c, "--field", "title:string", "--field", "n:int64:nullable", "--vector", "v:4:l2"]).run().ok();
    xvec(&[
        "insert",
        c,
        r#"{"id": "a", "title": "plain", "n": 1, "v": [0.5, 0.25, 0, 1]}"#,
        r#"{"id": "b", "title": "comma, \"quote\" | pipe\ttab", "v": [1, 1, 1, 1]}"#,
        r#"{"id": "c", "title": "ünïcode", "n": -3, "v": [0.125, 0, 0, 0]}"#,
    ])
    .run()
    .ok();
    let mut all = String::new();
    for mode in ["table", "tsv", "csv", "json", "jsonl", "markdown", "line"] {
        let run = xvec(&["query", c, "[0, 0, 0, 0]", "--with-vectors", "--mode", mode]).run();
        all.push_str(&format!("== --mode {mode}\n{}\n", run.ok().stdout));
    }
    let run = xvec(&["query", c, "[0, 0, 0, 0]", "--fields", "title", "--no-headers"]).run();
    all.push_str(&format!("== --no-headers (tsv)\n{}", run.ok().stdout));
    assert_golden(&crate::util::repo_root().join("tests/cli/snapshots/modes.txt"), &all);
}
