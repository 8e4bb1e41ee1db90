//! Every file operation of the engine, in one place: the seam where the crash and I/O-error
//! tests inject faults ([`super::faults`]). Nothing else in the engine calls `std::fs`
//! for collection files, but for verify's and inspect's read-only directory listings
//! (`verify/exam`, `inspect.rs`); errors come back as [`StorageError::Io`] naming the path.

use std::fs::{File, FileType, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::faults::{self, Injected, Op};
use crate::error::StorageError;

pub(super) fn gate(op: Op, path: &Path) -> Result<(), StorageError> {
    match faults::check(op, path) {
        None => Ok(()),
        Some(Injected::Fail(e) | Injected::Short(e)) => Err(StorageError::io(path, e)),
    }
}

/// Bytes a large file being written may hold unsynced (see [`DiskFile::create_large`]).
const SYNC_EVERY: u64 = 8 << 20;

/// An open file that remembers its path for errors and fault injection.
#[derive(Debug)]
pub(crate) struct DiskFile {
    file: File,
    path: PathBuf,
    /// Sync every this many bytes written (0: only when asked).
    sync_every: u64,
    unsynced: u64,
}

/// What a file that is not a regular one is, in a word for errors.
fn type_name(t: FileType) -> &'static str {
    if t.is_file() {
        "regular file"
    } else if t.is_dir() {
        "directory"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_symlink() {
        "symbolic link"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_char_device() {
        "character device"
    } else {
        "special file"
    }
}

/// The error for `path` when something other than a regular file is there, judged without
/// following a symbolic link; `None` for a regular file or nothing at all.
pub(crate) fn not_regular(path: &Path) -> Option<StorageError> {
    let t = std::fs::symlink_metadata(path).ok()?.file_type();
    (!t.is_file()).then(|| StorageError::NotRegular { path: path.to_path_buf(), what: type_name(t) })
}

impl DiskFile {
    /// Opens only a regular file inside the directory named: `O_NOFOLLOW` refuses a
    /// symbolic link in the file's place (a write through it would land outside the
    /// collection), `O_NONBLOCK` keeps a FIFO from blocking the open forever, and `fstat`
    /// then refuses anything not a regular file. `O_NONBLOCK` stays set: it changes nothing
    /// for a regular file, whose reads and writes never block in the FIFO sense (open(2)).
    fn open_with(path: &Path, op: Op, options: &OpenOptions) -> Result<DiskFile, StorageError> {
        DiskFile::open_flags(path, op, options, 0)
    }

    /// [`DiskFile::open_with`], with `flags` added to the open's own.
    fn open_flags(path: &Path, op: Op, options: &OpenOptions, flags: i32) -> Result<DiskFile, StorageError> {
        gate(op, path)?;
        let file = options
            .clone()
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | flags)
            .open(path)
            .map_err(|e| not_regular(path).unwrap_or_else(|| StorageError::io(path, e)))?;
        let t = file.metadata().map_err(|e| StorageError::io(path, e))?.file_type();
        if !t.is_file() {
            return Err(StorageError::NotRegular { path: path.to_path_buf(), what: type_name(t) });
        }
        Ok(DiskFile { file, path: path.to_path_buf(), sync_every: 0, unsynced: 0 })
    }

    /// Creates `path`, truncating a file already there.
    pub(crate) fn create(path: &Path) -> Result<DiskFile, StorageError> {
        DiskFile::open_with(path, Op::Create, OpenOptions::new().write(true).create(true).truncate(true))
    }

    /// Creates a file that will be large (a segment, an index), synced every 8 MiB as it
    /// is written. On ext4 an fsync waits for the dirty data of other files in the same
    /// journal commit, so a writer's small WAL fsync would otherwise wait for all of a
    /// flush's segment at once (RocksDB's `bytes_per_sync` is the same remedy).
    pub(crate) fn create_large(path: &Path) -> Result<DiskFile, StorageError> {
        Ok(DiskFile { sync_every: SYNC_EVERY, ..DiskFile::create(path)? })
    }

    /// Opens an existing file for writing.
    pub(crate) fn open_write(path: &Path) -> Result<DiskFile, StorageError> {
        DiskFile::open_with(path, Op::Open, OpenOptions::new().write(true))
    }

    /// Opens (creating it if missing) a file that is only locked, never written; readable
    /// and writable, as record locks of both kinds need.
    pub(crate) fn open_lock(path: &Path) -> Result<DiskFile, StorageError> {
        DiskFile::open_with(path, Op::Open, OpenOptions::new().read(true).write(true).create(true).truncate(false))
    }

    /// Opens (creating it if missing) a file that is only appended to.
    pub(crate) fn open_append(path: &Path) -> Result<DiskFile, StorageError> {
        DiskFile::open_with(path, Op::Create, OpenOptions::new().append(true).create(true))
    }

    pub(crate) fn open_read(path: &Path) -> Result<DiskFile, StorageError> {
        DiskFile::open_with(path, Op::Open, OpenOptions::new().read(true))
    }

    /// Opens a file read at random offsets (a disk index's node blocks) and tells the
    /// kernel so (`POSIX_FADV_RANDOM`): no read-ahead on this descriptor, so a 4 KiB
    /// `pread` brings 4 KiB into the page cache, which counts against a memory cgroup,
    /// rather than what the device's read-ahead (8 MiB here) and the kernel's context
    /// read-ahead would add around it. A hint: a kernel that refuses it reads as before.
    pub(crate) fn open_random(path: &Path) -> Result<DiskFile, StorageError> {
        use std::os::fd::AsRawFd;
        let f = DiskFile::open_read(path)?;
        // SAFETY: a plain syscall on an open descriptor; a hint, its result unused.
        let _ = unsafe { libc::posix_fadvise(f.file.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM) };
        Ok(f)
    }

    /// Opens a file whose node blocks are read past the page cache (`O_DIRECT`): under a
    /// memory budget the blocks a search reads must not pile up in the page cache, which
    /// a memory cgroup charges to the process and then reclaims on every read (DiskANN
    /// and zvec read the same way). Reads go to page-aligned buffers at page-aligned
    /// offsets ([`super::block_reads`]). A file system without direct I/O (tmpfs) refuses
    /// the flag; the file is then read through the page cache as [`DiskFile::open_random`]
    /// does.
    pub(crate) fn open_direct(path: &Path) -> Result<DiskFile, StorageError> {
        match DiskFile::open_flags(path, Op::Open, OpenOptions::new().read(true), libc::O_DIRECT) {
            Err(StorageError::Io { source, .. }) if source.raw_os_error() == Some(libc::EINVAL) => {
                DiskFile::open_random(path)
            }
            other => other,
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    pub(crate) fn len(&self) -> Result<u64, StorageError> {
        self.file.metadata().map(|m| m.len()).map_err(|e| StorageError::io(&self.path, e))
    }

    /// Writes all of `buf` at the current position.
    pub(crate) fn write_all(&mut self, buf: &[u8]) -> Result<(), StorageError> {
        Write::write_all(self, buf).map_err(|e| StorageError::io(&self.path, e))
    }

    /// Reads exactly `buf.len()` bytes at the current position.
    pub(crate) fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), StorageError> {
        gate(Op::Read, &self.path)?;
        self.file.read_exact(buf).map_err(|e| StorageError::io(&self.path, e))
    }

    /// Reads at most `max` bytes at `offset`, fewer where the file ends first: a file
    /// another process appends to or cuts back may end anywhere by the time it is read.
    /// Moves the position.
    pub(crate) fn read_at_most(&mut self, offset: u64, max: u64) -> Result<Vec<u8>, StorageError> {
        gate(Op::Read, &self.path)?;
        let io = |e| StorageError::io(&self.path, e);
        let mut buf = Vec::new();
        // `max` is bounded by the caller (by the file's length), not by this allocation.
        let want = usize::try_from(max).unwrap_or(usize::MAX);
        buf.try_reserve_exact(want).map_err(|e| io(std::io::Error::new(std::io::ErrorKind::OutOfMemory, e)))?;
        self.file.seek(SeekFrom::Start(offset)).map_err(io)?;
        (&self.file).take(max).read_to_end(&mut buf).map_err(io)?;
        Ok(buf)
    }

    /// Reads up to `buf.len()` bytes at `offset` without moving the position; 0 at the end.
    pub(crate) fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, StorageError> {
        gate(Op::Read, &self.path)?;
        std::os::unix::fs::FileExt::read_at(&self.file, buf, offset).map_err(|e| StorageError::io(&self.path, e))
    }

    /// Reads exactly `buf.len()` bytes at `offset` without moving the position (several
    /// threads may read one file at once); the file ending first is an error.
    pub(crate) fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), StorageError> {
        use std::os::unix::fs::FileExt;
        gate(Op::Read, &self.path)?;
        self.file.read_exact_at(buf, offset).map_err(|e| StorageError::io(&self.path, e))
    }

    /// Makes the file's data durable (`fdatasync`).
    pub(crate) fn sync_data(&self) -> Result<(), StorageError> {
        gate(Op::Sync, &self.path)?;
        self.file.sync_data().map_err(|e| StorageError::io(&self.path, e))
    }

    /// Makes the file's data and metadata durable (`fsync`).
    pub(crate) fn sync_all(&self) -> Result<(), StorageError> {
        gate(Op::Sync, &self.path)?;
        self.file.sync_all().map_err(|e| StorageError::io(&self.path, e))
    }

    /// Tells the kernel that the cached pages of `offset..offset + len` will not be read
    /// again (`POSIX_FADV_DONTNEED`), so it frees the clean ones now: a hint that cannot
    /// fail a caller, a kernel that refuses it keeps them. Only whole pages inside the
    /// range go.
    pub(crate) fn drop_cached(&self, offset: u64, len: u64) {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len)) else { return };
        // SAFETY: a plain syscall on an open descriptor; a hint, its result unused.
        let _ = unsafe { libc::posix_fadvise(self.file.as_raw_fd(), offset, len, libc::POSIX_FADV_DONTNEED) };
    }

    pub(crate) fn set_len(&self, len: u64) -> Result<(), StorageError> {
        gate(Op::SetLen, &self.path)?;
        self.file.set_len(len).map_err(|e| StorageError::io(&self.path, e))
    }

    pub(crate) fn seek(&mut self, to: u64) -> Result<(), StorageError> {
        self.file.seek(SeekFrom::Start(to)).map(drop).map_err(|e| StorageError::io(&self.path, e))
    }

    pub(crate) fn into_file(self) -> File {
        self.file
    }
}

impl Write for DiskFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = match faults::check(Op::Write, &self.path) {
            None => self.file.write(buf)?,
            Some(Injected::Fail(e)) => return Err(e),
            Some(Injected::Short(e)) => {
                self.file.write_all(&buf[..buf.len() / 2])?;
                return Err(e);
            }
        };
        self.unsynced += n as u64;
        if self.sync_every > 0 && self.unsynced >= self.sync_every {
            self.unsynced = 0;
            if let Some(Injected::Fail(e) | Injected::Short(e)) = faults::check(Op::Sync, &self.path) {
                return Err(e);
            }
            self.file.sync_data()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// The whole file (a regular file only, as [`DiskFile::open_read`] opens it).
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, StorageError> {
    let mut f = DiskFile::open_read(path)?;
    gate(Op::Read, path)?;
    let mut buf = Vec::new();
    f.file.read_to_end(&mut buf).map_err(|e| StorageError::io(path, e))?;
    Ok(buf)
}

pub(crate) fn rename(from: &Path, to: &Path) -> Result<(), StorageError> {
    gate(Op::Rename, to)?;
    std::fs::rename(from, to).map_err(|e| StorageError::io(to, e))
}

/// Makes `to` a second name of the file at `from` (a hard link; `from` itself if it is a
/// symbolic link, which is not followed). Fails with `EXDEV` across file systems, where
/// the caller copies instead.
pub(crate) fn hard_link(from: &Path, to: &Path) -> Result<(), StorageError> {
    gate(Op::Create, to)?;
    std::fs::hard_link(from, to).map_err(|e| StorageError::io(to, e))
}

/// Swaps the directories `a` and `b` in one step (`renameat2` with `RENAME_EXCHANGE`), so
/// whoever looks at either name sees one of the two whole, never neither. Fails with
/// `EINVAL` on a file system (or a system) without it; the caller then renames twice.
pub(crate) fn exchange(a: &Path, b: &Path) -> Result<(), StorageError> {
    gate(Op::Rename, b)?;
    exchange_raw(a, b).map_err(|e| StorageError::io(b, e))
}

#[cfg(target_os = "linux")]
fn exchange_raw(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
    let (ca, cb) = (c(a)?, c(b)?);
    // SAFETY: both are NUL-terminated strings that outlive the call; renameat2 only reads
    // them.
    let rc =
        unsafe { libc::renameat2(libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE) };
    if rc == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

#[cfg(not(target_os = "linux"))]
fn exchange_raw(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from_raw_os_error(libc::EINVAL))
}

/// One entry of a directory listing.
pub(crate) struct DirEntry {
    /// The name, lossily UTF-8 (for matching file kinds and reports).
    pub(crate) name: String,
    /// The entry's path, exact (for acting on it).
    pub(crate) path: PathBuf,
    /// A regular file (a link is not followed).
    pub(crate) is_file: bool,
    /// A directory (a link is not followed).
    pub(crate) is_dir: bool,
    /// Its length; 0 for anything but a regular file.
    pub(crate) len: u64,
}

/// The entries of `dir`. An entry removed while the listing runs (a writer's clean-up,
/// seen by a reader) is left out.
pub(crate) fn list_dir(dir: &Path) -> Result<Vec<DirEntry>, StorageError> {
    gate(Op::List, dir)?;
    let io = |e| StorageError::io(dir, e);
    let gone = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let (is_file, is_dir) = match entry.file_type() {
            Ok(t) => (t.is_file(), t.is_dir()),
            Err(e) if gone(&e) => continue,
            Err(e) => return Err(io(e)),
        };
        let len = match entry.metadata() {
            Ok(m) if is_file => m.len(),
            Ok(_) => 0,
            Err(e) if gone(&e) => continue,
            Err(e) => return Err(io(e)),
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        out.push(DirEntry { name, path: entry.path(), is_file, is_dir, len });
    }
    Ok(out)
}

/// The metadata of `path`, following a link.
pub(crate) fn metadata(path: &Path) -> Result<std::fs::Metadata, StorageError> {
    gate(Op::Stat, path)?;
    std::fs::metadata(path).map_err(|e| StorageError::io(path, e))
}

/// The metadata of `path` itself: a link is not followed.
pub(crate) fn symlink_metadata(path: &Path) -> Result<std::fs::Metadata, StorageError> {
    gate(Op::Stat, path)?;
    std::fs::symlink_metadata(path).map_err(|e| StorageError::io(path, e))
}

pub(crate) fn remove_file(path: &Path) -> Result<(), StorageError> {
    gate(Op::Remove, path)?;
    std::fs::remove_file(path).map_err(|e| StorageError::io(path, e))
}

/// Whether `path` is a directory of the collection's own, judged without following a
/// symbolic link: `Ok(false)` when nothing is there, [`StorageError::BadLostFound`] for a
/// symbolic link or anything else (the folders recovery and repair keep files in).
pub(crate) fn own_dir(path: &Path) -> Result<bool, StorageError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(m) => Err(StorageError::BadLostFound { path: path.to_path_buf(), what: type_name(m.file_type()) }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(StorageError::io(path, e)),
    }
}

/// Removes the empty directory `dir`.
pub(crate) fn remove_dir(dir: &Path) -> Result<(), StorageError> {
    gate(Op::Remove, dir)?;
    std::fs::remove_dir(dir).map_err(|e| StorageError::io(dir, e))
}

pub(crate) fn create_dir_all(dir: &Path) -> Result<(), StorageError> {
    gate(Op::Create, dir)?;
    std::fs::create_dir_all(dir).map_err(|e| StorageError::io(dir, e))
}

/// Creates `dir` and its missing ancestors, then fsyncs the parent of each directory it
/// created: a new directory's entry is durable only once its parent is synced, and a
/// collection whose own directory vanishes in a power loss is lost whole.
pub(crate) fn create_dir_durable(dir: &Path) -> Result<(), StorageError> {
    let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.as_os_str().is_empty() && !d.exists()).collect();
    create_dir_all(dir)?;
    for d in missing {
        sync_dir(d.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?;
    }
    Ok(())
}

/// Fsyncs a directory so that creations, renames and removals in it are durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StorageError> {
    gate(Op::Open, dir)?;
    let d = File::open(dir).map_err(|e| StorageError::io(dir, e))?;
    gate(Op::Sync, dir)?;
    d.sync_all().map_err(|e| StorageError::io(dir, e))
}

/// Writes `data` to `dir/name` through `name.tmp`, fsync and rename. The caller fsyncs the
/// directory once its whole set of files is in place. A failure removes the temp file.
pub(crate) fn write_file_atomic(dir: &Path, name: &str, data: &[u8]) -> Result<PathBuf, StorageError> {
    let tmp = dir.join(format!("{name}.tmp"));
    let path = dir.join(name);
    let written = DiskFile::create(&tmp).and_then(|mut f| {
        f.write_all(data)?;
        f.sync_all()
    });
    if let Err(e) = written.and_then(|()| rename(&tmp, &path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(path)
}

/// Where a file is written before it is renamed to `path`.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

/// Refuses a path that cannot be a collection before anything is touched: a missing
/// directory (when `must_exist`) or a file, each with its own error instead of the OS's
/// `Not a directory` about a file inside it.
pub(crate) fn check_dir(dir: &Path, must_exist: bool) -> Result<(), StorageError> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(StorageError::NotADirectory { path: dir.to_path_buf() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && must_exist => {
            Err(StorageError::NoDirectory { path: dir.to_path_buf() })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            Err(StorageError::NotADirectory { path: first_file(dir).unwrap_or(dir).to_path_buf() })
        }
        Err(e) => Err(StorageError::io(dir, e)),
    }
}

/// The first ancestor of `path` that is a file (what makes `a.jsonl/x` not a directory).
fn first_file(path: &Path) -> Option<&Path> {
    let mut ancestors: Vec<&Path> = path.ancestors().skip(1).collect();
    ancestors.reverse();
    ancestors.into_iter().find(|a| std::fs::metadata(a).is_ok_and(|m| !m.is_dir()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::faults::{Fault, inject};

    /// Syncs under `root` that are not under `inner`, while `f` runs.
    fn syncs_outside(root: &Path, inner: &Path, f: impl FnOnce()) -> u64 {
        let (all, within) = (inject(root, Fault::Fsync, 0, false), inject(inner, Fault::Fsync, 0, false));
        f();
        all.ops() - within.ops()
    }

    #[test]
    fn a_created_directory_is_synced_into_each_new_parent() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        // `a` in root and `b` in `a`: two parent syncs outside the new directory itself.
        assert_eq!(syncs_outside(root.path(), &dir, || create_dir_durable(&dir).unwrap()), 2);
        assert!(dir.is_dir());
        // Nothing new, nothing to sync.
        assert_eq!(syncs_outside(root.path(), &dir, || create_dir_durable(&dir).unwrap()), 0);
    }

    #[test]
    fn a_created_collection_survives_its_parent_losing_the_entry() {
        use crate::{Collection, Field, Metric, Schema, VectorType};
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("new/coll");
        let schema = Schema::builder("c").field(Field::vector("v", VectorType::Fp32, 2, Metric::L2)).build().unwrap();
        let synced = syncs_outside(root.path(), &dir, || {
            Collection::create(&dir, schema, Default::default()).unwrap().close().unwrap();
        });
        assert_eq!(synced, 2, "create must sync `new` into the root and `coll` into `new`");
    }
}
