//! Files of a collection directory: names, the common header, and the publish protocol.
//!
//! Each submodule owns the encoding, decoding and validation of one file kind. The byte
//! layouts are specified in `docs/format.md`; a change to one bumps that kind's
//! [`FileKind::version`].

pub(crate) mod block_reads;
pub(crate) mod column;
pub(crate) mod container;
pub(crate) mod deletes;
pub(crate) mod disk;
pub(crate) mod faults;
#[cfg(test)]
mod faults_tests;
pub(crate) mod lock;
pub(crate) mod manifest;
pub(crate) mod mmap;
pub(crate) mod segment;
pub(crate) mod versions;
pub(crate) mod wal;

use std::path::Path;

pub(crate) use disk::{sync_dir, write_file_atomic};

use crate::error::StorageError;

/// First bytes of every xvec file (the `\r\n\x1a` tail catches text-mode mangling).
pub const MAGIC: [u8; 8] = *b"XVEC\x00\r\n\x1a";

/// Bytes of the common header that starts every file.
pub const HEADER_LEN: usize = 32;
const MAGIC_AT: usize = 0;
const VERSION_AT: usize = MAGIC_AT + 8;
const KIND_AT: usize = VERSION_AT + 4;
const ID_AT: usize = KIND_AT + 4;
const RESERVED_AT: usize = ID_AT + 8;
const HEADER_CRC_AT: usize = RESERVED_AT + 4;
const _: () = assert!(HEADER_CRC_AT + 4 == HEADER_LEN);

/// Every kind of file a collection directory may hold. Open, cleanup, `verify` and
/// `inspect` iterate this list, so a new kind cannot be forgotten. Serialized as its
/// [`FileKind::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// `CURRENT`: the name of the live manifest, one line of text.
    Current,
    /// `LOCK`: held exclusively by the writer.
    Lock,
    /// `MANIFEST-<gen>`: schema, options and the list of live files.
    Manifest,
    /// `WAL-<seq>.log`: framed write records since the last flush.
    Wal,
    /// `WAL.sync`: how far the live WAL was durable at its last fsync (`wal::sync_record`).
    WalSync,
    /// `SEG-<id>.xseg`: an immutable columnar segment.
    Segment,
    /// `SEG-<id>-<gen>.del`: the deleted rows of one segment as of a generation.
    Deletes,
    /// `SEG-<id>-f<field>.idx`: the index (graph, codes) of one vector field of a segment.
    Index,
    /// `*.tmp`: a file being written; never live.
    Temp,
}

impl FileKind {
    /// Every kind, in the order listings show them.
    pub const ALL: [FileKind; 9] = [
        FileKind::Current,
        FileKind::Lock,
        FileKind::Manifest,
        FileKind::Wal,
        FileKind::WalSync,
        FileKind::Segment,
        FileKind::Deletes,
        FileKind::Index,
        FileKind::Temp,
    ];

    /// Code stored in the header of files of this kind.
    pub fn code(self) -> u32 {
        match self {
            FileKind::Current => 0,
            FileKind::Lock => 0,
            FileKind::Manifest => 1,
            FileKind::Wal => 2,
            FileKind::Segment => 3,
            FileKind::Deletes => 4,
            FileKind::Index => 5,
            FileKind::WalSync => 6,
            FileKind::Temp => 0,
        }
    }

    /// Layout version of this kind's files, written in their header. Each kind has its
    /// own, so a change to one file kind leaves every other file readable; a file of
    /// another version is refused with an error naming the file, the kind and both versions.
    pub fn version(self) -> u32 {
        match self {
            FileKind::Manifest => 3,
            FileKind::Wal => 2,
            FileKind::Segment => 3,
            FileKind::Deletes => 1,
            FileKind::Index => 3,
            FileKind::WalSync => 1,
            FileKind::Current | FileKind::Lock | FileKind::Temp => 0,
        }
    }

    /// Oldest layout version of this kind that this build still reads. Segment and index
    /// files of version 1 are containers without block checksums (one CRC32C per section);
    /// they read as they are, and are rewritten in the current version by optimize or
    /// repair. A version 1 manifest has no field ids (they are the positions) and no WAL
    /// salt; the WAL it names must be empty (`wal::is_empty_v1`).
    pub fn oldest_readable(self) -> u32 {
        match self {
            FileKind::Segment | FileKind::Index | FileKind::Manifest => 1,
            other => other.version(),
        }
    }

    /// Lower-case name for listings and JSON output (`segment`, `wal`, ...).
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Current => "current",
            FileKind::Lock => "lock",
            FileKind::Manifest => "manifest",
            FileKind::Wal => "wal",
            FileKind::WalSync => "walsync",
            FileKind::Segment => "segment",
            FileKind::Deletes => "deletes",
            FileKind::Index => "index",
            FileKind::Temp => "temp",
        }
    }

    /// Classifies a directory entry by name; `None` for files xvec never makes.
    pub fn of_name(name: &str) -> Option<FileKind> {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        Some(match name {
            "CURRENT" => FileKind::Current,
            "LOCK" => FileKind::Lock,
            wal::sync_record::SYNC_NAME => FileKind::WalSync,
            _ if name.ends_with(".tmp") => FileKind::Temp,
            _ => {
                if let Some(g) = name.strip_prefix("MANIFEST-") {
                    digits(g).then_some(FileKind::Manifest)?
                } else if let Some(s) = name.strip_prefix("WAL-").and_then(|s| s.strip_suffix(".log")) {
                    digits(s).then_some(FileKind::Wal)?
                } else if let Some(s) = name.strip_prefix("SEG-").and_then(|s| s.strip_suffix(".xseg")) {
                    digits(s).then_some(FileKind::Segment)?
                } else if let Some(s) = name.strip_prefix("SEG-").and_then(|s| s.strip_suffix(".idx")) {
                    let (a, b) = s.split_once("-f")?;
                    // `<field id>-<index kind>`, or a bare field id (manifest version 1).
                    let (field, kind) = b.split_once('-').map_or((b, None), |(f, k)| (f, Some(k)));
                    let known_kind = kind.is_none_or(|k| IndexKind::of_tag(k).is_some());
                    (digits(a) && digits(field) && known_kind).then_some(FileKind::Index)?
                } else if let Some(s) = name.strip_prefix("SEG-").and_then(|s| s.strip_suffix(".del")) {
                    let (a, b) = s.split_once('-')?;
                    (digits(a) && digits(b)).then_some(FileKind::Deletes)?
                } else {
                    return None;
                }
            }
        })
    }
}

/// `MANIFEST-<gen>`: the file name of the manifest of `generation`.
pub fn manifest_name(generation: u64) -> String {
    format!("MANIFEST-{generation:06}")
}

/// `WAL-<seq>.log`: the file name of the WAL numbered `seq`.
pub fn wal_name(seq: u64) -> String {
    format!("WAL-{seq:06}.log")
}

/// `SEG-<id>.xseg`: the file name of segment `id`.
pub fn segment_name(id: u64) -> String {
    format!("SEG-{id:06}.xseg")
}

/// What an index file indexes. A field may have one of each kind, each its own file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum IndexKind {
    /// A vector field's search index: graph or lists, codes, sketches (`index/segment_index/`).
    #[default]
    Vector,
    /// A scalar field's inverted index: each distinct value and its rows (`index/scalar/`).
    Inverted,
    /// A numeric field's range index: rows sorted by value (`index/scalar/`).
    Range,
    /// A string field's full-text index: terms, postings, lengths (`index/fulltext/`).
    FullText,
    /// A sparse vector field's inverted index: dimensions, rows, values (`index/sparse_index/`).
    Sparse,
}

impl IndexKind {
    /// The kind's tag in file names.
    pub(crate) fn tag(self) -> &'static str {
        match self {
            IndexKind::Vector => "vec",
            IndexKind::Inverted => "inv",
            IndexKind::Range => "rng",
            IndexKind::FullText => "fts",
            IndexKind::Sparse => "spi",
        }
    }

    /// The scalar index kind of this file kind (`None` for a vector or full-text index).
    pub(crate) fn scalar(self) -> Option<crate::schema::ScalarIndexKind> {
        use crate::schema::ScalarIndexKind;
        match self {
            IndexKind::Vector | IndexKind::FullText | IndexKind::Sparse => None,
            IndexKind::Inverted => Some(ScalarIndexKind::Inverted),
            IndexKind::Range => Some(ScalarIndexKind::Range),
        }
    }

    pub(crate) fn of_tag(tag: &str) -> Option<IndexKind> {
        match tag {
            "vec" => Some(IndexKind::Vector),
            "inv" => Some(IndexKind::Inverted),
            "rng" => Some(IndexKind::Range),
            "fts" => Some(IndexKind::FullText),
            "spi" => Some(IndexKind::Sparse),
            _ => None,
        }
    }
}

/// `SEG-<segment>-f<field id>-<kind>.idx`: named by the field's stable id, never its
/// position, so renaming or dropping a field never renames another's index.
pub(crate) fn index_name(segment: u64, field_id: u16, kind: IndexKind) -> String {
    format!("SEG-{segment:06}-f{field_id:03}-{}.idx", kind.tag())
}

/// The index kind an index file's name gives (`-vec`, `-inv`, `-rng`; a version 1 name
/// has none and holds a vector index).
pub(crate) fn index_kind_of_name(name: &str) -> Option<IndexKind> {
    let s = name.strip_prefix("SEG-")?.strip_suffix(".idx")?;
    let (_, b) = s.split_once("-f")?;
    match b.split_once('-') {
        Some((_, tag)) => IndexKind::of_tag(tag),
        None => Some(IndexKind::Vector),
    }
}

/// The index file name manifests of version 1 used (one vector index per field).
pub(crate) fn index_name_v1(segment: u64, field: u16) -> String {
    format!("SEG-{segment:06}-f{field:03}.idx")
}

/// `SEG-<segment>-<gen>.del`: the file name of `segment`'s deleted rows as written in
/// `generation`.
pub fn deletes_name(segment: u64, generation: u64) -> String {
    format!("SEG-{segment:06}-{generation:06}.del")
}

/// Encodes the common header.
pub(crate) fn encode_header(kind: FileKind, id: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[MAGIC_AT..VERSION_AT].copy_from_slice(&MAGIC);
    h[VERSION_AT..KIND_AT].copy_from_slice(&kind.version().to_le_bytes());
    h[KIND_AT..ID_AT].copy_from_slice(&kind.code().to_le_bytes());
    h[ID_AT..RESERVED_AT].copy_from_slice(&id.to_le_bytes());
    let crc = crc32c::crc32c(&h[..HEADER_CRC_AT]);
    h[HEADER_CRC_AT..].copy_from_slice(&crc.to_le_bytes());
    h
}

/// Checks the common header of `bytes` and returns its id field.
pub(crate) fn decode_header(path: &Path, bytes: &[u8], kind: FileKind) -> Result<u64, StorageError> {
    decode_header_version(path, bytes, kind).map(|(id, _)| id)
}

/// Checks the common header of `bytes` and returns its id field and layout version (one
/// of `kind.oldest_readable()..=kind.version()`).
pub(crate) fn decode_header_version(path: &Path, bytes: &[u8], kind: FileKind) -> Result<(u64, u32), StorageError> {
    if bytes.len() < HEADER_LEN {
        return Err(StorageError::corrupted(
            path,
            bytes.len() as u64,
            format!("file is {} bytes, shorter than the {HEADER_LEN}-byte header", bytes.len()),
        ));
    }
    if bytes[MAGIC_AT..VERSION_AT] != MAGIC {
        return Err(StorageError::corrupted(path, 0, "bad magic: not an xvec file"));
    }
    let crc = read_u32(bytes, HEADER_CRC_AT);
    if crc != crc32c::crc32c(&bytes[..HEADER_CRC_AT]) {
        return Err(StorageError::corrupted(path, HEADER_CRC_AT as u64, "header checksum mismatch"));
    }
    let found = read_u32(bytes, KIND_AT);
    if found != kind.code() {
        return Err(StorageError::corrupted(
            path,
            KIND_AT as u64,
            format!("file kind {found}, expected {} ({})", kind.code(), kind.name()),
        ));
    }
    let version = read_u32(bytes, VERSION_AT);
    if !(kind.oldest_readable()..=kind.version()).contains(&version) {
        return Err(StorageError::UnsupportedVersion {
            path: path.to_path_buf(),
            kind: kind.name(),
            found: version,
            supported: kind.version(),
        });
    }
    Ok((read_u64(bytes, ID_AT), version))
}

/// Little-endian u32 at `at`; the caller has checked the bounds.
pub(crate) fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Little-endian u64 at `at`; the caller has checked the bounds.
pub(crate) fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_classify_back_to_their_kind() {
        assert_eq!(FileKind::of_name(&manifest_name(7)), Some(FileKind::Manifest));
        assert_eq!(FileKind::of_name(&wal_name(7)), Some(FileKind::Wal));
        assert_eq!(FileKind::of_name(&segment_name(7)), Some(FileKind::Segment));
        assert_eq!(FileKind::of_name(&deletes_name(7, 9)), Some(FileKind::Deletes));
        assert_eq!(FileKind::of_name(&index_name(7, 2, IndexKind::Vector)), Some(FileKind::Index));
        for kind in [IndexKind::Vector, IndexKind::Inverted, IndexKind::Range] {
            assert_eq!(index_kind_of_name(&index_name(7, 2, kind)), Some(kind));
        }
        assert_eq!(index_kind_of_name(&index_name_v1(7, 2)), Some(IndexKind::Vector));
        assert_eq!(index_kind_of_name("SEG-000007-f002-xyz.idx"), None);
        assert_eq!(FileKind::of_name(&index_name_v1(7, 2)), Some(FileKind::Index));
        assert_eq!(FileKind::of_name("SEG-000007-f002-zzz.idx"), None);
        assert_eq!(FileKind::of_name("CURRENT"), Some(FileKind::Current));
        assert_eq!(FileKind::of_name("x.tmp"), Some(FileKind::Temp));
        assert_eq!(FileKind::of_name("notes.txt"), None);
        assert_eq!(FileKind::of_name("SEG-x.xseg"), None);
    }

    #[test]
    fn header_round_trip_and_rejects_damage() {
        let p = Path::new("f");
        let h = encode_header(FileKind::Segment, 42);
        assert_eq!(decode_header(p, &h, FileKind::Segment).unwrap(), 42);
        assert!(decode_header(p, &h, FileKind::Wal).is_err());
        for i in 0..HEADER_LEN {
            let mut bad = h;
            bad[i] ^= 0x10;
            assert!(decode_header(p, &bad, FileKind::Segment).is_err(), "byte {i}");
        }
        assert!(decode_header(p, &h[..10], FileKind::Segment).is_err());
    }
}
