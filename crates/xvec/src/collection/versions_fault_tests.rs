//! Checkout and vacuum under I/O faults, SQLite-style: each file operation of a checkout, a
//! tag deletion and a vacuum fails in turn (every fault class), then the collection is
//! reopened without faults. It holds the state before the checkout or the checked-out
//! version, never a mix; every version it lists still reads as it did; verify is clean.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::schema::{Field, Metric, ScalarType, Schema, VectorType};
use crate::storage::faults::{self, Fault};
use crate::verify::{self, VerifyOptions};
use crate::{Collection, CollectionOptions, Doc, OpenOptions, Snapshot};

fn schema() -> Schema {
    Schema::builder("v")
        .field(Field::scalar("n", ScalarType::Int64).scalar_index(crate::ScalarIndexKind::Inverted))
        .field(Field::vector("v", VectorType::Fp32, 4, Metric::L2))
        .build()
        .unwrap()
}

fn doc(i: usize, n: i64) -> Doc {
    Doc::new(format!("k{i:03}")).set("n", n).set("v", vec![i as f32, n as f32, 1.0, 0.0])
}

fn contents(snap: &Snapshot) -> BTreeMap<String, String> {
    let keys = snap.keys_where(None).unwrap();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let docs = snap.fetch(&refs, None).unwrap();
    keys.into_iter().zip(docs).map(|(k, d)| (k, format!("{:?}", d.unwrap().get("n")))).collect()
}

/// A collection keeping two superseded versions: the tagged `old` (20 rows), a later
/// flushed one, and the live state with writes in the WAL on top. Returns the contents of
/// `old` and of the live state.
fn collection(dir: &Path) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let coll = Collection::create(dir, schema(), CollectionOptions::default().keep_versions(2)).unwrap();
    coll.insert((0..20).map(|i| doc(i, 1)).collect()).unwrap();
    coll.flush().unwrap();
    coll.tag("old", None).unwrap();
    let old = contents(&coll.snapshot());
    coll.delete(&["k001", "k002"]).unwrap();
    coll.upsert(vec![doc(3, 9), doc(30, 3)]).unwrap();
    coll.flush().unwrap();
    coll.upsert(vec![doc(4, 7), doc(31, 3)]).unwrap();
    let live = contents(&coll.snapshot());
    coll.close().unwrap();
    (old, live)
}

/// The workload: checkout of `old`, the tag deleted, a vacuum. Errors are expected.
fn workload(dir: &Path) {
    let Ok(coll) = Collection::open(dir, &OpenOptions::writable()) else { return };
    let Ok(old) = coll.resolve_version("old") else { return };
    if coll.checkout(old).is_ok() && coll.delete_tag("old").is_ok() {
        let _ = coll.vacuum();
    }
}

fn clean(dir: &Path, what: &str) {
    let report = verify::run(dir, &VerifyOptions::default()).unwrap();
    let bad: Vec<_> = report.findings.iter().filter(|f| f.severity.is_problem()).collect();
    assert!(bad.is_empty(), "{what}: {bad:?}");
}

#[test]
fn checkout_and_vacuum_under_a_fault_at_every_operation() {
    let root = tempfile::tempdir().unwrap();
    let make = |name: String| -> (PathBuf, BTreeMap<String, String>, BTreeMap<String, String>) {
        let dir = root.path().join(name);
        let (old, live) = collection(&dir);
        (dir, old, live)
    };
    let mut points = 0;
    let mut outcomes = [0usize; 2];
    for fault in Fault::ALL {
        let (dir, ..) = make(format!("{}-count", fault.name()));
        let ops = {
            let g = faults::inject(&dir, fault, 0, false);
            workload(&dir);
            g.ops()
        };
        assert!(ops > 3, "{fault:?}: only {ops} operations");
        for n in 1..=ops {
            let what = format!("{} at operation {n}/{ops}", fault.name());
            let (dir, old, live) = make(format!("{}-{n}", fault.name()));
            {
                let _g = faults::inject(&dir, fault, n, false);
                let run = std::panic::catch_unwind(|| workload(&dir));
                assert!(run.is_ok(), "{what}: panicked");
            }
            let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
            let now = contents(&coll.snapshot());
            let which = [&live, &old].iter().position(|s| **s == now);
            let which = which.unwrap_or_else(|| panic!("{what}: neither the state before nor the checkout: {now:?}"));
            outcomes[which] += 1;
            // Every version listed still reads whole, as it did.
            for v in coll.versions().unwrap() {
                let snap = coll.snapshot_at(v.version).unwrap_or_else(|e| panic!("{what}: version {}: {e}", v.version));
                assert_eq!(snap.count(), v.rows, "{what}: version {}", v.version);
                contents(&snap);
            }
            drop(coll);
            clean(&dir, &what);
            points += 1;
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{points} points: {outcomes:?} (before, checked out)");
}
