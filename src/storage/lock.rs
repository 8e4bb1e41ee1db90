//! The writer lock: an exclusive OS file lock on `DIR/LOCK`, released when dropped (or
//! when the process dies, so a crashed writer never leaves a stale lock behind).

use std::fs::{File, TryLockError};
use std::path::Path;

use crate::error::StorageError;

/// Proof that this handle is the collection's only writer.
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Takes the lock without waiting; another writer yields [`StorageError::Locked`].
    pub fn acquire(dir: &Path) -> Result<WriterLock, StorageError> {
        let path = dir.join("LOCK");
        let file = super::disk::DiskFile::open_lock(&path)?.into_file();
        match file.try_lock() {
            Ok(()) => Ok(WriterLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(StorageError::Locked { path: dir.to_path_buf() }),
            Err(TryLockError::Error(e)) => Err(StorageError::io(&path, e)),
        }
    }

    /// True when some handle, in any process, holds the writer lock now.
    pub fn is_held(dir: &Path) -> Result<bool, StorageError> {
        let path = dir.join("LOCK");
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(StorageError::io(&path, e)),
        };
        match file.try_lock_shared() {
            Ok(()) => Ok(false),
            Err(TryLockError::WouldBlock) => Ok(true),
            Err(TryLockError::Error(e)) => Err(StorageError::io(&path, e)),
        }
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
}
