//! A reader in another process pinned to a version (`snapshot_at`) keeps answering for it
//! after the writer supersedes it and vacuums, also from a snapshot it opens after the
//! vacuum (files it had not opened yet); once the reader is killed, its lease is stale and
//! the next vacuum removes the version.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use xvec::{Collection, Doc, Metric, OpenOptions, OptimizeOptions, Query, Snapshot};

use crate::util::simple_schema;

const DIM: u32 = 4;
const DIR_ENV: &str = "XVEC_VERSIONS_CHILD_DIR";
const VERSION_ENV: &str = "XVEC_VERSIONS_CHILD_VERSION";

fn doc(i: i64) -> Doc {
    Doc::new(format!("k{i:03}")).set("tag", "t").set("n", i).set("v", vec![i as f32, 1.0, (i % 7) as f32, 0.5])
}

/// What a snapshot answers: its keys and a vector query's hits.
fn digest(snap: &Snapshot) -> String {
    let keys = snap.keys_where(None).unwrap().join(",");
    let hits = snap.query(&Query::vector(vec![9.0, 1.0, 2.0, 0.5]).k(4)).unwrap();
    let hits: Vec<String> = hits.into_iter().map(|h| h.key).collect();
    format!("{keys}|{}", hits.join(","))
}

/// The reader process: pins the version, says so, and on each `check` prints what the
/// pinned snapshot and a snapshot of the same version opened just now answer.
#[test]
#[ignore = "a child process of a_pinned_reader_process_outlives_a_vacuum, which starts it with --ignored --exact"]
fn pinned_reader_child() {
    let dir = std::env::var_os(DIR_ENV).expect("started by a_pinned_reader_process_outlives_a_vacuum");
    let version: u64 = std::env::var(VERSION_ENV).unwrap().parse().unwrap();
    let reader = Collection::open(&dir, &OpenOptions::read_only()).unwrap();
    let pinned = reader.snapshot_at(version).unwrap();
    let mut out = std::io::stdout();
    writeln!(out, "pinned {}", digest(&pinned)).unwrap();
    out.flush().unwrap();
    for line in std::io::stdin().lines() {
        assert_eq!(line.unwrap(), "check");
        let fresh = Collection::open(&dir, &OpenOptions::read_only()).unwrap().snapshot_at(version).unwrap();
        writeln!(out, "seen {} {}", digest(&pinned), digest(&fresh)).unwrap();
        out.flush().unwrap();
    }
}

#[test]
fn a_pinned_reader_process_outlives_a_vacuum() {
    let dir = tempfile::tempdir().unwrap();
    // No retention: only the reader's lease keeps the version.
    let coll = Collection::create(dir.path(), simple_schema(DIM, Metric::L2), Default::default()).unwrap();
    coll.insert((0..30).map(doc).collect()).unwrap();
    coll.flush().unwrap();
    let version = coll.versions().unwrap().last().unwrap().version;
    let saved = digest(&coll.snapshot());
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["versions::pinned_reader_child", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(DIR_ENV, dir.path())
        .env(VERSION_ENV, version.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = |prefix: &str| loop {
        let line = lines.next().expect("the reader process exited").unwrap();
        if let Some(rest) = line.rsplit(" ... ").next().and_then(|l| l.strip_prefix(prefix)) {
            break rest.to_string();
        }
    };
    assert_eq!(next("pinned "), saved);

    // Supersede every file of the version, then vacuum, twice.
    for round in 0..2 {
        coll.delete(&["k001", "k002", "k020"][round..round + 1]).unwrap();
        coll.insert(vec![doc(100 + round as i64)]).unwrap();
        coll.flush().unwrap();
        coll.optimize(&OptimizeOptions::default()).unwrap();
        coll.vacuum().unwrap();
        assert_ne!(digest(&coll.snapshot()), saved);
        writeln!(stdin, "check").unwrap();
        assert_eq!(next("seen "), format!("{saved} {saved}"), "round {round}");
    }
    assert_eq!(coll.versions().unwrap().first().unwrap().version, version);

    // A killed reader holds nothing: its lease is stale, and the version goes.
    child.kill().unwrap();
    child.wait().unwrap();
    let report = coll.vacuum().unwrap();
    assert_eq!(report.versions, [version]);
    assert_eq!(coll.versions().unwrap().len(), 1);
    let leases = std::fs::read_dir(dir.path().join("versions")).unwrap().count();
    assert_eq!(leases, 0, "the stale lease is removed");
}
