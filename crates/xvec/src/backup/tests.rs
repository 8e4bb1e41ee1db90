//! Backups taken while a writer imports, deletes and optimizes, checked against a model of
//! what was acknowledged; every I/O call of a backup failing once; restore and
//! incremental backups.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::storage::faults::{Fault, inject};
use crate::verify::{self, VerifyOptions};
use crate::{
    BackupOptions, Collection, Doc, Error, Field, Metric, OpenOptions, OptimizeOptions, ScalarType, Schema,
    StorageError, VectorType,
};

/// Runs after a backup read the manifest of pass N and before it pins its files.
type Hook = Option<Box<dyn FnMut(u32)>>;

thread_local! {
    pub(super) static AFTER_MANIFEST: std::cell::RefCell<Hook> = const { std::cell::RefCell::new(None) };
}

fn schema() -> Schema {
    Schema::builder("b")
        .field(Field::scalar("n", ScalarType::Int64))
        .field(Field::vector("v", VectorType::Fp32, 4, Metric::L2))
        .build()
        .unwrap()
}

fn docs(keys: impl Iterator<Item = u64>) -> Vec<Doc> {
    keys.map(|i| Doc::new(format!("k{i}")).set("n", i as i64).set("v", vec![i as f32, 1.0, 0.0, -(i as f32)])).collect()
}

fn keys_of(dir: &Path) -> BTreeSet<String> {
    let c = Collection::open(dir, &OpenOptions::read_only()).unwrap();
    c.snapshot().keys_where(None).unwrap().into_iter().collect()
}

fn verify_clean(dir: &Path) {
    let report = verify::run(dir, &VerifyOptions::default().threads(1)).unwrap();
    assert!(report.is_clean(), "{}: {:#?}", dir.display(), report.findings);
}

/// The model: the key set after each acknowledged write call, in order.
type History = Arc<Mutex<Vec<BTreeSet<String>>>>;

/// A writer inserting, deleting, flushing and optimizing until `stop`, recording the key
/// set after each acknowledged write.
fn writer(coll: Arc<Collection>, history: History, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut next = 5_000u64;
        let mut live: BTreeSet<String> = history.lock().unwrap().last().unwrap().clone();
        let mut round = 0u64;
        while !stop.load(Ordering::Relaxed) {
            round += 1;
            if round % 4 == 3 {
                // Every 30th live key: a delete of several keys is one batch.
                let gone: Vec<String> = live.iter().step_by(30).take(20).cloned().collect();
                coll.delete(&gone.iter().map(String::as_str).collect::<Vec<_>>()).unwrap();
                for k in &gone {
                    live.remove(k);
                }
            } else {
                coll.insert(docs(next..next + 50)).unwrap();
                live.extend((next..next + 50).map(|i| format!("k{i}")));
                next += 50;
            }
            history.lock().unwrap().push(live.clone());
            match round % 10 {
                5 => coll.flush().unwrap(),
                9 => drop(coll.optimize(&OptimizeOptions::default()).unwrap()),
                _ => {}
            }
        }
    })
}

/// `backups` backups of a 5,000-row collection taken while [`writer`] runs, in turn
/// linked, copied, and copied incrementally over the one before; each verifies clean and
/// holds the key set after some acknowledged write no earlier than the last one
/// acknowledged before it started (no partial batch: a batch is 50 inserts or 20 deletes).
fn backups_under_load(backups: usize) {
    let root = tempfile::tempdir().unwrap();
    let src = root.path().join("live");
    let coll = Arc::new(Collection::create(&src, schema(), Default::default()).unwrap());
    coll.insert(docs(0..5_000)).unwrap();
    coll.optimize(&OptimizeOptions::default()).unwrap();
    let history: History = Arc::new(Mutex::new(vec![(0..5_000).map(|i| format!("k{i}")).collect()]));
    let stop = Arc::new(AtomicBool::new(false));
    let w = writer(coll.clone(), history.clone(), stop.clone());
    let mut retried = 0;
    for b in 0..backups {
        let (copy, incremental) = [(false, false), (true, false), (true, true)][b % 3];
        let dest = root.path().join(format!("backup-{}", if incremental { b - 1 } else { b }));
        let earlier = immutable_files(&dest);
        let before = history.lock().unwrap().len() - 1;
        let report = coll.backup(&dest, &BackupOptions::default().copy(copy).incremental(incremental)).unwrap();
        let after = history.lock().unwrap().len() - 1;
        retried += report.attempts - 1;
        verify_clean(&dest);
        let got = keys_of(&dest);
        let h = history.lock().unwrap();
        // One more than `after`: a batch logged but not yet acknowledged when we looked.
        let matched = (before..=(after + 1).min(h.len() - 1)).find(|&i| h[i] == got);
        assert!(matched.is_some(), "backup {b}: {} keys, no acknowledged state in {before}..={after}", got.len());
        if copy {
            assert_eq!(report.linked.files, 0, "backup {b}");
        }
        if incremental {
            // Kept: every file the earlier backup held that the new generation still names
            // (an optimize in between may have replaced them all).
            let kept = immutable_files(&dest).intersection(&earlier).count() as u64;
            assert_eq!(report.reused.files, kept, "backup {b}: {report:?}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    w.join().unwrap();
    eprintln!("{backups} backups under load, {retried} pin passes retried");
    verify_clean(&src);
}

/// The segment, delete and index files in `dir` (none when it does not exist).
fn immutable_files(dir: &Path) -> BTreeSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return BTreeSet::new() };
    entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".xseg") || n.ends_with(".idx") || n.ends_with(".del"))
        .collect()
}

#[test]
fn backups_under_load_hold_every_acknowledged_write() {
    backups_under_load(5);
}

/// The longer run:
/// `cargo test -p xvec --lib backup::tests::twenty_backups_under_load -- --ignored --nocapture`
#[test]
#[ignore]
fn twenty_backups_under_load() {
    backups_under_load(20);
}

/// A collection with two segments (one with deletes, one indexed), a sealed-free live WAL
/// holding records, under `root/live`.
fn small(root: &Path) -> (PathBuf, BTreeSet<String>) {
    let src = root.join("live");
    let coll = Collection::create(&src, schema(), Default::default()).unwrap();
    coll.insert(docs(0..60)).unwrap();
    coll.optimize(&OptimizeOptions::default()).unwrap();
    coll.insert(docs(60..90)).unwrap();
    coll.flush().unwrap();
    coll.delete(&["k3", "k70"]).unwrap();
    coll.flush().unwrap();
    coll.insert(docs(90..100)).unwrap();
    coll.delete(&["k95"]).unwrap();
    coll.close().unwrap();
    let keys = keys_of(&src);
    assert_eq!(keys.len(), 97);
    (src, keys)
}

/// Name, length and CRC32C of every file under `dir`.
fn fingerprint(dir: &Path) -> Vec<(String, u64, u32)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (e.file_name().to_string_lossy().into_owned(), bytes.len() as u64, crc32c::crc32c(&bytes))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_io_call_of_a_backup_failing_once_leaves_the_source_and_no_partial_backup() {
    let root = tempfile::tempdir().unwrap();
    let (src, keys) = small(root.path());
    let coll = Collection::open(&src, &OpenOptions::read_only()).unwrap();
    let before = fingerprint(&src);
    let dest = root.path().join("dest");
    let earlier = root.path().join("earlier");
    coll.backup(&earlier, &BackupOptions::default().copy(true)).unwrap();
    let earlier_keys = keys_of(&earlier);
    let modes = [("link", false, false), ("copy", true, false), ("incremental", true, true)];
    let mut summary = Vec::new();
    for (mode, copy, incremental) in modes {
        let target = if incremental { &earlier } else { &dest };
        let options = BackupOptions::default().copy(copy).incremental(incremental);
        for fault in Fault::ALL {
            let counted = {
                let g = inject(root.path(), fault, 0, false);
                coll.backup(target, &options).unwrap();
                g.ops()
            };
            if !incremental {
                std::fs::remove_dir_all(target).unwrap();
            }
            let mut failed = 0;
            for at in 1..=counted {
                let outcome = {
                    let _g = inject(root.path(), fault, at, false);
                    coll.backup(target, &options)
                };
                match outcome {
                    Ok(_) => {}
                    Err(e) => {
                        failed += 1;
                        let text = e.to_string();
                        assert!(text.contains(&*root.path().to_string_lossy()), "{mode} {fault:?} #{at}: {text}");
                    }
                }
                assert_eq!(fingerprint(&src), before, "{mode} {fault:?} #{at}: the source changed");
                if target.exists() {
                    verify_clean(target);
                    let got = keys_of(target);
                    assert!(got == keys || (incremental && got == earlier_keys), "{mode} {fault:?} #{at}");
                } else {
                    assert!(!incremental, "{mode} {fault:?} #{at}: the earlier backup is gone");
                }
                if !incremental && target.exists() {
                    std::fs::remove_dir_all(target).unwrap();
                }
                // A fault in the clean-up itself may leave the temp directory; the next
                // backup removes it.
            }
            summary.push(format!("{mode} {}: {counted} points, {failed} failed", fault.name()));
            assert!(failed > 0, "{mode} {fault:?}: no injected fault made the backup fail");
        }
    }
    eprintln!("{}", summary.join("\n"));
}

#[test]
fn restore_copies_a_backup_that_verifies_into_an_empty_directory() {
    let root = tempfile::tempdir().unwrap();
    let (src, keys) = small(root.path());
    let coll = Collection::open(&src, &OpenOptions::read_only()).unwrap();
    let backup = root.path().join("backup");
    coll.backup(&backup, &BackupOptions::default()).unwrap();
    let restored = root.path().join("restored");
    std::fs::create_dir(&restored).unwrap();
    let report = Collection::restore(&backup, &restored, None).unwrap();
    // 10 puts and a delete in the WAL.
    assert_eq!((report.linked.files, report.wal_records), (0, 11));
    assert_eq!(keys_of(&restored), keys);
    verify_clean(&restored);
    // A writable open of the copy takes writes of its own.
    let w = Collection::open(&restored, &OpenOptions::writable()).unwrap();
    w.insert(docs(500..501)).unwrap();
    drop(w);
    verify_clean(&restored);

    // Refused: a directory holding anything, and a collection.
    let busy = root.path().join("busy");
    std::fs::create_dir(&busy).unwrap();
    std::fs::write(busy.join("notes.txt"), "x").unwrap();
    let e = Collection::restore(&backup, &busy, None).unwrap_err();
    assert!(matches!(e, Error::Storage(StorageError::NotEmpty { ref files, .. }) if files == &["notes.txt"]), "{e}");
    let e = Collection::restore(&backup, &restored, None).unwrap_err();
    assert!(matches!(e, Error::Storage(StorageError::AlreadyExists { .. })), "{e}");

    // A damaged backup is not restored, and leaves nothing behind.
    let seg = std::fs::read_dir(&backup)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "xseg"))
        .unwrap();
    // The backup's segments are links to the collection's: damage a copy, not the source.
    let mut bytes = std::fs::read(&seg).unwrap();
    std::fs::remove_file(&seg).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x40;
    std::fs::write(&seg, bytes).unwrap();
    let target = root.path().join("from-damaged");
    let e = Collection::restore(&backup, &target, None).unwrap_err();
    assert!(matches!(e, Error::Storage(StorageError::BackupDamaged { problems: 1.., .. })), "{e}");
    assert!(!target.exists() && !root.path().join("from-damaged.tmp").exists());
    verify_clean(&src);
}

#[test]
fn an_incremental_backup_copies_only_what_the_earlier_one_lacks_or_holds_damaged() {
    let root = tempfile::tempdir().unwrap();
    let (src, _) = small(root.path());
    let dest = root.path().join("backup");
    let copy = BackupOptions::default().copy(true);
    let coll = Collection::open(&src, &OpenOptions::writable()).unwrap();
    let first = coll.backup(&dest, &copy).unwrap();
    assert_eq!(first.reused.files, 0);
    let e = coll.backup(&dest, &copy).unwrap_err();
    assert!(matches!(e, Error::Storage(StorageError::AlreadyExists { .. })), "{e}");
    coll.insert(docs(100..150)).unwrap();
    coll.flush().unwrap();
    let second = coll.backup(&dest, &copy.incremental(true)).unwrap();
    // Only the new segment, the WAL and `WAL.sync` are copied.
    assert_eq!((second.copied.files, second.reused.files), (3, first.copied.files - 2), "{first:?}\n{second:?}");
    assert_eq!(keys_of(&dest).len(), 147);
    verify_clean(&dest);

    // A file of the same name and size but other bytes is copied again.
    let mut segs: Vec<PathBuf> = std::fs::read_dir(&dest)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "xseg"))
        .collect();
    segs.sort();
    let seg = segs[0].clone();
    let mut bytes = std::fs::read(&seg).unwrap();
    let at = bytes.len() - 10;
    bytes[at] ^= 1;
    std::fs::write(&seg, bytes).unwrap();
    let third = coll.backup(&dest, &copy.incremental(true)).unwrap();
    assert_eq!((third.copied.files, third.reused.files), (3, second.reused.files), "{second:?}\n{third:?}");
    verify_clean(&dest);
    // Backing the collection up into itself is refused.
    let e = coll.backup(&src, &copy.incremental(true)).unwrap_err();
    assert!(e.to_string().contains("is the collection itself"), "{e}");
}

#[test]
fn a_cancelled_or_killed_backup_leaves_nothing_under_the_final_name() {
    let root = tempfile::tempdir().unwrap();
    let (src, keys) = small(root.path());
    let coll = Collection::open(&src, &OpenOptions::read_only()).unwrap();
    let dest = root.path().join("backup");
    let tmp = root.path().join("backup.tmp");
    let cancel = AtomicBool::new(true);
    let e = coll.backup(&dest, &BackupOptions::default().copy(true).cancel(Some(&cancel))).unwrap_err();
    assert!(matches!(e, Error::Cancelled), "{e}");
    assert!(!dest.exists() && !tmp.exists());
    // What a killed backup leaves (xvec's files in the temp directory) is cleared.
    std::fs::create_dir(&tmp).unwrap();
    std::fs::write(tmp.join("SEG-000001.xseg"), "partial").unwrap();
    coll.backup(&dest, &BackupOptions::default()).unwrap();
    assert_eq!(keys_of(&dest), keys);
    // Anything else there is refused by name, and kept.
    std::fs::create_dir(&tmp).unwrap();
    std::fs::write(tmp.join("mine.txt"), "keep").unwrap();
    let e = coll.backup(&dest, &BackupOptions::default().incremental(true)).unwrap_err();
    assert!(matches!(e, Error::Storage(StorageError::NotEmpty { ref files, .. }) if files == &["mine.txt"]), "{e}");
    assert!(tmp.join("mine.txt").exists());
}

/// The race the pin answers: the writer publishes between the backup's read of the
/// manifest and its links, once removing the segments that manifest names (an optimize
/// merging them), once only moving `CURRENT` on (a flush). Each time the backup lets go
/// and takes the newer generation, whole.
#[test]
fn a_generation_superseded_while_it_is_pinned_is_let_go_for_the_newer_one() {
    let root = tempfile::tempdir().unwrap();
    let (src, _) = small(root.path());
    let coll = Arc::new(Collection::open(&src, &OpenOptions::writable()).unwrap());
    for (n, copy) in [(0u64, false), (1, true)] {
        let w = coll.clone();
        AFTER_MANIFEST.with(|h| {
            *h.borrow_mut() = Some(Box::new(move |attempt| match attempt {
                1 => {
                    w.insert(docs(1000 + n * 10..1005 + n * 10)).unwrap();
                    w.optimize(&OptimizeOptions::default()).unwrap();
                }
                2 => {
                    w.insert(docs(1005 + n * 10..1010 + n * 10)).unwrap();
                    w.flush().unwrap();
                }
                _ => {}
            }))
        });
        let dest = root.path().join(format!("backup-{n}"));
        let report = coll.backup(&dest, &BackupOptions::default().copy(copy)).unwrap();
        AFTER_MANIFEST.with(|h| h.borrow_mut().take());
        assert_eq!(report.attempts, 3, "{report:?}");
        assert_eq!(report.generation, coll.stats().generation);
        assert_eq!(keys_of(&dest), keys_of(&src));
        verify_clean(&dest);
    }
}
