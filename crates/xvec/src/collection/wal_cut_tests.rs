//! A WAL cut short after the fact (`truncate`), not by a crash mid-write: with its sync
//! record (`WAL.sync`) verify, open and repair name the acknowledged records the cut took;
//! without one they say what cannot be known, and never that nothing was lost.

use std::path::Path;

use crate::error::{Error, StorageError};
use crate::storage::wal::sync_record::SYNC_NAME;
use xvec::verify::{self, Repair, RepairOptions, Severity, VerifyOptions};
use xvec::{Collection, OpenOptions};

use crate::testutil::wal_fixture::wal_collection;

const WAL: &str = "WAL-000001.log";

/// 50 rows in 5 synced batches of 10, in the WAL only; returns the directory.
fn collection(tmp: &Path) -> std::path::PathBuf {
    let dir = tmp.join("c");
    wal_collection(&dir, 50, 10);
    dir
}

/// Start offsets of the WAL's frames and their kinds (1 record, 2 sync mark).
fn frames(bytes: &[u8]) -> Vec<(usize, u8)> {
    let mut out = Vec::new();
    let mut at = crate::storage::wal::WAL_HEADER_LEN;
    while at < bytes.len() {
        out.push((at, bytes[at + 4]));
        at += crate::storage::wal::FRAME_HEADER
            + u32::from_le_bytes(bytes[at + 16..at + 20].try_into().unwrap()) as usize;
    }
    out
}

/// Offsets of the sync marks.
fn marks(dir: &Path) -> Vec<usize> {
    frames(&std::fs::read(dir.join(WAL)).unwrap()).into_iter().filter(|f| f.1 == 2).map(|f| f.0).collect()
}

fn cut(dir: &Path, len: usize) {
    std::fs::OpenOptions::new().write(true).open(dir.join(WAL)).unwrap().set_len(len as u64).unwrap();
}

fn verify(dir: &Path) -> verify::Report {
    verify::run(dir, &VerifyOptions::default().code_sample(8)).unwrap()
}

/// The acknowledged records an open says are gone, from its error.
fn open_loss(dir: &Path, writable: bool) -> (u64, String) {
    let opts = if writable { OpenOptions::writable() } else { OpenOptions::read_only() };
    match Collection::open(dir, &opts).err() {
        Some(Error::Storage(StorageError::WalDamaged(d))) => (d.lost, d.to_string()),
        other => panic!("expected a damaged WAL, got {other:?}"),
    }
}

/// Repairs, returning the rows it says it lost, what it could not prove, and the count after.
fn repair(dir: &Path) -> (u64, Vec<String>, u64) {
    let r = Repair::begin(dir, RepairOptions::default().concurrency(1)).unwrap();
    let out = r.apply().unwrap();
    assert!(out.after.is_clean(), "{:?}", out.after.findings);
    let lost = out.losses.iter().map(|l| l.rows).sum();
    let doubts = out.unproven.iter().map(|d| d.what.clone()).collect();
    (lost, doubts, Collection::open(dir, &OpenOptions::read_only()).unwrap().count())
}

/// Cuts inside what an fsync made durable — mid-frame at half the file, to 0 bytes, and at
/// the frame boundary where the last batch starts — are corruption naming the records lost:
/// verify exits 3, both opens refuse, repair lists the loss and keeps the rest.
#[test]
fn a_cut_before_the_last_sync_point_is_a_loss_of_acknowledged_records() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = collection(tmp.path());
    let len = std::fs::metadata(whole.join(WAL)).unwrap().len() as usize;
    let m = marks(&whole);
    let last_batch = m[m.len() - 2] + crate::storage::wal::FRAME_HEADER + 8;
    for (name, at, lost) in [("half", len / 2, 30), ("zero", 0, 50), ("boundary", last_batch, 10)] {
        let dir = tmp.path().join(name);
        crate::testutil::copy_dir(&whole, &dir);
        cut(&dir, at);
        let r = verify(&dir);
        assert!(!r.is_clean(), "{name}: {:?}", r.findings);
        let f = r.findings.iter().find(|f| f.what.contains("acknowledged record")).expect(name);
        assert_eq!(f.severity, Severity::Corrupt, "{name}");
        assert!(f.what.contains(&format!("{lost} acknowledged records")), "{name}: {}", f.what);
        assert!(!r.findings.iter().any(|f| f.what.contains("torn tail")), "{name}: {:?}", r.findings);
        for writable in [false, true] {
            let (n, msg) = open_loss(&dir, writable);
            assert_eq!(n, lost, "{name}: {msg}");
            assert!(msg.contains(&format!("{lost} acknowledged records")) && msg.contains(SYNC_NAME), "{msg}");
        }
        let (n, doubts, count) = repair(&dir);
        assert_eq!((n, count), (lost, 50 - lost), "{name}: {doubts:?}");
        assert!(!dir.join("lost+found/log").exists(), "{name}: an open recovered nothing");
    }
}

/// A cut after the last sync point loses nothing durable: the last sync mark cut off is no
/// loss at all; a torn tail after it is a write no fsync covered, and says so per policy.
#[test]
fn a_cut_after_the_last_sync_point_is_a_torn_tail_or_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = collection(tmp.path());
    let m = marks(&dir);
    cut(&dir, m[m.len() - 1]);
    let r = verify(&dir);
    assert!(r.is_clean() && r.count(Severity::Warning) == 0, "{:?}", r.findings);
    assert_eq!(Collection::open(&dir, &OpenOptions::read_only()).unwrap().count(), 50);

    // A batch cut short after it: half of a copy of the first batch's frames.
    let bytes = std::fs::read(dir.join(WAL)).unwrap();
    let first = frames(&bytes);
    let mut torn = bytes.clone();
    torn.extend_from_slice(&bytes[first[0].0..first[1].0 + 40]);
    std::fs::write(dir.join(WAL), &torn).unwrap();
    let r = verify(&dir);
    assert!(r.is_clean(), "{:?}", r.findings);
    let f = r.findings.iter().find(|f| f.what.contains("torn tail")).unwrap();
    assert!(f.what.contains("after the last fsync") && f.what.contains("EveryBatch"), "{}", f.what);
    let copy = tmp.path().join("copy");
    crate::testutil::copy_dir(&dir, &copy);
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    assert_eq!(coll.count(), 50);
    let r = &coll.recovered()[0];
    assert!(r.what.contains("after the last fsync") && !r.what.contains("was never acknowledged, cut"), "{r}");
    drop(coll);
    let log = std::fs::read_to_string(dir.join("lost+found/log")).unwrap();
    assert!(log.contains("never acknowledged under the EveryBatch policy"), "{log}");
    let (lost, doubts, count) = repair(&copy);
    assert_eq!((lost, count), (0, 50));
    assert!(doubts.len() == 1 && doubts[0].contains("after the last fsync"), "{doubts:?}");
}

/// Without a sync record (a collection written before it existed), a cut cannot be
/// counted: verify, open and repair say so instead of calling it unacknowledged.
#[test]
fn without_a_sync_record_a_cut_is_reported_as_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = collection(tmp.path());
    std::fs::remove_file(whole.join(SYNC_NAME)).unwrap();
    let len = std::fs::metadata(whole.join(WAL)).unwrap().len() as usize;
    let m = marks(&whole);

    let dir = tmp.path().join("boundary");
    crate::testutil::copy_dir(&whole, &dir);
    cut(&dir, m[1]);
    let r = verify(&dir);
    let f = r.findings.iter().find(|f| f.what.contains("cannot be detected")).expect("the blind spot is said");
    assert_eq!((f.severity, f.offset), (Severity::Info, Some(m[1] as u64)));

    let dir = tmp.path().join("half");
    crate::testutil::copy_dir(&whole, &dir);
    cut(&dir, len / 2);
    let r = verify(&dir);
    let f = r.findings.iter().find(|f| f.what.contains("torn tail")).unwrap();
    assert!(f.what.contains("cannot be counted") && !f.what.contains("never acknowledged,"), "{}", f.what);
    let copy = tmp.path().join("half-copy");
    crate::testutil::copy_dir(&dir, &copy);
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    assert!(coll.recovered()[0].what.contains("the WAL has no sync record"), "{}", coll.recovered()[0]);
    drop(coll);
    let (lost, doubts, _) = repair(&copy);
    assert_eq!(lost, 0);
    assert!(doubts.len() == 1 && doubts[0].contains("cannot be counted"), "{doubts:?}");

    let dir = tmp.path().join("zero");
    crate::testutil::copy_dir(&whole, &dir);
    cut(&dir, 0);
    let (lost, doubts, count) = repair(&dir);
    assert_eq!((lost, count), (0, 0));
    assert!(doubts.len() == 1 && doubts[0].contains("cannot be counted"), "{doubts:?}");
}
