//! Files that cannot be read, as opposed to damaged or gone: a permission error, an I/O
//! error or the descriptor limit at the open of any file kind makes `repair` refuse with
//! nothing changed (it would otherwise drop the file's rows as "missing"); a FIFO, a
//! directory or a symbolic link in a file's place is an error naming it, never a hang.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use crate::error::{Error, StorageError};
use crate::storage::FileKind;
use crate::storage::faults::{Fault, inject};
use crate::testutil::copy_dir;
use crate::testutil::verify_fixture::build;
use crate::verify::{self, Repair, RepairOptions, Severity, VerifyOptions};
use crate::{Collection, OpenOptions};

/// Every file of `dir` with its bytes, and whether `lost+found` exists: what "nothing
/// changed" compares.
fn state(dir: &Path) -> (BTreeMap<String, Vec<u8>>, bool) {
    let files = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file() && e.file_name() != "LOCK")
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    (files, dir.join(verify::LOST_FOUND).exists())
}

/// One file of each kind the live manifest names: CURRENT, the manifest, the WAL, a
/// segment, its delete file and an index file.
fn one_of_each(dir: &Path) -> Vec<String> {
    let current = std::fs::read_to_string(dir.join("CURRENT")).unwrap().trim().to_string();
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let first = |kind: FileKind| names.iter().find(|n| FileKind::of_name(n) == Some(kind)).unwrap().clone();
    vec![
        "CURRENT".into(),
        current,
        first(FileKind::Wal),
        first(FileKind::Segment),
        first(FileKind::Deletes),
        first(FileKind::Index),
    ]
}

fn repair(dir: &Path) -> Result<Repair, StorageError> {
    Repair::begin(dir, RepairOptions::default().concurrency(1))
}

fn fixture() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let pristine = root.path().join("pristine");
    build(&pristine, 12);
    (root, pristine)
}

#[test]
fn repair_refuses_with_nothing_changed_when_a_file_of_any_kind_cannot_be_opened() {
    let (root, pristine) = fixture();
    for fault in [Fault::Denied, Fault::Io, Fault::NoDescriptors] {
        for name in one_of_each(&pristine) {
            let dir = root.path().join(format!("{}-{name}", fault.name()));
            copy_dir(&pristine, &dir);
            let before = state(&dir);
            let case = format!("{} at the open of {name}", fault.name());
            {
                let _fault = inject(&dir.join(&name), fault, 1, true);
                let report = verify::run(&dir, &VerifyOptions::default().threads(1).attempts(1)).unwrap();
                assert!(
                    report.findings.iter().any(|f| f.file == name && f.severity == Severity::Corrupt),
                    "{case}: verify names the file: {:#?}",
                    report.findings
                );
                match repair(&dir) {
                    Err(StorageError::Unreadable { files, .. }) => {
                        assert!(
                            files.iter().any(|f| f.starts_with(&format!("{name} cannot be read: "))),
                            "{case}: {files:?}"
                        );
                        let errno = std::io::Error::from_raw_os_error(match fault {
                            Fault::Denied => libc::EACCES,
                            Fault::NoDescriptors => libc::EMFILE,
                            _ => libc::EIO,
                        });
                        assert!(
                            files.iter().any(|f| f.contains(&errno.to_string())),
                            "{case}: the OS error: {files:?}"
                        );
                    }
                    Err(e) => panic!("{case}: {e}"),
                    Ok(r) => panic!("{case}: planned {:#?}, losses {:#?}", r.plan().actions, r.plan().losses),
                }
            }
            let after = state(&dir);
            assert!(after.0 == before.0 && !after.1, "{case}: the directory changed");
            // Readable again, the same files repair nothing and lose nothing.
            let r = repair(&dir).unwrap();
            assert!(r.plan().is_empty() && r.plan().losses.is_empty(), "{case}: {:#?}", r.plan());
        }
    }
}

/// Runs `f` on a thread; fails the test if it has not returned in 20 s (a regression
/// that blocks in `open()` fails instead of hanging the suite).
fn promptly<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("{what}: still blocked after 20 s"))
}

fn mkfifo(path: &Path) {
    std::fs::remove_file(path).unwrap();
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
}

/// Opens read-only and writable, verifies and plans a repair of `dir`: each returns, an
/// open or repair with an error naming `name` and `what`, verify with a finding on it.
fn each_command_refuses(dir: &Path, name: &str, what: &str) {
    let names = |e: &str| e.contains(name) && e.contains(&format!("{what}, not a regular file"));
    let d = dir.to_path_buf();
    let opens = promptly(&format!("open with {what} for {name}"), move || {
        let ro = Collection::open(&d, &OpenOptions::read_only()).map(drop).map_err(|e| e.to_string());
        let rw = Collection::open(&d, &OpenOptions::writable()).map(drop).map_err(|e| e.to_string());
        (ro, rw)
    });
    if name != "LOCK" {
        assert!(opens.0.as_ref().is_err_and(|e| names(e)), "read-only open, {what} for {name}: {:?}", opens.0);
    }
    assert!(opens.1.as_ref().is_err_and(|e| names(e)), "writable open, {what} for {name}: {:?}", opens.1);
    let d = dir.to_path_buf();
    let report = promptly(&format!("verify with {what} for {name}"), move || {
        verify::run(&d, &VerifyOptions::default().threads(1).attempts(1))
    });
    if name != "LOCK" {
        let report = report.unwrap();
        assert!(
            report.findings.iter().any(|f| f.file == name && f.severity == Severity::Corrupt && f.what.contains(what)),
            "verify, {what} for {name}: {:#?}",
            report.findings
        );
    }
    let d = dir.to_path_buf();
    let planned =
        promptly(&format!("repair with {what} for {name}"), move || repair(&d).map(drop).map_err(|e| e.to_string()));
    assert!(
        planned.as_ref().is_err_and(|e| e.contains(name) && e.contains(what)),
        "repair, {what} for {name}: {planned:?}"
    );
}

#[test]
fn a_fifo_in_place_of_any_file_is_an_error_naming_it_not_a_hang() {
    let (root, pristine) = fixture();
    for name in one_of_each(&pristine).into_iter().chain(["LOCK".to_string()]) {
        let dir = root.path().join(format!("fifo-{name}"));
        copy_dir(&pristine, &dir);
        if name == "LOCK" {
            std::fs::write(dir.join("LOCK"), b"").unwrap();
        }
        mkfifo(&dir.join(&name));
        each_command_refuses(&dir, &name, "FIFO");
    }
}

#[test]
fn a_directory_or_a_symbolic_link_in_place_of_a_segment_is_named_as_such() {
    let (root, pristine) = fixture();
    let seg = one_of_each(&pristine)[3].clone();
    let dir = root.path().join("dir");
    copy_dir(&pristine, &dir);
    std::fs::remove_file(dir.join(&seg)).unwrap();
    std::fs::create_dir(dir.join(&seg)).unwrap();
    each_command_refuses(&dir, &seg, "directory");
    // A link to the very bytes the segment had: still refused, nothing is followed out.
    let dir = root.path().join("link");
    copy_dir(&pristine, &dir);
    std::fs::remove_file(dir.join(&seg)).unwrap();
    std::os::unix::fs::symlink(pristine.join(&seg), dir.join(&seg)).unwrap();
    each_command_refuses(&dir, &seg, "symbolic link");
    let e = Collection::open(&dir, &OpenOptions::read_only()).map(drop).unwrap_err();
    assert!(matches!(e, Error::Storage(StorageError::NotRegular { what: "symbolic link", .. })), "{e}");
}
