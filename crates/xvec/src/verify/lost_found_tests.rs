//! Nothing is written or removed outside the collection: a `lost+found` that is a symbolic
//! link (to a directory, or dangling) or a file is refused by repair, purge and a
//! recovering open with an error naming it, and reported by verify; purge removes a link
//! inside `lost+found` without following it and reports exactly what it removed.

use std::path::Path;

use crate::error::{Error, StorageError};
use crate::testutil::verify_fixture::build;
use crate::verify::{self, LOST_FOUND, Repair, RepairOptions, Severity, VerifyOptions, purge_lost_found};
use crate::{Collection, OpenOptions};

/// A collection whose live WAL ends in a torn tail: repair and a writable open both keep
/// the tail in `lost+found/`.
fn torn(dir: &Path) {
    build(dir, 8);
    let wal = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "log"))
        .unwrap();
    let mut bytes = std::fs::read(&wal).unwrap();
    bytes.extend_from_slice(&[0x5a; 7]);
    std::fs::write(&wal, bytes).unwrap();
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

fn bad_lost_found(e: &StorageError, what: &str) -> bool {
    matches!(e, StorageError::BadLostFound { path, what: w } if path.ends_with(LOST_FOUND) && *w == what)
}

#[test]
fn a_symlinked_lost_found_is_refused_by_repair_open_and_purge_and_reported_by_verify() {
    let root = tempfile::tempdir().unwrap();
    let (dir, outside) = (root.path().join("c"), root.path().join("elsewhere"));
    torn(&dir);
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("precious"), b"not the collection's").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join(LOST_FOUND)).unwrap();
    let before = listing(&dir);

    let report = verify::run(&dir, &VerifyOptions::default().threads(1).attempts(1)).unwrap();
    let f = report.findings.iter().find(|f| f.file == LOST_FOUND).expect("verify reports lost+found");
    assert!(f.severity == Severity::Warning && f.what.contains("symbolic link, not a directory"), "{f:?}");

    let e = Repair::begin(&dir, RepairOptions::default().concurrency(1)).map(drop).unwrap_err();
    assert!(bad_lost_found(&e, "symbolic link"), "{e}");
    let e = Collection::open(&dir, &OpenOptions::writable()).map(drop).unwrap_err();
    assert!(matches!(&e, Error::Storage(s) if bad_lost_found(s, "symbolic link")), "{e}");
    let e = purge_lost_found(&dir, Default::default()).unwrap_err();
    assert!(bad_lost_found(&e, "symbolic link"), "{e}");
    assert!(e.to_string().contains("is a symbolic link, not a directory"), "{e}");

    assert_eq!(listing(&outside), ["precious"], "nothing written or removed outside");
    assert_eq!(listing(&dir), before, "nothing changed in the collection");
    // A dangling link and a plain file in its place: refused alike, not `File exists`.
    std::fs::remove_file(dir.join(LOST_FOUND)).unwrap();
    std::os::unix::fs::symlink(root.path().join("gone"), dir.join(LOST_FOUND)).unwrap();
    let e = Collection::open(&dir, &OpenOptions::writable()).map(drop).unwrap_err();
    assert!(matches!(&e, Error::Storage(s) if bad_lost_found(s, "symbolic link")), "{e}");
    std::fs::remove_file(dir.join(LOST_FOUND)).unwrap();
    std::fs::write(dir.join(LOST_FOUND), b"").unwrap();
    let e = Repair::begin(&dir, RepairOptions::default().concurrency(1)).map(drop).unwrap_err();
    assert!(bad_lost_found(&e, "regular file"), "{e}");
    // Moved away, the same collection repairs into a lost+found of its own.
    std::fs::remove_file(dir.join(LOST_FOUND)).unwrap();
    let out = Repair::begin(&dir, RepairOptions::default().concurrency(1)).unwrap().apply().unwrap();
    assert!(out.after.is_clean() && !out.moved.is_empty(), "{out:#?}");
    assert!(std::fs::symlink_metadata(dir.join(LOST_FOUND)).unwrap().is_dir());
}

#[test]
fn purge_removes_a_link_inside_lost_found_not_its_target_and_counts_what_it_removed() {
    let root = tempfile::tempdir().unwrap();
    let (dir, outside) = (root.path().join("c"), root.path().join("elsewhere"));
    torn(&dir);
    Repair::begin(&dir, RepairOptions::default().concurrency(1)).unwrap().apply().unwrap();
    let lf = dir.join(LOST_FOUND);
    let (files, bytes) = verify::lost_found_size(&dir);
    assert!(files >= 1 && bytes >= 7, "the torn tail is kept: {files} files, {bytes} bytes");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("precious"), b"not the collection's").unwrap();
    std::os::unix::fs::symlink(&outside, lf.join("link-to-dir")).unwrap();
    std::os::unix::fs::symlink(outside.join("precious"), lf.join("link-to-file")).unwrap();
    let removed = purge_lost_found(&dir, Default::default()).unwrap();
    assert_eq!(removed, (files + 2, bytes), "the kept files and the two links, no target's bytes");
    assert!(std::fs::symlink_metadata(&lf).is_err(), "lost+found is gone");
    assert_eq!(std::fs::read(outside.join("precious")).unwrap(), b"not the collection's");
    assert_eq!(purge_lost_found(&dir, Default::default()).unwrap(), (0, 0), "nothing left to purge");
}

#[test]
fn repair_and_purge_of_a_directory_holding_no_collection_create_nothing() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("notes.txt"), b"not a collection").unwrap();
    let e = Repair::begin(root.path(), RepairOptions::default()).map(drop).unwrap_err();
    assert!(matches!(e, StorageError::NotACollection { .. }), "{e}");
    let e = purge_lost_found(root.path(), Default::default()).unwrap_err();
    assert!(matches!(e, StorageError::NotACollection { .. }), "{e}");
    assert_eq!(listing(root.path()), ["notes.txt"], "no LOCK left behind");
}
