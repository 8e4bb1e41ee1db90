//! The collection a shell session works on: a directory, the handle once opened, and how
//! it is opened (read-only or writable, mapped, how long to wait for the writer lock).
//!
//! Opening checks at once: read-only, the directory must hold a collection; writable, it
//! may also be empty or missing (`create` makes it), never a file. `.open` keeps the
//! previous collection open when the new one cannot be opened.

use std::path::{Path, PathBuf};
use std::time::Duration;

use xvec::{Collection, Schema, StorageError};

use crate::cli::CliError;
use crate::cli::context::{self, Collections};

/// The collection a session works on.
pub struct Target {
    dir: Option<PathBuf>,
    write: bool,
    coll: Option<Collection>,
    /// Map collection files (`--no-mmap` clears it for the rest of the session).
    pub mmap: bool,
    /// `--memory-budget`, for collections opened from then on.
    pub memory_budget: Option<u64>,
    /// How long taking the writer lock waits for another writer (`--wait`, `.timeout`).
    pub lock_timeout: Duration,
    /// The generation the collection had when this session opened it.
    generation_at_open: Option<u64>,
}

impl Target {
    /// No collection: `.open` names one later.
    pub fn none(mmap: bool, lock_timeout: Duration) -> Target {
        Target {
            dir: None,
            write: false,
            coll: None,
            mmap,
            memory_budget: None,
            lock_timeout,
            generation_at_open: None,
        }
    }

    /// Targets `dir` and opens it now, so a missing, busy or broken collection is reported
    /// at once; writable, a missing or empty directory is kept for `create`.
    pub fn open(dir: PathBuf, write: bool, mmap: bool, lock_timeout: Duration) -> Result<Target, CliError> {
        let mut t = Target { dir: Some(dir.clone()), write, ..Target::none(mmap, lock_timeout) };
        if write && !dir.join("CURRENT").exists() {
            return match std::fs::metadata(&dir) {
                Ok(m) if !m.is_dir() => {
                    Err(not_openable(xvec::Error::from(StorageError::NotADirectory { path: dir }).into(), &t))
                }
                _ => Ok(t),
            };
        }
        match t.open_handle(&dir) {
            Ok(_) => Ok(t),
            Err(e) => Err(not_openable(e, &t)),
        }
    }

    /// `.open`: `next` replaces `self` only once it opened; a failure leaves `self` open.
    /// Reopening the directory this session writes to releases its lock first (the new
    /// open would wait for itself) and reopens it as it was if the new open fails.
    pub fn replace_with(&mut self, dir: PathBuf, write: bool) -> Result<(), CliError> {
        let same = self.dir.as_deref().is_some_and(|d| same_dir(d, &dir));
        if same && self.write && self.coll.is_some() {
            let (old_dir, old_write) = (self.dir.clone().unwrap_or_default(), self.write);
            self.close()?;
            return match Target::open(dir, write, self.mmap, self.lock_timeout) {
                Ok(t) => {
                    *self = t;
                    Ok(())
                }
                Err(e) => {
                    *self = Target::open(old_dir, old_write, self.mmap, self.lock_timeout)?;
                    Err(e)
                }
            };
        }
        let next = Target::open(dir, write, self.mmap, self.lock_timeout)?;
        let mut old = std::mem::replace(self, next);
        old.close()
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    pub fn is_writable(&self) -> bool {
        self.write
    }

    /// The open collection's schema, for completion.
    pub fn schema(&self) -> Option<std::sync::Arc<Schema>> {
        self.coll.as_ref().map(|c| c.schema())
    }

    /// The open collection's current snapshot, for completing keys.
    pub fn snapshot(&self) -> Option<std::sync::Arc<xvec::Snapshot>> {
        self.coll.as_ref().map(|c| c.snapshot())
    }

    /// The generation at open, and the state seen now (see `describe`), for `.show`.
    pub fn generations(&self) -> Option<(u64, xvec::Stats)> {
        Some((self.generation_at_open?, self.coll.as_ref()?.stats()))
    }

    /// Syncs and releases the handle; the target is forgotten.
    pub fn close(&mut self) -> Result<(), CliError> {
        self.dir = None;
        self.generation_at_open = None;
        match self.coll.take() {
            Some(c) => Ok(c.close()?),
            None => Ok(()),
        }
    }

    fn open_handle(&mut self, dir: &Path) -> Result<&Collection, CliError> {
        let coll = context::open_collection(dir, self.write, self.mmap, self.lock_timeout, self.memory_budget)?;
        Ok(self.opened(coll))
    }

    fn opened(&mut self, coll: Collection) -> &Collection {
        self.generation_at_open = Some(coll.stats().generation);
        self.coll.insert(coll)
    }

    fn read_only_error(&self) -> CliError {
        let dir = self.dir.as_deref().map_or("DIR".into(), |d| d.display().to_string());
        CliError::failed("the shell opened the collection read-only").hint(format!(".open {dir} --write"))
    }
}

/// An open that failed, with the hint the shell gives: in a read-only shell a directory
/// without a collection needs `--write` before `create` can make one.
fn not_openable(e: CliError, t: &Target) -> CliError {
    let Some(dir) = t.dir.as_deref() else { return e };
    let is_file = std::fs::metadata(dir).is_ok_and(|m| !m.is_dir());
    if t.write || is_file || dir.join("CURRENT").exists() {
        return e;
    }
    let dir = dir.display();
    e.hint(format!("`.open {dir} --write` (or `xvec shell {dir} --write`), then `create` makes one"))
}

/// Whether two paths name the same directory (the same path when they do not resolve).
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

impl Collections for Target {
    fn open(&mut self, dir: &Path, write: bool) -> Result<&Collection, CliError> {
        if write && !self.write {
            return Err(self.read_only_error());
        }
        match self.coll {
            Some(ref c) => Ok(c),
            None => self.open_handle(dir),
        }
    }

    fn create(
        &mut self,
        dir: &Path,
        schema: Schema,
        options: xvec::CollectionOptions,
    ) -> Result<&Collection, CliError> {
        if !self.write {
            return Err(self.read_only_error());
        }
        let coll = context::create_collection(dir, schema, options, self.mmap, self.lock_timeout)?;
        Ok(self.opened(coll))
    }

    fn mmap(&self) -> bool {
        self.mmap
    }

    fn lock_timeout(&self) -> Duration {
        self.lock_timeout
    }
}
