//! Fault injection: makes the Nth file operation under a directory fail, for the crash and
//! I/O-error tests (SQLite's `ioerr` tests are the model).
//!
//! Every file operation of the engine passes through [`super::disk`], which asks
//! [`check`] first. With no injection installed that is one relaxed atomic load. An
//! injection counts only the operations its fault applies to (writes for ENOSPC, syncs for
//! a failed fsync, everything for EIO), so a test can first count a workload's operations
//! with `at = 0` and then fail each one in turn.

// The seam is in every build (its check is one relaxed load); only the engine's unit tests
// install injections, so outside them the installing half is unused.
#![cfg_attr(not(test), allow(dead_code))]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What goes wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Fault {
    /// `ENOSPC` from a write or a file creation; nothing is written.
    NoSpace,
    /// Half of a write reaches the file, then `ENOSPC`.
    ShortWrite,
    /// `EIO` from any operation, reads, renames and removals included.
    Io,
    /// `EIO` from an fsync of a file or a directory.
    Fsync,
    /// `EACCES` from opening a file (one another user made unreadable with `chmod 000`).
    Denied,
    /// `EMFILE` from opening a file (the process is at its descriptor limit, `ulimit -n`).
    NoDescriptors,
}

impl Fault {
    pub(crate) const ALL: [Fault; 4] = [Fault::NoSpace, Fault::ShortWrite, Fault::Io, Fault::Fsync];

    fn applies(self, op: Op) -> bool {
        match self {
            Fault::NoSpace => matches!(op, Op::Create | Op::Write),
            Fault::ShortWrite => op == Op::Write,
            Fault::Io => true,
            Fault::Fsync => op == Op::Sync,
            Fault::Denied | Fault::NoDescriptors => matches!(op, Op::Open | Op::Create),
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Fault::NoSpace => "ENOSPC",
            Fault::ShortWrite => "short write",
            Fault::Io => "EIO",
            Fault::Fsync => "failed fsync",
            Fault::Denied => "EACCES",
            Fault::NoDescriptors => "EMFILE",
        }
    }
}

/// A file operation, as the seam sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Open,
    Create,
    Read,
    Write,
    Sync,
    SetLen,
    Rename,
    Remove,
    /// Listing a directory.
    List,
    /// Reading a file's metadata by path (its length, its identity).
    Stat,
}

/// What the seam does instead of the operation.
pub(crate) enum Injected {
    /// Fail with this error, doing nothing.
    Fail(std::io::Error),
    /// Write the first half of the buffer, then fail with this error.
    Short(std::io::Error),
}

struct Injection {
    dir: PathBuf,
    fault: Fault,
    /// The matching operation to fail (1-based); 0 only counts.
    at: u64,
    /// Keep failing every matching operation after the first failure (a disk that stays full).
    persistent: bool,
    seen: AtomicU64,
    fired: AtomicU64,
}

static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static INJECTIONS: Mutex<Vec<Arc<Injection>>> = Mutex::new(Vec::new());

/// An installed injection; dropping it removes it.
pub(crate) struct Guard(Arc<Injection>);

impl Guard {
    /// Matching operations seen so far.
    pub(crate) fn ops(&self) -> u64 {
        self.0.seen.load(Ordering::SeqCst)
    }

    /// Operations that were made to fail.
    pub(crate) fn fired(&self) -> u64 {
        self.0.fired.load(Ordering::SeqCst)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let mut list = INJECTIONS.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|i| !Arc::ptr_eq(i, &self.0));
        ACTIVE.store(list.len(), Ordering::SeqCst);
    }
}

/// Fails the `at`-th operation under `dir` that `fault` applies to (and, if `persistent`,
/// every later one); `at = 0` only counts them. Paths are matched by prefix, as the engine
/// builds them: pass the directory the collection was opened with.
pub(crate) fn inject(dir: &Path, fault: Fault, at: u64, persistent: bool) -> Guard {
    let injection = Arc::new(Injection {
        dir: dir.to_path_buf(),
        fault,
        at,
        persistent,
        seen: AtomicU64::new(0),
        fired: AtomicU64::new(0),
    });
    let mut list = INJECTIONS.lock().unwrap_or_else(|e| e.into_inner());
    list.push(injection.clone());
    ACTIVE.store(list.len(), Ordering::SeqCst);
    Guard(injection)
}

/// Asked by the seam before every operation on `path`.
pub(crate) fn check(op: Op, path: &Path) -> Option<Injected> {
    if ACTIVE.load(Ordering::Relaxed) == 0 {
        return None;
    }
    let list = INJECTIONS.lock().unwrap_or_else(|e| e.into_inner());
    for i in list.iter() {
        if !i.fault.applies(op) || !path.starts_with(&i.dir) {
            continue;
        }
        let n = i.seen.fetch_add(1, Ordering::SeqCst) + 1;
        if i.at == 0 || n < i.at || (n > i.at && !i.persistent) {
            continue;
        }
        i.fired.fetch_add(1, Ordering::SeqCst);
        let err = match i.fault {
            Fault::NoSpace | Fault::ShortWrite => std::io::Error::from_raw_os_error(libc::ENOSPC),
            Fault::Io | Fault::Fsync => std::io::Error::from_raw_os_error(libc::EIO),
            Fault::Denied => std::io::Error::from_raw_os_error(libc::EACCES),
            Fault::NoDescriptors => std::io::Error::from_raw_os_error(libc::EMFILE),
        };
        return Some(if i.fault == Fault::ShortWrite { Injected::Short(err) } else { Injected::Fail(err) });
    }
    None
}
