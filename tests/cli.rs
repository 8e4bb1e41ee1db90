//! The real `xvec` binary: exit codes, output modes, quickstart.

use std::path::Path;
use std::process::{Command, Output};

fn xvec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xvec")).args(args).env_remove("NO_COLOR").output().expect("run xvec")
}

fn data(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("commands/data").join(file).display().to_string()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn quickstart_builds_and_queries_the_sample() {
    let dir = tempfile::tempdir().unwrap();
    let coll = dir.path().join("wn");
    let out = xvec(&["quickstart", coll.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("imported 2500 WordNet synsets"), "{stdout}");
    // Query by key returns the document itself first; the filtered queries keep their filter.
    assert!(stdout.contains("n.07580359\tscore") || stdout.contains("n.07580359"), "{stdout}");
    let animals = stdout.split("\n== nearest animals").nth(1).unwrap();
    let animals = animals.split("\n== ").next().unwrap();
    assert_eq!(animals.matches("\tnoun.animal\t").count(), 5, "{animals}");
    assert!(!animals.contains("n.01317391\t"), "{animals}");
}

#[test]
fn import_query_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let coll = dir.path().join("c");
    let c = coll.to_str().unwrap();
    let out = xvec(&["create", c, "--schema", &data("schema.json")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out =
        xvec(&["import", c, &data("wordnet.jsonl"), "--vectors", &format!("emb={}", data("wordnet.fvecs")), "--flush"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("imported 2500 of 2500"));

    let out = xvec(&["count", c, "--filter", "pos = 'v'"]);
    assert_eq!(text(&out.stdout), "count\n296\n");

    let out = xvec(&["query", c, "--pk", "n.07580359", "-k", "3", "--fields", "lemma", "--mode", "csv"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = text(&out.stdout);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("_key,score,lemma"));
    assert!(lines.next().unwrap().starts_with("n.07580359,1,casserole"), "{csv}");
    assert_eq!(lines.count(), 2);

    // A filter syntax error: exit 1, position and caret on stderr.
    let out = xvec(&["query", c, "--pk", "n.07580359", "--filter", "pos = "]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("error: filter: line 1, column 7:"), "{err}");
    assert!(err.contains("\n      ^"), "{err}");

    // Usage errors exit 2; runtime failures 1.
    assert_eq!(xvec(&["query"]).status.code(), Some(2));
    assert_eq!(xvec(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(xvec(&["query", c, "--bogus"]).status.code(), Some(2));
    let out = xvec(&["query", c, "[1, 2]"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("expects a query vector of dimension 384, found 2"));
    let out = xvec(&["count", dir.path().join("missing").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("not an xvec collection"));
    assert!(text(&out.stderr).contains("hint: create one"));
}

#[test]
fn busy_collection_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let out = xvec(&["create", c.to_str().unwrap(), "--schema", &data("schema.json")]);
    assert!(out.status.success());
    let _writer = xvec::Collection::open(&c, &xvec::OpenOptions::writable()).unwrap();
    let out = xvec(&["flush", c.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("locked by another writer"));
}
