//! Online backup and restore: one consistent generation of a live collection copied into
//! another directory while its writer keeps writing ([`Collection::backup`]), and a
//! backup brought back into an empty directory once its copy verifies
//! ([`Collection::restore`]). A backup is itself a collection: a plain open reads it.
//!
//! **The race with the writer.** A writer removes the files a generation superseded right
//! after it publishes the next one, and a set-index rebuilds an index under its old name,
//! so a file the manifest a backup read names may be gone, or replaced, by the time the
//! backup reaches it. So a backup first *pins* every file of one generation and copies
//! nothing until all are pinned: each immutable file (segment, delete file, index) is
//! hard-linked into the backup (a name the writer never removes) or, when copying,
//! opened (a descriptor keeps an unlinked file readable), and the WAL files are opened.
//! Then it reads `CURRENT` again. The writer removes or replaces a file a generation
//! names only after publishing a later generation, and generations only grow, so an
//! unchanged `CURRENT` proves that every pinned file is the one the manifest named;
//! otherwise the pins are dropped and the backup starts over from the newer manifest (a
//! pin pass takes milliseconds, a publish comes every few hundred under load; after
//! 100 passes it gives up with [`Error::Busy`]). The copies are made after,
//! from the pinned descriptors.
//!
//! **The WAL** is read after the pin (so after the backup started) and copied up to the
//! end of its last whole batch, with a `WAL.sync` that records exactly that length: every
//! write acknowledged before the backup started is there (under every sync policy an
//! acknowledged batch is in the WAL file before the call returns), and no batch is cut.
//! A sealed WAL (a flush in progress) is copied whole. The manifest and `CURRENT` come
//! last, published in the backup as in a collection.
//!
//! **No partial backup under the final name.** Everything is written into `DEST.tmp` and
//! synced; a rename makes it `DEST` (an incremental backup swaps the two directories in
//! one `renameat2(RENAME_EXCHANGE)`, then removes the earlier backup). An error or a
//! cancel removes `DEST.tmp`; a killed backup leaves it, and the next backup to `DEST`
//! removes it when it holds only files xvec makes.
//!
//! Every file operation goes through `storage/disk.rs`, the fault seam.

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::collection::Collection;
use crate::error::{Error, StorageError};
use crate::storage::disk::{self, DiskFile};
use crate::storage::manifest::{self, Manifest};
use crate::storage::wal::{self, sync_record};
use crate::storage::{FileKind, wal_name};

/// Passes at pinning one generation before a backup gives up on a writer that publishes
/// faster than files can be linked or opened.
pub(crate) const MAX_ATTEMPTS: u32 = 100;

/// Bytes read and written at once when copying.
const CHUNK: usize = 1 << 20;

/// How a backup is taken.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct BackupOptions<'a> {
    /// Copy every file. Without it the immutable files are hard-linked when the backup is
    /// on the collection's file system (and copied when not): fast and small, but a link
    /// is the same bytes on the same medium, so it does not survive the loss of that medium.
    pub copy: bool,
    /// `dest` may hold an earlier backup: files it holds with the same name, size and
    /// CRC32C as the collection's are linked from it instead of copied again, and the new
    /// backup replaces it in one step.
    pub incremental: bool,
    /// Checked between files and between chunks of a copy: set, the backup stops with
    /// [`Error::Cancelled`] and leaves nothing under `dest`'s name.
    pub cancel: Option<&'a AtomicBool>,
}

impl<'a> BackupOptions<'a> {
    /// Sets [`BackupOptions::copy`].
    pub fn copy(mut self, copy: bool) -> Self {
        self.copy = copy;
        self
    }

    /// Sets [`BackupOptions::incremental`].
    pub fn incremental(mut self, incremental: bool) -> Self {
        self.incremental = incremental;
        self
    }

    /// Sets [`BackupOptions::cancel`].
    pub fn cancel(mut self, cancel: Option<&'a AtomicBool>) -> Self {
        self.cancel = cancel;
        self
    }
}

/// Files and their bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileCount {
    /// How many files.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
}

impl FileCount {
    fn add(&mut self, bytes: u64) {
        self.files += 1;
        self.bytes += bytes;
    }
}

/// What a backup or restore did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackupReport {
    /// The generation copied.
    pub generation: u64,
    /// Records of the live WAL copied (whole batches), on top of that generation.
    pub wal_records: u64,
    /// Immutable files hard-linked from the collection.
    pub linked: FileCount,
    /// Files copied: immutable files not linked, the WAL files, `WAL.sync`.
    pub copied: FileCount,
    /// Immutable files an incremental backup kept from the earlier one.
    pub reused: FileCount,
    /// Passes it took to pin one generation (more than 1 when the writer published meanwhile).
    pub attempts: u32,
}

impl Collection {
    /// Backs the collection up into `dest`, a directory that must not exist or be empty
    /// (or, with [`BackupOptions::incremental`], hold an earlier backup), while writers
    /// in this or other processes keep writing. The backup is the newest generation
    /// published when it starts, or a later one, with the WAL records written since in
    /// whole batches: every write acknowledged before the call is in it. `dest` holds the
    /// whole backup or nothing new; see the module docs for how.
    ///
    /// ```
    /// use xvec::{BackupOptions, Collection, Doc, Field, Metric, OpenOptions, Schema, VectorType};
    /// let dir = tempfile::tempdir()?;
    /// let schema = Schema::builder("b").field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2)).build()?;
    /// let coll = Collection::create(dir.path().join("live"), schema, Default::default())?;
    /// coll.insert(vec![Doc::new("a").set("emb", vec![1.0f32, 0.0])])?;
    /// coll.flush()?;
    /// coll.insert(vec![Doc::new("b").set("emb", vec![0.0f32, 1.0])])?;
    /// let report = coll.backup(dir.path().join("backup"), &BackupOptions::default())?;
    /// assert_eq!(report.wal_records, 1);
    /// let copy = Collection::open(dir.path().join("backup"), &OpenOptions::read_only())?;
    /// assert_eq!(copy.count(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn backup(&self, dest: impl AsRef<Path>, options: &BackupOptions<'_>) -> Result<BackupReport, Error> {
        run(self.dir(), dest.as_ref(), options, None)
    }

    /// Restores the backup in `backup` into `dir`, which must not exist or be empty: every
    /// file is copied into `dir.tmp`, the copy is verified (a problem fails with
    /// [`StorageError::BackupDamaged`] and nothing is published), then renamed to `dir`.
    /// `cancel` stops it as [`BackupOptions::cancel`] does.
    pub fn restore(
        backup: impl AsRef<Path>,
        dir: impl AsRef<Path>,
        cancel: Option<&AtomicBool>,
    ) -> Result<BackupReport, Error> {
        let backup = backup.as_ref();
        disk::check_dir(backup, true)?;
        manifest::read_current(backup)?;
        let check = |tmp: &Path| -> Result<(), Error> {
            let report = crate::verify::run(tmp, &crate::verify::VerifyOptions::default())?;
            match report.findings.iter().find(|f| f.severity.is_problem()) {
                None => Ok(()),
                Some(f) => Err(StorageError::BackupDamaged {
                    path: backup.to_path_buf(),
                    problems: report.problems(),
                    first: format!("{}: {}", f.file, f.what),
                }
                .into()),
            }
        };
        let options = BackupOptions { copy: true, incremental: false, cancel };
        run(backup, dir.as_ref(), &options, Some(&check))
    }
}

/// A check of the finished copy before it is published (restore's verify).
type Check<'a> = &'a dyn Fn(&Path) -> Result<(), Error>;

fn run(src: &Path, dest: &Path, options: &BackupOptions<'_>, check: Option<Check<'_>>) -> Result<BackupReport, Error> {
    let earlier = destination(src, dest, options.incremental)?;
    let tmp = disk::temp_path(dest);
    clear_stale(&tmp)?;
    disk::create_dir_durable(&tmp)?;
    let out = fill(src, &tmp, earlier.as_deref(), options).and_then(|report| {
        if let Some(check) = check {
            check(&tmp)?;
        }
        cancelled(options)?;
        publish(&tmp, dest, earlier.is_some())?;
        Ok(report)
    });
    if out.is_err() {
        let _ = remove_tree(&tmp);
    }
    out
}

/// What `dest` holds: nothing (missing or an empty directory) or, for an incremental
/// backup, an earlier backup; anything else is refused before anything is written.
fn destination(src: &Path, dest: &Path, incremental: bool) -> Result<Option<PathBuf>, StorageError> {
    let meta = match disk::symlink_metadata(dest) {
        Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        other => other?,
    };
    if !meta.is_dir() {
        return Err(StorageError::NotADirectory { path: dest.to_path_buf() });
    }
    let mut names: Vec<String> = disk::list_dir(dest)?.into_iter().map(|e| e.name).collect();
    if names.is_empty() {
        return Ok(None);
    }
    if !names.iter().any(|n| n == "CURRENT") {
        names.sort();
        return Err(StorageError::NotEmpty { path: dest.to_path_buf(), files: names });
    }
    if !incremental {
        return Err(StorageError::AlreadyExists { path: dest.to_path_buf() });
    }
    let id = |m: &std::fs::Metadata| {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    };
    if id(&disk::metadata(src)?) == id(&meta) {
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "is the collection itself, not a backup of it");
        return Err(StorageError::io(dest, e));
    }
    Ok(Some(dest.to_path_buf()))
}

/// Removes a temp directory a killed backup left, when it holds only files xvec makes;
/// anything else there is refused by name.
fn clear_stale(tmp: &Path) -> Result<(), StorageError> {
    match disk::symlink_metadata(tmp) {
        Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Ok(m) if !m.is_dir() => return Err(StorageError::NotADirectory { path: tmp.to_path_buf() }),
        other => other?,
    };
    let entries = disk::list_dir(tmp)?;
    let mut foreign: Vec<String> =
        entries.iter().filter(|e| !e.is_file || FileKind::of_name(&e.name).is_none()).map(|e| e.name.clone()).collect();
    if !foreign.is_empty() {
        foreign.sort();
        return Err(StorageError::NotEmpty { path: tmp.to_path_buf(), files: foreign });
    }
    remove_tree(tmp)
}

/// Removes `dir` and everything in it (a backup's own directories only); nothing there
/// is fine.
fn remove_tree(dir: &Path) -> Result<(), StorageError> {
    let entries = match disk::list_dir(dir) {
        Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        other => other?,
    };
    for e in entries {
        if e.is_dir { remove_tree(&e.path)? } else { disk::remove_file(&e.path)? }
    }
    disk::remove_dir(dir)
}

fn cancelled(options: &BackupOptions<'_>) -> Result<(), Error> {
    match options.cancel {
        Some(flag) if flag.load(Ordering::Relaxed) => Err(Error::Cancelled),
        _ => Ok(()),
    }
}

fn not_found(e: &StorageError) -> bool {
    matches!(e, StorageError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
}

/// A link that cannot be made here, as opposed to one that failed: another file system,
/// or one without hard links.
fn cannot_link(e: &StorageError) -> bool {
    let codes = [libc::EXDEV, libc::EPERM, libc::EMLINK, libc::ENOTSUP, libc::ENOSYS];
    matches!(e, StorageError::Io { source, .. } if source.raw_os_error().is_some_and(|c| codes.contains(&c)))
}

/// How one immutable file is held until it is copied.
enum Pin {
    /// Hard-linked into the backup already, with its length.
    Linked(u64),
    /// Open, to be copied.
    Open(DiskFile),
}

/// One generation's files, pinned.
struct Pinned {
    manifest: Manifest,
    /// Immutable files: name, the size the manifest gives, the pin.
    files: Vec<(String, u64, Pin)>,
    wal: DiskFile,
    sealed: Option<DiskFile>,
}

/// Pins one generation (retrying while the writer moves on), then copies it into `tmp`.
fn fill(src: &Path, tmp: &Path, earlier: Option<&Path>, options: &BackupOptions<'_>) -> Result<BackupReport, Error> {
    let mut link = !options.copy;
    for attempt in 1..=MAX_ATTEMPTS {
        cancelled(options)?;
        let name = manifest::read_current(src)?;
        let mpath = src.join(&name);
        let read = disk::read(&mpath).and_then(|bytes| Manifest::decode(&mpath, &bytes));
        #[cfg(test)]
        tests::AFTER_MANIFEST.with(|hook| hook.borrow_mut().as_mut().map(|f| f(attempt)));
        let pinned = read.and_then(|m| pin(src, tmp, m, &mut link));
        let moved = || manifest::read_current(src).map(|now| now != name);
        match pinned {
            Ok(p) if !moved()? => return copy_pinned(src, tmp, earlier, p, attempt, options),
            Ok(_) => {}
            Err(e) if not_found(&e) && moved()? => {}
            Err(e) => return Err(e.into()),
        }
        // The generation was superseded while it was pinned: let go and take the newer one.
        for e in disk::list_dir(tmp)? {
            disk::remove_file(&e.path)?;
        }
        std::thread::sleep(std::time::Duration::from_millis(u64::from(attempt.min(20))));
    }
    Err(Error::Busy(format!(
        "the writer published a new generation during each of {MAX_ATTEMPTS} attempts to pin one; nothing was backed up"
    )))
}

/// Links (or opens) every file `m` names; a file gone means the writer moved on.
fn pin(src: &Path, tmp: &Path, m: Manifest, link: &mut bool) -> Result<Pinned, StorageError> {
    let mut names = Vec::new();
    for s in &m.segments {
        names.push((s.file.clone(), s.size));
        names.extend(s.deletes.iter().map(|d| (d.file.clone(), d.size)));
        names.extend(s.indexes.iter().map(|i| (i.file.clone(), i.size)));
    }
    let mut files = Vec::with_capacity(names.len());
    for (name, size) in names {
        let from = src.join(&name);
        if *link {
            let to = tmp.join(&name);
            match disk::hard_link(&from, &to) {
                Ok(()) => {
                    // A link in the file's place was linked itself, not followed: refuse it.
                    let meta = disk::symlink_metadata(&to)?;
                    if !meta.is_file() {
                        return Err(disk::not_regular(&from).unwrap_or_else(|| StorageError::io(&from, not_a_file())));
                    }
                    files.push((name, size, Pin::Linked(meta.len())));
                    continue;
                }
                Err(e) if cannot_link(&e) => *link = false,
                Err(e) => return Err(e),
            }
        }
        files.push((name, size, Pin::Open(DiskFile::open_read(&from)?)));
    }
    let wal = DiskFile::open_read(&src.join(wal_name(m.wal_seq)))?;
    let sealed = m.sealed_wal.map(|s| DiskFile::open_read(&src.join(wal_name(s.seq)))).transpose()?;
    Ok(Pinned { manifest: m, files, wal, sealed })
}

fn not_a_file() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file")
}

/// Copies what was pinned into `tmp` and publishes its manifest there.
fn copy_pinned(
    src: &Path,
    tmp: &Path,
    earlier: Option<&Path>,
    p: Pinned,
    attempts: u32,
    options: &BackupOptions<'_>,
) -> Result<BackupReport, Error> {
    let m = p.manifest;
    let mut report = BackupReport { generation: m.generation, attempts, ..Default::default() };
    for (name, size, pin) in p.files {
        cancelled(options)?;
        let from = src.join(&name);
        let len = match &pin {
            Pin::Linked(len) => *len,
            Pin::Open(f) => f.len()?,
        };
        if len != size {
            let what = format!("the manifest says it holds {size} bytes; it holds {len}");
            return Err(StorageError::corrupted(&from, len.min(size), what).into());
        }
        let f = match pin {
            Pin::Linked(_) => {
                report.linked.add(size);
                continue;
            }
            Pin::Open(f) => f,
        };
        if let Some(earlier) = earlier
            && same_bytes(&earlier.join(&name), &f, size, options)?
        {
            match disk::hard_link(&earlier.join(&name), &tmp.join(&name)) {
                Ok(()) => {
                    report.reused.add(size);
                    continue;
                }
                Err(e) if cannot_link(&e) => {}
                Err(e) => return Err(e.into()),
            }
        }
        copy(&f, &tmp.join(&name), size, options)?;
        report.copied.add(size);
    }
    if let (Some(f), Some(s)) = (&p.sealed, &m.sealed_wal) {
        let len = f.len()?;
        copy(f, &tmp.join(wal_name(s.seq)), len, options)?;
        report.copied.add(len);
    }
    copy_wal(src, tmp, &m, p.wal, &mut report)?;
    cancelled(options)?;
    m.publish(tmp).map_err(StorageError::from)?;
    Ok(report)
}

/// Copies the live WAL up to the end of its last whole batch, and a `WAL.sync` that says so.
fn copy_wal(src: &Path, tmp: &Path, m: &Manifest, mut f: DiskFile, report: &mut BackupReport) -> Result<(), Error> {
    let name = wal_name(m.wal_seq);
    let path = src.join(&name);
    let len = f.len()?;
    let bytes = f.read_at_most(0, len)?;
    if wal::is_empty_v1(&bytes) {
        write_new(&tmp.join(&name), &bytes)?;
        report.copied.add(bytes.len() as u64);
        return Ok(());
    }
    let schema = m.schema(&src.join(crate::storage::manifest_name(m.generation)))?;
    let scan = wal::scan(&path, &bytes, Some((m.wal_seq, m.wal_salt)), &schema)?;
    if let Some(e) = scan.damage_error(&path) {
        return Err(e.into());
    }
    let end = scan.valid_len;
    report.wal_records = scan.records.len() as u64;
    write_new(&tmp.join(&name), &bytes[..end as usize])?;
    report.copied.add(end);
    let record = sync_record::encode_file(scan.seq, scan.salt, end, scan.next_lsn - 1, report.wal_records);
    write_new(&tmp.join(sync_record::SYNC_NAME), &record)?;
    report.copied.add(record.len() as u64);
    Ok(())
}

fn write_new(path: &Path, bytes: &[u8]) -> Result<(), StorageError> {
    let mut f = DiskFile::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Copies `len` bytes of `from` into a new file `to`, synced.
fn copy(from: &DiskFile, to: &Path, len: u64, options: &BackupOptions<'_>) -> Result<(), Error> {
    let mut out = DiskFile::create_large(to)?;
    let mut buf = vec![0u8; CHUNK.min(len as usize)];
    let mut at = 0;
    while at < len {
        cancelled(options)?;
        let want = buf.len().min((len - at) as usize);
        let n = from.read_at(at, &mut buf[..want])?;
        if n == 0 {
            return Err(
                StorageError::corrupted(from.path(), at, format!("file ends at {at}; expected {len} bytes")).into()
            );
        }
        out.write_all(&buf[..n])?;
        at += n as u64;
    }
    out.sync_all()?;
    Ok(())
}

/// Whether the earlier backup's file at `path` has the same size and CRC32C as `f`.
fn same_bytes(path: &Path, f: &DiskFile, size: u64, options: &BackupOptions<'_>) -> Result<bool, Error> {
    let theirs = match DiskFile::open_read(path) {
        Ok(t) => t,
        Err(e) if not_found(&e) => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    if theirs.len()? != size {
        return Ok(false);
    }
    Ok(crc(&theirs, size, options)? == crc(f, size, options)?)
}

fn crc(f: &DiskFile, len: u64, options: &BackupOptions<'_>) -> Result<u32, Error> {
    let mut buf = vec![0u8; CHUNK.min(len as usize)];
    let (mut at, mut crc) = (0, 0);
    while at < len {
        cancelled(options)?;
        let want = buf.len().min((len - at) as usize);
        let n = f.read_at(at, &mut buf[..want])?;
        if n == 0 {
            break;
        }
        crc = crc32c::crc32c_append(crc, &buf[..n]);
        at += n as u64;
    }
    Ok(crc)
}

/// Puts the finished backup in `tmp` under `dest`'s name: a rename, or for an incremental
/// backup a swap with the earlier one, which is then removed.
fn publish(tmp: &Path, dest: &Path, replace: bool) -> Result<(), StorageError> {
    let parent = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !replace {
        disk::rename(tmp, dest)?;
        return disk::sync_dir(parent);
    }
    match disk::exchange(tmp, dest) {
        Ok(()) => {}
        Err(StorageError::Io { source, .. })
            if source.raw_os_error().is_some_and(|c| [libc::EINVAL, libc::ENOSYS, libc::ENOTSUP].contains(&c)) =>
        {
            // No atomic swap here: move the earlier backup aside first, so `dest` is never
            // a mix of the two (for a moment it is missing).
            let old = disk::temp_path(tmp);
            clear_stale(&old)?;
            disk::rename(dest, &old)?;
            if let Err(e) = disk::rename(tmp, dest) {
                let _ = disk::rename(&old, dest);
                return Err(e);
            }
            disk::rename(&old, tmp)?;
        }
        Err(e) => return Err(e),
    }
    disk::sync_dir(parent)?;
    remove_tree(tmp)
}
