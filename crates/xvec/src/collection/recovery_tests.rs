//! Recovery of what a crash leaves behind, with files made by hand the way an interrupted
//! publish leaves them: rolled back by the next writable open, logged, never a foreign
//! file touched, and a WAL no generation names kept rather than deleted.

use xvec::storage::wal;
use xvec::verify::{self, Severity, VerifyOptions};
use xvec::{Collection, OpenOptions};

use crate::testutil::wal_fixture::{doc, wal_collection};

fn quick() -> VerifyOptions {
    VerifyOptions::default().code_sample(8)
}

/// An interrupted flush leaves the next WAL, a manifest CURRENT never named, a temp file and
/// an unpublished segment. Verify calls them pending rollback (warnings, exit 0); the next
/// writable open removes them and logs it, flush works again (it used to fail forever with
/// "File exists"), and verify is then clean.
#[test]
fn an_interrupted_publish_is_rolled_back_by_the_next_writable_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let vectors = wal_collection(&dir, 40, 10);
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    coll.flush().unwrap();
    coll.insert(vec![doc(40, &vectors[0])]).unwrap();
    drop(coll);
    let m = xvec::storage::manifest::load(&dir).unwrap();
    // What a flush killed before its rename of CURRENT leaves behind.
    drop(wal::WalWriter::create(&dir, m.wal_seq + 1, 99, Default::default()).unwrap());
    let seg = dir.join(&m.segments[0].file);
    std::fs::copy(&seg, dir.join(xvec::storage::segment_name(m.next_segment_id))).unwrap();
    std::fs::write(dir.join("CURRENT.tmp"), format!("{}\n", xvec::storage::manifest_name(m.generation + 1))).unwrap();
    let mut next = m.clone();
    next.generation += 1;
    std::fs::write(dir.join(xvec::storage::manifest_name(next.generation)), next.encode()).unwrap();
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();

    let before = verify::run(&dir, &quick()).unwrap();
    assert!(before.is_clean(), "{:?}", before.findings);
    let pending = before.findings.iter().filter(|f| f.what.starts_with("pending rollback")).count();
    assert_eq!(pending, 4, "{:?}", before.findings);

    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    assert_eq!(coll.recovered().len(), 4, "{:?}", coll.recovered());
    assert_eq!(coll.count(), 41);
    coll.insert(vec![doc(41, &vectors[1])]).unwrap();
    coll.flush().unwrap();
    coll.optimize(&Default::default()).unwrap();
    drop(coll);
    let after = verify::run(&dir, &quick()).unwrap();
    assert!(after.is_clean() && after.count(Severity::Warning) == 0, "{:?}", after.findings);
    let log = std::fs::read_to_string(dir.join("lost+found/log")).unwrap();
    assert_eq!(log.lines().count(), 4, "{log}");
    assert!(log.contains("empty WAL of an interrupted flush"), "{log}");
    assert_eq!(std::fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine", "foreign files are left alone");
    assert_eq!(Collection::open(&dir, &OpenOptions::read_only()).unwrap().count(), 42);
}

/// A WAL above the live one that holds records cannot come from our publish protocol; if
/// one turns up it is moved to lost+found/, never deleted.
#[test]
fn a_wal_above_the_live_one_with_records_is_kept_not_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let vectors = wal_collection(&dir, 5, 5);
    let m = xvec::storage::manifest::load(&dir).unwrap();
    let schema = m.schema(&dir).unwrap();
    let mut w = wal::WalWriter::create(&dir, m.wal_seq + 1, 5, Default::default()).unwrap();
    let row = xvec::value::Row::from_doc(&schema, doc(99, &vectors[0])).unwrap();
    w.append(&schema, &[wal::Record::Put(row)]).unwrap();
    drop(w);
    let name = xvec::storage::wal_name(m.wal_seq + 1);
    let coll = Collection::open(&dir, &OpenOptions::writable()).unwrap();
    let r = &coll.recovered()[0];
    assert!(r.what.contains("holding 1 record no generation names"), "{r}");
    let kept = r.kept_in.clone().unwrap();
    assert!(kept.ends_with(&name) && kept.exists() && !dir.join(&name).exists(), "{r}");
}
