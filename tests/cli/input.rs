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
