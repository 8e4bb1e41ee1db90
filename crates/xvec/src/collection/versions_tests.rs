//! Versions: retention, time travel against answers saved at each version, tags,
//! checkout, vacuum and leases, and verify and recovery treating kept files as live.

use std::path::Path;

use crate::schema::{Field, Metric, ScalarType, Schema, VectorType};
use crate::verify::{self, Severity, VerifyOptions};
use crate::{
    Collection, CollectionOptions, Doc, FieldChange, OpenOptions, Operation, OptimizeOptions, Query, Snapshot,
    StorageError,
};

fn schema() -> Schema {
    Schema::builder("v")
        .field(Field::scalar("n", ScalarType::Int64))
        .field(Field::vector("v", VectorType::Fp32, 4, Metric::L2))
        .build()
        .unwrap()
}

fn doc(i: usize, n: i64) -> Doc {
    Doc::new(format!("k{i:03}")).set("n", n).set("v", vec![i as f32, n as f32, 1.0, 0.0])
}

/// What a version answers: its keys with their values, a vector query and a filtered count.
fn answers(snap: &Snapshot) -> (Vec<(String, String)>, Vec<String>, u64) {
    let keys = snap.keys_where(None).unwrap();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let rows = snap.fetch(&refs, None).unwrap();
    let rows = keys.iter().zip(rows).map(|(k, d)| (k.clone(), format!("{:?}", d.unwrap().get("n")))).collect();
    let hits = snap.query(&Query::vector(vec![7.0, 3.0, 1.0, 0.0]).k(5)).unwrap();
    let count = snap.keys_where(Some("n > 2")).unwrap().len() as u64;
    (rows, hits.into_iter().map(|h| h.key).collect(), count)
}

fn files(dir: &Path, prefix: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(prefix))
        .count()
}

fn clean(dir: &Path) {
    let report = verify::run(dir, &VerifyOptions::default().code_sample(8)).unwrap();
    let bad: Vec<_> =
        report.findings.iter().filter(|f| f.severity.is_problem() || f.severity == Severity::Warning).collect();
    assert!(bad.is_empty(), "{bad:?}");
}

/// Every kind of publish (flush, delete, optimize, field change), each version's answers
/// saved when it was live, then read again through `snapshot_at`: equal, also after a
/// writable reopen (recovery must not take retained files for leftovers), and verify
/// calls none of their files an orphan.
#[test]
fn time_travel_answers_as_each_version_did() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let coll = Collection::create(&dir, schema(), CollectionOptions::default().keep_versions(100)).unwrap();
    let mut saved = Vec::new();
    let mut save = |coll: &Collection| {
        coll.flush().unwrap();
        let v = coll.versions().unwrap().last().unwrap().version;
        saved.push((v, answers(&coll.snapshot())));
    };
    coll.insert((0..20).map(|i| doc(i, i as i64 % 5)).collect()).unwrap();
    save(&coll);
    coll.insert((20..30).map(|i| doc(i, 9)).collect()).unwrap();
    coll.delete(&["k003", "k007"]).unwrap();
    save(&coll);
    coll.upsert(vec![doc(5, 100), doc(8, -1)]).unwrap();
    save(&coll);
    coll.optimize(&OptimizeOptions::default()).unwrap();
    save(&coll);
    coll.change_field(FieldChange::Add(Field::scalar("t", ScalarType::String).nullable(true))).unwrap();
    coll.delete(&["k010"]).unwrap();
    save(&coll);
    assert_ne!(saved[0].1, saved[2].1);
    for (v, want) in &saved {
        assert_eq!(&answers(&coll.snapshot_at(*v).unwrap()), want, "version {v}");
    }
    let listed = coll.versions().unwrap();
    assert!(listed.iter().any(|v| v.operation == Operation::Optimize), "{listed:?}");
    assert!(listed.iter().any(|v| v.operation == Operation::Alter), "{listed:?}");
    assert_eq!(listed.last().unwrap().rows, coll.count());
    assert!(listed.iter().all(|v| v.time.is_some()));
    drop(coll);
    clean(&dir);
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    assert!(coll.recovered().is_empty(), "{:?}", coll.recovered());
    for (v, want) in &saved {
        assert_eq!(&answers(&coll.snapshot_at(*v).unwrap()), want, "version {v} after a reopen");
    }
}

/// Without retention a publish removes what it superseded, as before versions: one
/// manifest on disk, one version listed, an older one refused by number.
#[test]
fn no_retention_keeps_one_version() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = Collection::create(tmp.path(), schema(), CollectionOptions::default()).unwrap();
    for round in 0..3 {
        coll.insert((0..5).map(|i| doc(round * 5 + i, 1)).collect()).unwrap();
        coll.flush().unwrap();
    }
    coll.optimize(&OptimizeOptions::default()).unwrap();
    assert_eq!(files(tmp.path(), "MANIFEST-"), 1);
    assert_eq!(files(tmp.path(), "SEG-"), 1, "one segment (a flat index has no file)");
    let versions = coll.versions().unwrap();
    assert_eq!(versions.len(), 1);
    match coll.snapshot_at(2) {
        Err(crate::Error::Storage(StorageError::NoSuchVersion { version: 2, kept, .. })) => {
            assert_eq!(kept, [versions[0].version]);
        }
        other => panic!("{other:?}"),
    }
}

/// `keep_versions` keeps the newest N superseded versions; older ones go with the publish
/// that pushes them out.
#[test]
fn keep_versions_keeps_the_newest() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = Collection::create(tmp.path(), schema(), CollectionOptions::default().keep_versions(2)).unwrap();
    for round in 0..4 {
        coll.insert(vec![doc(round, 1)]).unwrap();
        coll.flush().unwrap();
    }
    let v: Vec<u64> = coll.versions().unwrap().iter().map(|v| v.version).collect();
    assert_eq!(v.len(), 3, "{v:?}");
    assert_eq!(files(tmp.path(), "MANIFEST-"), 3);
    assert!(v.windows(2).all(|w| w[0] < w[1]));
    clean(tmp.path());
}

/// A tag keeps a version without retention until it is deleted; vacuum then removes it.
/// Names are checked.
#[test]
fn tags_keep_versions_until_deleted() {
    let tmp = tempfile::tempdir().unwrap();
    let coll = Collection::create(tmp.path(), schema(), CollectionOptions::default()).unwrap();
    coll.insert((0..10).map(|i| doc(i, 1)).collect()).unwrap();
    coll.flush().unwrap();
    let v = coll.tag("before-purge", None).unwrap();
    let saved = answers(&coll.snapshot());
    coll.delete(&["k001", "k002"]).unwrap();
    coll.flush().unwrap();
    coll.optimize(&OptimizeOptions::default()).unwrap();
    assert_eq!(coll.resolve_version("before-purge").unwrap(), v);
    assert_eq!(answers(&coll.snapshot_at(v).unwrap()), saved);
    assert_eq!(coll.versions().unwrap()[0].tags, ["before-purge"]);
    clean(tmp.path());
    assert!(matches!(coll.tag("9lives", None), Err(crate::Error::Storage(StorageError::Tag { .. }))));
    assert!(matches!(coll.delete_tag("nope"), Err(crate::Error::Storage(StorageError::Tag { .. }))));
    assert_eq!(coll.delete_tag("before-purge").unwrap(), v);
    let report = coll.vacuum().unwrap();
    assert_eq!(report.versions, [v]);
    assert_eq!(coll.versions().unwrap().len(), 1);
    clean(tmp.path());
}

/// Checkout publishes an old version as the newest: its answers, a new version number,
/// the state before kept as a version (retention), verify clean, and the same after a
/// reopen; writes go on on top of it.
#[test]
fn checkout_publishes_an_old_version_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let coll = Collection::create(dir, schema(), CollectionOptions::default().keep_versions(5)).unwrap();
    coll.insert((0..20).map(|i| doc(i, i as i64)).collect()).unwrap();
    coll.flush().unwrap();
    let v = coll.versions().unwrap().last().unwrap().version;
    let saved = answers(&coll.snapshot());
    coll.delete(&["k001", "k004"]).unwrap();
    coll.change_field(FieldChange::Add(Field::scalar("t", ScalarType::String).nullable(true))).unwrap();
    coll.optimize(&OptimizeOptions::default()).unwrap();
    coll.insert(vec![doc(50, 3)]).unwrap();
    let before = answers(&coll.snapshot());
    let made = coll.checkout(v).unwrap();
    assert!(made > v);
    assert_eq!(answers(&coll.snapshot()), saved);
    assert_eq!(coll.schema().fields().len(), 2, "the version's schema");
    let listed = coll.versions().unwrap();
    assert_eq!(listed.last().unwrap().operation, Operation::Checkout);
    assert_eq!(answers(&coll.snapshot_at(made - 1).unwrap()), before, "the state before is a version");
    coll.insert(vec![doc(60, 4)]).unwrap();
    coll.flush().unwrap();
    drop(coll);
    clean(dir);
    let coll = Collection::open(dir, &OpenOptions::writable()).unwrap();
    assert_eq!(coll.count(), 21);
    assert!(coll.recovered().is_empty(), "{:?}", coll.recovered());
}

/// A snapshot of a version holds it by its lease, without retention: publishes and a
/// vacuum keep its files; once it is dropped, vacuum removes them.
#[test]
fn a_leased_version_survives_vacuum_until_released() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let coll = Collection::create(dir, schema(), CollectionOptions::default()).unwrap();
    coll.insert((0..10).map(|i| doc(i, 1)).collect()).unwrap();
    coll.flush().unwrap();
    let v = coll.versions().unwrap()[0].version;
    let pinned = coll.snapshot_at(v).unwrap();
    let saved = answers(&pinned);
    coll.delete(&["k000"]).unwrap();
    coll.optimize(&OptimizeOptions::default()).unwrap();
    coll.vacuum().unwrap();
    // A second snapshot opens every file anew, as another process would.
    let again = Collection::open(dir, &OpenOptions::read_only()).unwrap().snapshot_at(v).unwrap();
    assert_eq!(answers(&again), saved);
    clean(dir);
    drop((pinned, again));
    let report = coll.vacuum().unwrap();
    assert_eq!(report.versions, [v]);
    assert_eq!(files(dir, "MANIFEST-"), 1);
    clean(dir);
}

/// A live manifest damaged past recovery, with older versions kept: the manifest rebuilt
/// from the files takes in every segment file (losing nothing), and verify warns that
/// rows the older versions held may come back, naming how to compare.
#[test]
fn a_rebuilt_manifest_warns_of_retained_segments() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let coll = Collection::create(&dir, schema(), CollectionOptions::default().keep_versions(3)).unwrap();
    coll.insert((0..20).map(|i| doc(i, 1)).collect()).unwrap();
    coll.flush().unwrap();
    coll.insert((20..30).map(|i| doc(i, 2)).collect()).unwrap();
    coll.flush().unwrap();
    coll.optimize(&OptimizeOptions::default()).unwrap();
    let live = coll.versions().unwrap().last().unwrap().version;
    drop(coll);
    let path = dir.join(crate::storage::manifest_name(live));
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    std::fs::write(&path, vec![0u8; len]).unwrap();
    let report = verify::run(&dir, &VerifyOptions::default()).unwrap();
    let warned = report.findings.iter().any(|f| {
        f.severity == Severity::Warning && f.what.contains("older version(s) are kept") && f.what.contains("--as-of")
    });
    assert!(warned, "{:#?}", report.findings);
}
