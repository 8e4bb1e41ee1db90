//! Reader leases: how a reader, in this or another process, holds a version against
//! `vacuum` and the removal that follows each publish.
//!
//! A lease is a file `versions/lease-<version>-<pid>-<nonce>` that its reader holds a
//! shared `flock` on for as long as it reads the version. It is made under a `.tmp` name,
//! locked, then renamed, so a lease is never seen unlocked while its reader lives. Whoever
//! removes versions lists the leases and tries an exclusive `flock` on each without
//! waiting: refused, the reader is alive and its version is kept; granted, the reader is
//! gone (the kernel drops a dead process's locks, so a crashed reader never holds a
//! version for ever) and the lease is stale, removed by a sweep. A lease is not synced:
//! after a power loss no reader is left to hold anything.
//!
//! The order that makes a lease safe: a reader takes its lease *before* it reads the
//! version's manifest; a sweep removes the manifests it drops *before* it lists the leases
//! again and removes their files (`super::sweep`). Either the reader found the manifest
//! (then its lease existed before the manifest went, the sweep's second listing sees it,
//! and the files stay), or it did not and fails with `NoSuchVersion`.

use std::fs::TryLockError;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::VERSIONS_DIR;
use crate::error::StorageError;
use crate::storage::disk::{self, DiskFile};

const PREFIX: &str = "lease-";

/// A held lease on one version; dropped, its file is removed and the lock released.
#[derive(Debug)]
pub(crate) struct Lease {
    path: PathBuf,
    /// Holds the shared lock.
    _file: DiskFile,
}

impl Lease {
    /// Takes a lease on `version` of the collection in `dir` (see the module docs).
    pub(crate) fn take(dir: &Path, version: u64) -> Result<Lease, StorageError> {
        static NONCE: AtomicU64 = AtomicU64::new(0);
        let vdir = dir.join(VERSIONS_DIR);
        disk::create_dir_all(&vdir)?;
        let nonce = NONCE.fetch_add(1, Ordering::Relaxed);
        let name = format!("{PREFIX}{version}-{}-{nonce}", std::process::id());
        let path = vdir.join(&name);
        let tmp = disk::temp_path(&path);
        let mut file = DiskFile::create(&tmp)?;
        let locked = file.file().lock_shared().map_err(|e| StorageError::io(&tmp, e));
        if let Err(e) = locked.and_then(|()| file.write_all(format!("{version}\n").as_bytes())) {
            let _ = disk::remove_file(&tmp);
            return Err(e);
        }
        disk::rename(&tmp, &path).inspect_err(|_| {
            let _ = disk::remove_file(&tmp);
        })?;
        Ok(Lease { path, _file: file })
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let _ = disk::remove_file(&self.path);
    }
}

/// The versions live readers hold, from the leases in `dir/versions/`; leases whose reader
/// is gone are removed (only a sweep asks, under the writer lock).
pub(crate) fn held(dir: &Path) -> Result<Vec<u64>, StorageError> {
    let vdir = dir.join(VERSIONS_DIR);
    let entries = match disk::list_dir(&vdir) {
        Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        other => other?,
    };
    let mut out = Vec::new();
    for e in entries.iter().filter(|e| e.is_file && e.name.starts_with(PREFIX)) {
        let version = e.name[PREFIX.len()..].split('-').next().and_then(|v| v.parse::<u64>().ok());
        let file = match DiskFile::open_read(&e.path) {
            Ok(f) => f,
            // Its reader let go since the listing.
            Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        match file.file().try_lock() {
            Ok(()) => {
                drop(file);
                // A `.tmp` lease may be one being made, not yet locked: left alone.
                if !e.name.ends_with(".tmp") {
                    let _ = disk::remove_file(&e.path);
                }
            }
            Err(TryLockError::WouldBlock) => out.extend(version.filter(|_| !e.name.ends_with(".tmp"))),
            Err(TryLockError::Error(err)) => return Err(StorageError::io(&e.path, err)),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}
