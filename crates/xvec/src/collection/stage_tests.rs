//! Atomic batches: staged rows (spilled into segments no version names) published by one
//! commit, or by none: a dropped stage, and a failure at every I/O call of one, leave the
//! collection as it was and no file behind.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{DocError, Error};
use crate::schema::{Field, Metric, ScalarType, Schema, VectorType};
use crate::storage::faults::{self, Fault};
use crate::verify::{self, VerifyOptions};
use crate::{Collection, CollectionOptions, Doc, OpenOptions, Operation};

fn schema() -> Schema {
    Schema::builder("s")
        .field(Field::scalar("n", ScalarType::Int64).nullable(true))
        .field(Field::scalar("tag", ScalarType::String).nullable(true))
        .field(Field::vector("v", VectorType::Fp32, 4, Metric::L2))
        .build()
        .unwrap()
}

fn doc(key: &str, n: i64) -> Doc {
    Doc::new(key).set("n", n).set("v", vec![n as f32, 1.0, 0.0, 2.0])
}

/// Every live key with its `n` and `tag`.
fn contents(coll: &Collection) -> BTreeMap<String, String> {
    let snap = coll.snapshot();
    let keys = snap.keys_where(None).unwrap();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let docs = snap.fetch(&refs, None).unwrap();
    keys.into_iter()
        .zip(docs)
        .map(|(k, d)| (k, format!("{:?}", d.map(|d| (d.get("n").cloned(), d.get("tag").cloned())))))
        .collect()
}

fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    out.sort();
    out
}

fn clean(dir: &Path) {
    let report = verify::run(dir, &VerifyOptions::default()).unwrap();
    let bad: Vec<_> = report.findings.iter().filter(|f| f.severity.is_problem()).collect();
    assert!(bad.is_empty(), "{bad:?}");
}

/// 60 rows in a segment (one deleted), 10 in the memtable; spills every 25 staged rows.
fn collection(dir: &Path) -> Collection {
    let coll = Collection::create(dir, schema(), CollectionOptions::default().auto_flush_rows(25)).unwrap();
    coll.pause_maintenance();
    coll.insert((0..60).map(|i| doc(&format!("k{i}"), i)).collect()).unwrap();
    coll.flush().unwrap();
    coll.insert((60..70).map(|i| doc(&format!("k{i}"), i)).collect()).unwrap();
    coll.delete(&["k1"]).unwrap();
    coll
}

/// The stage's writes: inserts across several spills, upserts of a segment row, a
/// memtable row and a spilled staged row, deletes of a stored and a staged row, and a
/// duplicate insert refused.
fn stage_writes(coll: &Collection) -> crate::Stage<'_> {
    let mut stage = coll.stage().unwrap();
    for b in 0..6 {
        let docs = (b * 25..b * 25 + 25).map(|i| doc(&format!("n{i}"), 1000 + i)).collect();
        assert!(stage.insert(docs).unwrap().iter().all(Result::is_ok));
    }
    let tagged = |k: &str| Doc::new(k).set("tag", "up");
    assert!(
        stage.upsert(vec![tagged("k2"), tagged("k61"), tagged("n5"), doc("new", 7)]).unwrap().iter().all(Result::is_ok)
    );
    assert!(stage.delete(&["k3", "n7"]).unwrap().iter().all(Result::is_ok));
    let refused = stage.insert(vec![doc("k4", 0), doc("n9", 0)]).unwrap();
    assert!(refused.iter().all(|r| matches!(r, Err(DocError::DuplicateKey(_)))), "{refused:?}");
    assert!(matches!(&stage.delete(&["n7"]).unwrap()[0], Err(DocError::NotFound(_))));
    stage
}

fn expected(before: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut model = before.clone();
    let mut with = |k: &str, n: i64, tag: Option<&str>| {
        let tag = tag.map(|t| crate::Value::String(t.into()));
        model.insert(k.to_string(), format!("{:?}", Some((Some(crate::Value::Int64(n)), tag))));
    };
    for i in 0..150 {
        with(&format!("n{i}"), 1000 + i, None);
    }
    with("k2", 2, Some("up"));
    with("k61", 61, Some("up"));
    with("n5", 1005, Some("up"));
    with("new", 7, None);
    model.remove("k3");
    model.remove("n7");
    model
}

#[test]
fn staged_writes_publish_as_one_version_on_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let coll = collection(&dir);
    let before = contents(&coll);
    let version = coll.snapshot().generation();
    let stage = stage_writes(&coll);
    assert_eq!(stage.count(), before.len() as u64 + 150 + 1 - 2);

    // Staged: readers of the handle and of other handles see nothing yet; the staged
    // rows are in segment files no version names.
    assert_eq!(contents(&coll), before);
    let reader = Collection::open(&dir, &OpenOptions::read_only()).unwrap();
    assert_eq!(contents(&reader), before);
    let staged = names(&dir).into_iter().filter(|n| n.starts_with("SEG-") && n.ends_with(".xseg")).count();
    // Two published segments, six staged ones (25 rows each).
    assert!(staged >= 8, "the staged rows spilled into segments: {:?}", names(&dir));

    let made = stage.commit().unwrap();
    assert!(made > version && coll.snapshot().generation() == made);
    let model = expected(&before);
    assert_eq!(contents(&coll), model);
    assert_eq!(coll.versions().unwrap().last().unwrap().operation, Operation::Import);
    reader.refresh().unwrap();
    assert_eq!(contents(&reader), model);
    drop(reader);

    // The writer is free again, the commit is durable and verifies clean.
    coll.insert(vec![doc("after", 1)]).unwrap();
    drop(coll);
    clean(&dir);
    let again = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    let mut with_after = model.clone();
    with_after.insert("after".into(), format!("{:?}", Some((Some(crate::Value::Int64(1)), None::<crate::Value>))));
    assert_eq!(contents(&again), with_after);
}

#[test]
fn a_dropped_stage_leaves_no_row_and_no_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let coll = collection(&dir);
    coll.flush().unwrap();
    let before = contents(&coll);
    let files = names(&dir);
    drop(stage_writes(&coll));
    assert_eq!(contents(&coll), before);
    assert_eq!(names(&dir), files, "the staged segments are removed");
    coll.insert(vec![doc("later", 1)]).unwrap();
    assert_eq!(coll.count(), before.len() as u64 + 1);
    assert!(matches!(Collection::open(&dir, &OpenOptions::read_only()).unwrap().stage(), Err(Error::ReadOnly(_))));
}

/// SQLite's I/O-error test over a stage's life: every file operation of staging and
/// committing fails in turn, under each fault class (ENOSPC, a short write, EIO, a failed
/// fsync). The call fails or the commit succeeds; a writable reopen then holds the state
/// before or the whole commit, never part of it, with no staged file left and verify
/// clean.
#[test]
fn a_failure_at_every_io_call_commits_all_or_nothing() {
    for fault in Fault::ALL {
        sweep(fault);
    }
}

fn sweep(fault: Fault) {
    let tmp = tempfile::tempdir().unwrap();
    let run = |n: u64| -> (BTreeMap<String, String>, std::path::PathBuf, u64) {
        let dir = tmp.path().join(format!("c{n}"));
        let coll = collection(&dir);
        coll.flush().unwrap();
        let before = contents(&coll);
        let guard = faults::inject(&dir, fault, n, false);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut stage = coll.stage()?;
            for b in 0..3 {
                let docs = (b * 25..b * 25 + 25).map(|i| doc(&format!("n{i}"), i)).collect();
                stage.insert(docs)?;
            }
            stage.upsert(vec![Doc::new("k2").set("tag", "up")])?;
            stage.commit()
        }));
        let ops = guard.ops();
        drop(guard);
        assert!(outcome.is_ok(), "{}: operation {n} panicked", fault.name());
        drop(coll);
        (before, dir, ops)
    };
    let (_, dir, total) = run(0);
    // EIO also hits reads and the removals after the publish (which leave the commit
    // published); the write and sync classes only hit operations up to the publish.
    let (min_ops, min_rolled_back) = if fault == Fault::Io { (20, 10) } else { (5, 1) };
    assert!(total > min_ops, "{}: staging and committing count {total} operations", fault.name());
    let committed = contents(&Collection::open(&dir, &OpenOptions::read_only()).unwrap());
    assert_ne!(committed, contents(&collection(&tmp.path().join("fresh"))));
    let (mut rolled_back, mut published) = (0, 0);
    for n in 1..=total {
        let (before, dir, _) = run(n);
        // A writable open recovers; the read-only one after it has no background work
        // writing files while they are listed.
        drop(Collection::open(&dir, &OpenOptions::writable()).unwrap());
        let coll = Collection::open(&dir, &OpenOptions::read_only()).unwrap();
        let now = contents(&coll);
        assert!(
            now == before || now == committed,
            "{}: operation {n}: a part of the stage was published",
            fault.name()
        );
        if now == before {
            rolled_back += 1;
        } else {
            published += 1;
        }
        let leftovers: Vec<String> = names(&dir).into_iter().filter(|f| f.starts_with("SEG-")).collect();
        let named = coll.snapshot().segments.len();
        assert!(
            leftovers.iter().filter(|f| f.ends_with(".xseg")).count() == named,
            "{}: operation {n}: staged segments left behind: {leftovers:?}",
            fault.name()
        );
        drop(coll);
        clean(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // Failures before the publish roll back; those after it (EIO removing what it
    // superseded) leave it published.
    assert!(
        rolled_back > min_rolled_back && (published > 0 || fault != Fault::Io),
        "{}: {rolled_back} rolled back, {published} published of {total}",
        fault.name()
    );
}
