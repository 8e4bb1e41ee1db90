//! The writer lock: an exclusive OS file lock on `DIR/LOCK`, released when dropped (or
//! when the process dies, so a crashed writer never leaves a stale lock behind).
//!
//! A writer takes two locks on the file: an exclusive `flock` (what every writer tries,
//! so two writers exclude each other) and, on Linux, an open-file-description record lock
//! on the whole file. [`WriterLock::is_held`] asks about the record lock with
//! `F_OFD_GETLK`, which tests for a conflict without taking anything, so a probe can never
//! make a writer's `flock` attempt fail. Where record locks are not available, the probe
//! takes the `flock` shared for a moment and a writer retries around it.

use std::fs::{File, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::error::StorageError;

/// Tries of a writer whose `flock` attempt meets a holder (a probe of the fallback kind,
/// which holds it for microseconds, or a just-forked child's copy of a released lock's
/// descriptor), and the pause before the first retry (doubled each time: about 60 ms in
/// all before a writer is refused).
const TRIES: u32 = 7;
const FIRST_PAUSE: Duration = Duration::from_micros(500);
/// The longest pause between tries while waiting for a writer to finish.
const MAX_PAUSE: Duration = Duration::from_millis(100);

/// Proof that this handle is the collection's only writer.
#[derive(Debug)]
pub(crate) struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Takes the lock without waiting for another writer; one yields
    /// [`StorageError::Locked`].
    #[cfg(test)]
    pub(crate) fn acquire(dir: &Path) -> Result<WriterLock, StorageError> {
        WriterLock::acquire_within(dir, Duration::ZERO)
    }

    /// Takes the lock, waiting up to `timeout` for another writer to release it (sqlite's
    /// busy timeout): tries again with a pause that doubles up to 100 ms, then fails with
    /// [`StorageError::Locked`] saying how long it waited.
    pub(crate) fn acquire_within(dir: &Path, timeout: Duration) -> Result<WriterLock, StorageError> {
        super::disk::check_dir(dir, true)?;
        let path = dir.join("LOCK");
        let file = super::disk::DiskFile::open_lock(&path)?.into_file();
        let started = Instant::now();
        // Retried for any holder, not only a probe: a process forked from one that just
        // released the lock holds a copy of its descriptor until it execs.
        let mut pause = FIRST_PAUSE;
        let mut attempt = 1;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let waited = started.elapsed();
                    if attempt >= TRIES && waited >= timeout {
                        // The wait asked for, which it did not give up before: what the
                        // user set, not a figure that varies with the scheduler.
                        return Err(StorageError::Locked { path: dir.to_path_buf(), waited: timeout });
                    }
                    let left = if attempt < TRIES { pause } else { timeout - waited };
                    std::thread::sleep(pause.min(left));
                    pause = (pause * 2).min(MAX_PAUSE);
                    attempt += 1;
                }
                Err(TryLockError::Error(e)) => return Err(StorageError::io(&path, e)),
            }
        }
        // The flock decides; the record lock only makes the writer visible to probes.
        record::set(&file);
        Ok(WriterLock { _file: file })
    }

    /// True when some handle, in any process, holds the writer lock now. Never takes the
    /// lock where record locks are available (see the module docs).
    pub(crate) fn is_held(dir: &Path) -> Result<bool, StorageError> {
        let path = dir.join("LOCK");
        let file = match super::disk::DiskFile::open_read(&path) {
            Ok(f) => f.into_file(),
            Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        };
        if let Some(held) = record::query(&file) {
            return Ok(held);
        }
        match file.try_lock_shared() {
            Ok(()) => Ok(false),
            Err(TryLockError::WouldBlock) => Ok(true),
            Err(TryLockError::Error(e)) => Err(StorageError::io(&path, e)),
        }
    }
}

/// Whole-file open-file-description record locks (Linux `F_OFD_*`): owned by the open
/// file, not the process, so closing another descriptor of `LOCK` in the same process
/// does not drop them, and a test for a conflict sees a lock of the same process.
#[cfg(target_os = "linux")]
mod record {
    use std::fs::File;
    use std::os::fd::AsRawFd;

    fn whole_file(kind: libc::c_int) -> libc::flock {
        // SAFETY: `flock` is plain data; all zeros is a valid value (start 0, length 0 =
        // to the end of the file, pid 0 as F_OFD_* requires).
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = kind as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        fl
    }

    /// Marks `file` as the writer's; best effort (a file system without record locks
    /// leaves probes to the fallback).
    pub(super) fn set(file: &File) {
        let fl = whole_file(libc::F_WRLCK);
        // SAFETY: a valid descriptor and a valid `flock` that outlives the call.
        unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_SETLK, &fl) };
    }

    /// Whether a writer's record lock is on the file; `None` when record locks are not
    /// available here.
    pub(super) fn query(file: &File) -> Option<bool> {
        let mut fl = whole_file(libc::F_RDLCK);
        // SAFETY: a valid descriptor and a valid `flock` that outlives the call.
        let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_GETLK, &mut fl) };
        (r == 0).then_some(fl.l_type != libc::F_UNLCK as libc::c_short)
    }
}

#[cfg(not(target_os = "linux"))]
mod record {
    use std::fs::File;

    pub fn set(_: &File) {}

    pub fn query(_: &File) -> Option<bool> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_writer_is_refused_until_the_first_drops() {
        let dir = tempfile::tempdir().unwrap();
        let a = WriterLock::acquire(dir.path()).unwrap();
        assert!(WriterLock::is_held(dir.path()).unwrap());
        let err = WriterLock::acquire(dir.path()).unwrap_err();
        assert!(err.to_string().contains("locked by another writer"), "{err}");
        drop(a);
        assert!(!WriterLock::is_held(dir.path()).unwrap());
        WriterLock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn a_lock_wait_succeeds_when_the_writer_leaves_and_times_out_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let held = WriterLock::acquire(dir.path()).unwrap();
        let started = Instant::now();
        let err = WriterLock::acquire_within(dir.path(), Duration::from_millis(300)).unwrap_err();
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(2), "{waited:?}");
        assert!(matches!(err, StorageError::Locked { waited, .. } if waited == Duration::from_millis(300)), "{err}");
        assert!(err.to_string().ends_with("locked by another writer (waited 300 ms for it)"), "{err}");
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                drop(held);
            });
            let started = Instant::now();
            WriterLock::acquire_within(dir.path(), Duration::from_secs(10)).unwrap();
            assert!(started.elapsed() < Duration::from_secs(5));
        });
        // Without a wait, the error says nothing of waiting.
        let _again = WriterLock::acquire(dir.path()).unwrap();
        let err = WriterLock::acquire(dir.path()).unwrap_err();
        assert!(err.to_string().ends_with("collection is locked by another writer"), "{err}");
    }

    /// A probe (`verify`, `inspect`) used to take the lock shared for a moment, and a
    /// writer opening in that moment failed with Locked.
    #[test]
    fn probes_never_make_a_writer_fail() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let dir = tempfile::tempdir().unwrap();
        WriterLock::acquire(dir.path()).unwrap();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        WriterLock::is_held(dir.path()).unwrap();
                    }
                });
            }
            let (mut failed, mut held) = (Vec::new(), 0);
            for i in 0..2000 {
                match WriterLock::acquire(dir.path()) {
                    Ok(_lock) => held += WriterLock::is_held(dir.path()).unwrap() as usize,
                    Err(e) => failed.push(format!("writer open {i}: {e}")),
                }
            }
            stop.store(true, Ordering::Relaxed);
            assert!(failed.is_empty(), "{} of 2000 writer opens failed, e.g. {}", failed.len(), failed[0]);
            assert_eq!(held, 2000, "a held lock was reported free");
        });
    }

    /// `verify` and `inspect` probe the writer lock; a probe used to take it shared for a
    /// moment, and a writer opening then failed with Locked.
    #[test]
    fn lock_probes_never_make_a_writable_open_fail() {
        use crate::testutil::simple_schema;
        use crate::{Collection, Metric, OpenOptions};
        use std::sync::atomic::{AtomicBool, Ordering};
        let dir = tempfile::tempdir().unwrap();
        Collection::create(dir.path(), simple_schema(3, Metric::L2), Default::default()).unwrap().close().unwrap();
        let stop = AtomicBool::new(false);
        let failed = std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        WriterLock::is_held(dir.path()).unwrap();
                    }
                });
            }
            let failed: Vec<String> = (0..200)
                .filter_map(|i| match Collection::open(dir.path(), &OpenOptions::writable()) {
                    Ok(c) => c.close().err().map(|e| format!("close {i}: {e}")),
                    Err(e) => Some(format!("open {i}: {e}")),
                })
                .collect();
            stop.store(true, Ordering::Relaxed);
            failed
        });
        assert!(failed.is_empty(), "{} of 200 writable opens failed, e.g. {}", failed.len(), failed[0]);
    }
}
