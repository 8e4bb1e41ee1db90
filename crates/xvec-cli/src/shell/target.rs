//! The collection a shell session works on: a directory, the handles once opened, and how
//! it is opened (read-only or writable, mapped, how long to wait for the writer lock).
//!
//! Opening checks at once: read-only, the directory must hold a collection; writable, it
//! may also be empty or missing (`create` makes it), never a file. `.open` keeps the
//! previous collection open when the new one cannot be opened.
//!
//! A writable session does not hold the writer lock while it idles, as sqlite3 locks only
//! for a transaction: between statements it reads through a read-only handle, which
//! follows other writers. A writing statement takes the lock (waiting up to `.timeout`)
//! by reopening the collection writable from that handle, sharing its open files
//! ([`Collection::reopen_writable`]), and [`Target::release`] drops the writer after the
//! statement unless `.lock` holds it.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use xvec::{Collection, OpenOptions, Schema, StorageError};

use crate::cli::CliError;
use crate::cli::context::{self, Collections};

/// The collection a session works on.
pub struct Target {
    dir: Option<PathBuf>,
    write: bool,
    /// The read-only handle statements read through while no writer is open.
    coll: Option<Collection>,
    /// The writer, from a writing statement's start to its end, or from `.lock` to
    /// `.unlock`.
    writer: Option<Collection>,
    /// `.lock`: keep the writer between statements.
    held: bool,
    /// Map collection files (`--no-mmap` clears it for the rest of the session).
    pub mmap: bool,
    /// `--memory-budget`, for collections opened from then on.
    pub memory_budget: Option<u64>,
    /// How long taking the writer lock waits for another writer (`--wait`, `.timeout`).
    pub lock_timeout: Duration,
    /// The generation the collection had when this session opened it.
    generation_at_open: Option<u64>,
    /// Statements are typed at the prompt: a command may ask yes or no (scripts may not).
    pub asks: bool,
}

impl Target {
    /// No collection: `.open` names one later.
    pub fn none(mmap: bool, lock_timeout: Duration) -> Target {
        Target {
            dir: None,
            write: false,
            coll: None,
            writer: None,
            held: false,
            mmap,
            memory_budget: None,
            lock_timeout,
            generation_at_open: None,
            asks: false,
        }
    }

    /// Targets `dir` and opens it now, so a missing, busy or broken collection is reported
    /// at once; writable, a missing or empty directory is kept for `create`.
    pub fn open(dir: PathBuf, write: bool, mmap: bool, lock_timeout: Duration) -> Result<Target, CliError> {
        // Absolute, so that a script that runs from its own directory (`script::ScriptDir`)
        // still works on this one.
        let dir = std::path::absolute(&dir).map_err(|e| CliError::file(&dir, &e))?;
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
    /// Reopening the directory this session holds the writer lock of releases it first
    /// (the new open would wait for itself) and reopens it as it was if the new open fails.
    pub fn replace_with(&mut self, dir: PathBuf, write: bool) -> Result<(), CliError> {
        let same = self.dir.as_deref().is_some_and(|d| same_dir(d, &dir));
        if same && self.writer.is_some() {
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

    /// How the session holds the writer lock, for the banner and `.show`.
    pub fn lock_state(&self) -> &'static str {
        match (self.write, self.held, self.writer.is_some()) {
            (false, _, _) => "read-only",
            (true, true, _) => "read-write, writer lock held (.unlock releases it)",
            (true, false, true) => "read-write, writer lock held for this statement",
            (true, false, false) => "read-write, writer lock taken per writing statement",
        }
    }

    /// The handle statements use now: the writer while one is open, else the reader.
    fn active(&self) -> Option<&Collection> {
        self.writer.as_ref().or(self.coll.as_ref())
    }

    /// The open collection's schema, for completion.
    pub fn schema(&self) -> Option<std::sync::Arc<Schema>> {
        self.active().map(|c| c.schema())
    }

    /// The open collection's current snapshot, for completing keys.
    pub fn snapshot(&self) -> Option<std::sync::Arc<xvec::Snapshot>> {
        self.active().map(|c| c.snapshot())
    }

    /// The generation at open, and the state seen now (see `describe`), for `.show`.
    pub fn generations(&self) -> Option<(u64, xvec::Stats)> {
        Some((self.generation_at_open?, self.active()?.stats()))
    }

    /// Syncs and releases the handles; the target is forgotten.
    pub fn close(&mut self) -> Result<(), CliError> {
        self.dir = None;
        self.generation_at_open = None;
        self.held = false;
        let writer = self.writer.take().map(Collection::close);
        if let Some(c) = self.coll.take() {
            c.close()?;
        }
        Ok(writer.transpose().map(|_| ())?)
    }

    /// `.lock`: takes the writer lock now and keeps it across statements.
    pub fn lock(&mut self) -> Result<(), CliError> {
        let dir =
            self.dir.clone().ok_or_else(|| CliError::failed("no collection is open").hint(".open DIR --write"))?;
        if !dir.join("CURRENT").exists() {
            return Err(CliError::failed(format!("no collection in {} yet", dir.display()))
                .hint("`create` makes one (and holds the lock for that statement)"));
        }
        Collections::open(self, &dir, true)?;
        self.held = true;
        Ok(())
    }

    /// `.unlock`: lets the writer go after `.lock` (at once, the shell being idle).
    pub fn unlock(&mut self) -> Result<(), CliError> {
        self.held = false;
        self.release()
    }

    /// After a statement: closes the writer (syncing the WAL and stopping its background
    /// maintenance, which the next writer resumes) unless `.lock` holds it, so other
    /// processes can write while the shell idles. A reader is opened in its place when the
    /// statement made the collection (`create`).
    pub fn release(&mut self) -> Result<(), CliError> {
        if self.held {
            return Ok(());
        }
        let Some(writer) = self.writer.take() else { return Ok(()) };
        let closed = writer.close();
        if self.coll.is_none()
            && let Some(dir) = self.dir.clone()
        {
            self.coll = Some(self.open_reader(&dir)?);
        }
        Ok(closed?)
    }

    /// Opens the read-only handle (and records its generation).
    fn open_handle(&mut self, dir: &Path) -> Result<&Collection, CliError> {
        let coll = self.open_reader(dir)?;
        self.generation_at_open = Some(coll.stats().generation);
        Ok(self.coll.insert(coll))
    }

    fn open_reader(&self, dir: &Path) -> Result<Collection, CliError> {
        context::open_collection(dir, false, self.mmap, self.lock_timeout, self.memory_budget)
    }

    /// Takes the writer lock: the reader reopened writable, sharing its open files.
    fn open_writer(&mut self, dir: &Path) -> Result<&Collection, CliError> {
        let writer = match &self.coll {
            Some(reader) => {
                let mut options = OpenOptions::writable().mmap(self.mmap).lock_timeout(self.lock_timeout);
                options.memory_budget = self.memory_budget;
                let w = reader.reopen_writable(&options)?;
                for r in w.recovered() {
                    eprintln!("note: recovered from a crash: {r}");
                }
                w
            }
            None => context::open_collection(dir, true, self.mmap, self.lock_timeout, self.memory_budget)?,
        };
        Ok(self.writer.insert(writer))
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
    fn can_ask(&self) -> bool {
        self.asks && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }

    fn open(&mut self, dir: &Path, write: bool) -> Result<&Collection, CliError> {
        if write && !self.write {
            return Err(self.read_only_error());
        }
        if write && self.writer.is_none() {
            return self.open_writer(dir);
        }
        if self.writer.is_none() && self.coll.is_none() {
            self.open_handle(dir)?;
        }
        Ok(self.active().expect("a handle was opened"))
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
        self.generation_at_open = Some(coll.stats().generation);
        Ok(self.writer.insert(coll))
    }

    fn mmap(&self) -> bool {
        self.mmap
    }

    fn lock_timeout(&self) -> Duration {
        self.lock_timeout
    }
}
