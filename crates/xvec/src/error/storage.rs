//! Collection files that cannot be read or written: I/O, corruption (with file and offset),
//! versions, locks and a damaged WAL.

use std::path::PathBuf;
use std::time::Duration;

/// Reading or writing collection files failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    /// Rows of a segment whose bytes lie in damaged blocks (a checksum failed): queries,
    /// counts and scans leave them out, and a read that needs them, or a rewrite of
    /// their segment (optimize, a merge), fails with this until `xvec repair` writes the
    /// segment again without them.
    #[error("{}: {rows} unreadable ({what}); run `xvec repair`", path.display())]
    DamagedRows {
        /// The segment file.
        path: PathBuf,
        /// Which rows: their keys, or how many when the keys are unreadable too.
        rows: String,
        /// Where the damage is (sections and blocks), or what refused.
        what: String,
    },
    /// An operating-system I/O error.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory it was about.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file whose bytes fail a check (checksum, magic, bounds); `xvec verify` and
    /// `xvec repair` look deeper.
    #[error("{}: corrupted at offset {offset}: {what}", path.display())]
    Corrupted {
        /// The damaged file.
        path: PathBuf,
        /// Byte offset in it where the check failed.
        offset: u64,
        /// Which check failed.
        what: String,
    },
    /// A file in a format version this build does not read: newer than it knows, or older
    /// than [`FileKind::oldest_readable`](crate::FileKind::oldest_readable).
    #[error("{}: {kind} format version {found} is not supported (this build reads version {supported})", path.display())]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// Which format (manifest, segment, WAL, ...).
        kind: &'static str,
        /// The version the file states.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// Damage in the middle of the WAL: good records follow it, so it is not a torn tail
    /// and open refuses rather than silently dropping them.
    #[error("{0}")]
    WalDamaged(Box<WalDamage>),
    /// A write or fsync failed earlier with an unknown outcome on disk, so this handle
    /// refuses all further writes until the collection is reopened (and recovered).
    #[error(
        "{}: writes refused after an I/O error whose outcome on disk is unknown ({what}); reopen the collection to recover",
        path.display()
    )]
    FailStop {
        /// The collection directory or the file the failed write was to.
        path: PathBuf,
        /// The I/O error that stopped writes.
        what: String,
    },
    /// A record whose frame would pass the WAL's frame bound, which no reader would take
    /// back: refused before anything of its batch is written. Validation keeps documents
    /// far smaller ([`crate::MAX_DOC_BYTES`]), so this is the writer's last line.
    #[error(
        "{}: a record of {len} bytes for key {key:?} exceeds the WAL's {max}-byte frame bound; nothing of its batch was written",
        path.display()
    )]
    FrameTooLarge {
        /// The WAL file.
        path: PathBuf,
        /// The record's key (at most 64 bytes and `…`).
        key: String,
        /// The record's encoded length.
        len: usize,
        /// The bound.
        max: u32,
    },
    /// A collection file's name holds something else: a FIFO (whose open would block
    /// forever), a socket, a device, a directory, or a symbolic link (entries inside a
    /// collection are never followed out of it).
    #[error("{} is a {what}, not a regular file; move it out of the collection directory", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What is there instead: `FIFO`, `socket`, `directory`, `symbolic link`, ...
        what: &'static str,
    },
    /// `lost+found` (or a folder in it) is not a directory of the collection's own: a
    /// symbolic link, which would carry what recovery and repair keep out of the
    /// collection (and, dangling, fail every create with `File exists`), or a file.
    #[error(
        "{} is a {what}, not a directory; recovery and repair keep files only in a lost+found directory inside the collection: move it away",
        path.display()
    )]
    BadLostFound {
        /// The path.
        path: PathBuf,
        /// What is there instead: `symbolic link`, `regular file`, `FIFO`, ...
        what: &'static str,
    },
    /// `repair` met files it cannot read for a reason that says nothing about their bytes
    /// (permissions, a failing device, the open-file limit, something other than a
    /// regular file in a file's place) and changed nothing: it gives up data only from a
    /// file that is damaged or provably gone.
    #[error(
        "{}: repair refused, nothing was changed: {}; fix the cause (file permissions, a failing device, the open-file limit `ulimit -n`, a non-file moved away) and run repair again",
        path.display(),
        files.join("; ")
    )]
    Unreadable {
        /// The collection directory.
        path: PathBuf,
        /// Each unreadable file and its error, as `NAME cannot be read: error`.
        files: Vec<String>,
    },
    /// A restore copied a backup that does not verify; nothing was published, the
    /// directory restored into is as it was.
    #[error(
        "{}: the backup does not verify ({problems} problem{}, the first: {first}); nothing was restored",
        path.display(),
        if *problems == 1 { "" } else { "s" }
    )]
    BackupDamaged {
        /// The backup directory.
        path: PathBuf,
        /// Problems verify found (corruption and orphans).
        problems: usize,
        /// The first of them, as verify words it.
        first: String,
    },
    /// The directory has no `CURRENT` file, so holds no collection.
    #[error("{}: not an xvec collection (no CURRENT file)", path.display())]
    NotACollection {
        /// The directory.
        path: PathBuf,
    },
    /// The path names no directory at all (a collection is a directory).
    #[error("{}: no such directory, so no collection", path.display())]
    NoDirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The path names a file (say, a data file given where the collection goes).
    #[error("{}: a file, not a collection directory", path.display())]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// `create` in a directory that holds a collection already.
    #[error("{}: a collection already exists here", path.display())]
    AlreadyExists {
        /// The directory.
        path: PathBuf,
    },
    /// `create` found files that no unfinished create leaves behind.
    #[error("{}: not empty and not a collection; remove these or pick another directory: {}", path.display(), files.join(", "))]
    NotEmpty {
        /// The directory.
        path: PathBuf,
        /// Names of the foreign entries found in it.
        files: Vec<String>,
    },
    /// Another handle holds the writer lock; `waited` is how long the open waited for it
    /// ([`crate::OpenOptions::lock_timeout`]).
    #[error("{}: collection is locked by another writer{}", path.display(), waited_for(*waited))]
    Locked {
        /// The collection directory.
        path: PathBuf,
        /// How long the open waited; zero when it did not wait.
        waited: Duration,
    },
    /// A version (a generation) that the collection does not keep: never published, or
    /// removed since (retention, `vacuum`).
    #[error("{}: no version {version}; the versions kept are {}", path.display(), list_versions(kept))]
    NoSuchVersion {
        /// The collection directory.
        path: PathBuf,
        /// The version asked for.
        version: u64,
        /// The versions there are, oldest first.
        kept: Vec<u64>,
    },
    /// A tag the collection does not have, or a name that cannot be one.
    #[error("{}: {what}", path.display())]
    Tag {
        /// The collection directory.
        path: PathBuf,
        /// The tag, what is wrong with it, and the tags there are.
        what: String,
    },
}

fn list_versions(kept: &[u64]) -> String {
    match kept {
        [] => "none".to_string(),
        _ => kept.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
    }
}

/// ` (waited 2.5 s for it)` for a lock wait that timed out, nothing when none was asked for.
fn waited_for(waited: Duration) -> String {
    match waited.as_millis() {
        0 => String::new(),
        ms @ 1..1000 => format!(" (waited {ms} ms for it)"),
        _ => format!(" (waited {:.1} s for it)", waited.as_secs_f64()),
    }
}

/// Damage in the middle of a WAL (good frames after it), as replay reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct WalDamage {
    /// The WAL file.
    pub path: PathBuf,
    /// Byte offset of the first damaged frame.
    pub offset: u64,
    /// Which check the frame failed.
    pub what: String,
    /// Record frames the damage took.
    pub lost: u64,
    /// Key of the last good record before the damage.
    pub before: Option<String>,
    /// Key of the first good record after it.
    pub after: Option<String>,
    /// Further damaged stretches after this one.
    pub more: usize,
}

impl std::fmt::Display for WalDamage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: damaged at offset {}: {}; {} record frame(s) lost",
            self.path.display(),
            self.offset,
            self.what,
            self.lost
        )?;
        if let Some(k) = &self.before {
            write!(f, ", after key {k:?}")?;
        }
        if let Some(k) = &self.after {
            write!(f, ", before key {k:?}")?;
        }
        if self.more > 0 {
            write!(f, " ({} more damaged stretch(es) after it)", self.more)?;
        }
        write!(f, "; `xvec repair` salvages every other record")
    }
}

impl StorageError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> StorageError {
        StorageError::Io { path: path.into(), source }
    }

    pub(crate) fn corrupted(path: impl Into<PathBuf>, offset: u64, what: impl Into<String>) -> StorageError {
        StorageError::Corrupted { path: path.into(), offset, what: what.into() }
    }

    /// Whether the file read is damaged or gone (its bytes do not check, or it does not
    /// exist), as opposed to the I/O failing: what a derived file (an index) may be
    /// rebuilt for.
    pub(crate) fn is_damage(&self) -> bool {
        match self {
            StorageError::Corrupted { .. } => true,
            StorageError::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            _ => false,
        }
    }
}
