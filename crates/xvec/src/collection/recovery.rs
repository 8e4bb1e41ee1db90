//! What a writable open puts right before the first write: the files an interrupted flush,
//! optimize or repair left behind are rolled back, and a torn WAL tail is cut off after
//! being saved in `lost+found/`. `verify` lists the same leftovers as "pending rollback".
//!
//! Why removing a leftover loses nothing (`docs/format.md`, "Recovery"): every
//! acknowledged write is in the live generation's files or in its WAL. A file the live
//! manifest does not name was either written for a generation that was never published
//! (its rows came from the live generation, which still has them) or superseded by the live
//! one (whose files hold everything it held). The one kind that could hold writes of its
//! own is a WAL above the live one; the writer acknowledges nothing there until the publish
//! that names it is durable, so such a WAL is empty, and one that is not is moved to
//! `lost+found/` rather than removed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::error::StorageError;
use crate::schema::Schema;
use crate::storage::manifest::Manifest;
use crate::storage::{FileKind, disk, manifest_name, wal, wal_name};

/// The folder under a collection where recovery and repair keep what they take out.
pub const LOST_FOUND: &str = "lost+found";

/// What happens to a leftover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Disposition {
    /// It provably holds no acknowledged data: removed.
    Remove,
    /// It might: moved to `lost+found/`.
    Keep,
}

/// A file of the collection directory that the live generation does not use.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Leftover {
    pub file: String,
    pub bytes: u64,
    pub why: String,
    pub disposition: Disposition,
}

/// One thing a writable open did to recover.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovered {
    /// Name of the file acted on, in the collection directory.
    pub file: String,
    /// What was done and why, in a phrase.
    pub what: String,
    /// Where the bytes went, when they were kept.
    pub kept_in: Option<PathBuf>,
}

impl std::fmt::Display for Recovered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.what)?;
        if let Some(p) = &self.kept_in {
            write!(f, " (kept in {})", p.display())?;
        }
        Ok(())
    }
}

/// Every file of `dir` that the generation `m` does not use, nor an older version it keeps
/// (`storage/versions`), with what a writable open does with it. Files xvec never makes, and `lost+found/`, are left alone.
pub(crate) fn leftovers(dir: &Path, m: &Manifest, schema: &Schema) -> Result<Vec<Leftover>, StorageError> {
    let mut live: HashSet<String> =
        ["CURRENT".to_string(), "LOCK".to_string(), manifest_name(m.generation), wal_name(m.wal_seq)].into();
    live.extend(m.sealed_wal.map(|w| wal_name(w.seq)));
    // Older versions (kept, or past retention until a sweep) and the files they name.
    live.extend(crate::storage::versions::kept_files(dir, m)?);
    for s in &m.segments {
        live.insert(s.file.clone());
        live.extend(s.deletes.iter().map(|d| d.file.clone()));
        live.extend(s.indexes.iter().map(|i| i.file.clone()));
    }
    let mut out = Vec::new();
    for disk::DirEntry { name, is_file, len: bytes, .. } in disk::list_dir(dir)? {
        let Some(kind) = FileKind::of_name(&name) else { continue };
        if live.contains(&name) || !is_file {
            continue;
        }
        let number = name_number(&name);
        let unpublished = |what: &str| format!("{what} of an unpublished generation (an interrupted publish)");
        let superseded = |what: &str| format!("{what} superseded by generation {}", m.generation);
        let (why, disposition) = match kind {
            FileKind::Temp => ("temp file of an interrupted write".to_string(), Disposition::Remove),
            FileKind::Manifest if number > m.generation => (unpublished("manifest"), Disposition::Remove),
            FileKind::Manifest => (superseded("manifest"), Disposition::Remove),
            FileKind::Wal if number < m.wal_seq => {
                (format!("{} (its records are in the live segments)", superseded("WAL")), Disposition::Remove)
            }
            FileKind::Wal => match records_in(&dir.join(&name), schema) {
                Ok(0) => ("empty WAL of an interrupted flush".to_string(), Disposition::Remove),
                Ok(n) => {
                    let records = if n == 1 { "1 record".to_string() } else { format!("{n} records") };
                    (format!("WAL above the live one holding {records} no generation names"), Disposition::Keep)
                }
                Err(e) => (format!("WAL above the live one that does not read ({e})"), Disposition::Keep),
            },
            FileKind::Segment | FileKind::Index | FileKind::Deletes if number >= m.next_segment_id => {
                (unpublished(kind.name()), Disposition::Remove)
            }
            FileKind::Deletes => match deletes_generation(&name) {
                Some(g) if g > m.generation => (unpublished("delete file"), Disposition::Remove),
                _ => (superseded("delete file"), Disposition::Remove),
            },
            FileKind::Segment | FileKind::Index => (superseded(kind.name()), Disposition::Remove),
            FileKind::Current | FileKind::Lock | FileKind::WalSync => continue,
        };
        out.push(Leftover { file: name, bytes, why, disposition });
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(out)
}

/// Records a WAL file holds (good frames of whole batches), read with its own salt.
fn records_in(path: &Path, schema: &Schema) -> Result<usize, StorageError> {
    let bytes = disk::read(path)?;
    let s = wal::scan(path, &bytes, None, schema)?;
    Ok(s.records.len() + s.damage.len())
}

/// The first number in a file name (segment id, generation or WAL sequence).
fn name_number(name: &str) -> u64 {
    let digits: String = name.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

/// The generation in a delete file's name, `SEG-<id>-<gen>.del`.
fn deletes_generation(name: &str) -> Option<u64> {
    name.strip_suffix(".del")?.rsplit('-').next()?.parse().ok()
}

/// Rolls back every leftover of `dir` (see the module docs) and logs what it did.
pub(crate) fn roll_back(dir: &Path, m: &Manifest, schema: &Schema) -> Result<Vec<Recovered>, StorageError> {
    let mut done = Vec::new();
    let mut kept_in = None;
    for l in leftovers(dir, m, schema)? {
        let path = dir.join(&l.file);
        match l.disposition {
            Disposition::Remove => {
                disk::remove_file(&path)?;
                done.push(Recovered { file: l.file, what: format!("removed, {}", l.why), kept_in: None });
            }
            Disposition::Keep => {
                let keep = keep_dir(dir, m.generation)?;
                let to = keep.join(&l.file);
                disk::rename(&path, &to)?;
                kept_in = Some(keep);
                done.push(Recovered { file: l.file, what: format!("moved out, {}", l.why), kept_in: Some(to) });
            }
        }
    }
    if !done.is_empty() {
        // Both ends of every move: the entries left `dir` and arrived in the keep folder.
        disk::sync_dir(dir)?;
        if let Some(keep) = &kept_in {
            disk::sync_dir(keep)?;
        }
        log(dir, &done)?;
    }
    Ok(done)
}

/// Saves the torn tail of the live WAL, `bytes[at..]`, in `lost+found/` before the writer
/// cuts it off. `durable`: the WAL's sync record, which says whether the tail can hold
/// records an fsync made durable (open refuses a WAL shorter than that, so here it never
/// does).
pub(crate) fn save_torn_tail(
    dir: &Path,
    m: &Manifest,
    bytes: &[u8],
    at: u64,
    durable: Option<&wal::sync_record::Durable>,
) -> Result<Recovered, StorageError> {
    let name = wal_name(m.wal_seq);
    let to = keep_dir(dir, m.generation)?.join(format!("{name}.{at}.tail"));
    let mut f = disk::DiskFile::create(&to)?;
    f.write_all(bytes.get(at as usize..).unwrap_or_default())?;
    f.sync_all()?;
    disk::sync_dir(to.parent().unwrap_or(dir))?;
    let len = bytes.len() as u64 - at;
    let r = Recovered {
        file: name,
        what: format!(
            "cut a torn tail of {len} byte{} at offset {at} ({})",
            if len == 1 { "" } else { "s" },
            torn_tail_is(durable)
        ),
        kept_in: Some(to),
    };
    log(dir, std::slice::from_ref(&r))?;
    Ok(r)
}

/// What a torn tail can hold, as far as the WAL's sync record tells.
pub(crate) fn torn_tail_is(durable: Option<&wal::sync_record::Durable>) -> String {
    match durable {
        Some(d) => format!(
            "a write cut short after the last fsync, which made {} bytes durable: never acknowledged under the \
             EveryBatch policy; under EveryRecords or OnFlush, acknowledged writes since that fsync that a power \
             loss may take",
            d.len
        ),
        None => "a write cut short, never acknowledged if the writer stopped while writing it; if the file was cut \
                 short instead, acknowledged records went with it and cannot be counted: the WAL has no sync record"
            .into(),
    }
}

fn keep_dir(dir: &Path, generation: u64) -> Result<PathBuf, StorageError> {
    keep_folder(dir, &format!("open-{generation:06}"))
}

/// `DIR/lost+found`, checked to be a directory of the collection's own (or absent) before
/// anything is written under it: a symbolic link there is refused, never followed.
pub(crate) fn lost_found(dir: &Path) -> Result<PathBuf, StorageError> {
    let lf = dir.join(LOST_FOUND);
    disk::own_dir(&lf)?;
    Ok(lf)
}

/// Creates (durably) the folder `lost+found/<name>` that recovery or repair keeps files
/// in; neither `lost+found` nor the folder may be a symbolic link.
pub(crate) fn keep_folder(dir: &Path, name: &str) -> Result<PathBuf, StorageError> {
    let d = lost_found(dir)?.join(name);
    if !disk::own_dir(&d)? {
        disk::create_dir_durable(&d)?;
    }
    Ok(d)
}

/// Appends to `lost+found/log`, one line per action.
fn log(dir: &Path, done: &[Recovered]) -> Result<(), StorageError> {
    let lf = lost_found(dir)?;
    disk::create_dir_durable(&lf)?;
    let path = lf.join("log");
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let mut text = String::new();
    for r in done {
        text.push_str(&format!("unix-time {secs}: writable open: {r}\n"));
    }
    let mut f = disk::DiskFile::open_append(&path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    // The first entry creates the log file; its name is durable once the folder is synced.
    disk::sync_dir(&lf)
}
