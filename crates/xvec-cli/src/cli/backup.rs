//! `xvec backup` and `xvec restore`: the engine's online backup and restore, with Ctrl-C
//! as the cancel flag (the engine then removes `DEST.tmp`) and one summary line.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueHint};
use xvec::{BackupOptions, BackupReport, Collection, Error, StorageError};

use super::context::{Collections, Io};
use super::plural::count;
use super::{CliError, CollectionArg, interrupt};

/// Copy a live collection to DEST, consistently, while writers keep writing.
///
/// Holds every write acknowledged before the backup started, never part of a batch, and
/// verifies clean; DEST opens like any collection (or comes back with `xvec restore`).
/// Segment, delete and index files are hard-linked when DEST is on the same file system
/// (else copied): fast, but a link is the same bytes on the same disk and does not
/// survive its loss; --copy copies every file, for a backup on another medium. The
/// WAL is copied to its last whole batch, the manifest last. DEST must not exist or be
/// empty; --incremental updates an earlier backup there, copying only files it lacks
/// (same name, size and CRC32C are kept), and swaps the new backup in at once. Written
/// as DEST.tmp and renamed: an error or Ctrl-C leaves no partial backup under DEST.
///
/// Example:
///   xvec backup words /backups/words
///   xvec backup words /mnt/usb/words --copy --incremental
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct BackupArgs {
    #[command(flatten)]
    pub coll: CollectionArg,
    /// Where the backup goes: a new or empty directory, or an earlier backup with
    /// --incremental.
    #[arg(value_name = "DEST", value_hint = ValueHint::DirPath)]
    pub dest: PathBuf,
    /// Update the earlier backup in DEST: copy only the files it lacks.
    #[arg(long)]
    pub incremental: bool,
    /// Copy every file instead of hard-linking the immutable ones.
    #[arg(long)]
    pub copy: bool,
}

/// Bring a backup back into a new or empty directory, after it verifies.
///
/// Copies every file of BACKUP (never links) into DIR.tmp, runs verify on the copy and
/// renames it to DIR only when it is clean; a backup that does not verify is refused
/// (exit 3) and DIR stays as it was. DIR must not exist or be empty. A backup also opens
/// as it is: restore is for putting it back where a collection lives.
///
/// Example:
///   xvec restore /backups/words words
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RestoreArgs {
    /// The backup directory (made by `xvec backup`).
    #[arg(value_name = "BACKUP", value_hint = ValueHint::DirPath)]
    pub backup: PathBuf,
    /// The directory to restore into: new or empty.
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub target: PathBuf,
}

pub fn backup(a: &BackupArgs, colls: &mut dyn Collections, io: &mut Io) -> Result<(), CliError> {
    interrupt::install()?;
    let coll = colls.open(&a.coll.dir, false)?;
    let start = Instant::now();
    let options = BackupOptions::default().copy(a.copy).incremental(a.incremental).cancel(Some(interrupt::flag()));
    let report = coll.backup(&a.dest, &options).map_err(|e| stopped(e, &a.dest))?;
    summary(io, "backed up", &report, &a.dest, start)
}

pub fn restore(a: &RestoreArgs, io: &mut Io) -> Result<(), CliError> {
    interrupt::install()?;
    let start = Instant::now();
    let report =
        Collection::restore(&a.backup, &a.target, Some(interrupt::flag())).map_err(|e| stopped(e, &a.target))?;
    summary(io, "restored", &report, &a.target, start)
}

/// An interrupt says what it left (nothing under `dest`); an earlier backup in `dest`
/// says how to update it.
fn stopped(e: Error, dest: &Path) -> CliError {
    match e {
        Error::Cancelled => {
            interrupt::clear();
            let mut err = CliError::interrupted();
            err.message = format!("interrupted; nothing was written to {}", dest.display());
            err
        }
        Error::Storage(StorageError::AlreadyExists { .. }) => {
            CliError::from(e).hint("pass --incremental to update the earlier backup there, or pick a new directory")
        }
        other => other.into(),
    }
}

fn summary(io: &mut Io, did: &str, r: &BackupReport, dest: &Path, start: Instant) -> Result<(), CliError> {
    let mb = |b: u64| b as f64 / 1e6;
    let mut parts = Vec::new();
    if r.linked.files > 0 {
        parts.push(format!("{} linked ({:.1} MB)", count(r.linked.files, "file"), mb(r.linked.bytes)));
    }
    parts.push(format!("{} copied ({:.1} MB)", count(r.copied.files, "file"), mb(r.copied.bytes)));
    if r.reused.files > 0 {
        parts.push(format!("{} kept from the earlier backup ({:.1} MB)", r.reused.files, mb(r.reused.bytes)));
    }
    writeln!(
        io.err,
        "{did}: generation {} and {} to {} in {:.2}s: {}",
        r.generation,
        count(r.wal_records, "WAL record"),
        dest.display(),
        start.elapsed().as_secs_f64(),
        parts.join(", ")
    )?;
    Ok(())
}
