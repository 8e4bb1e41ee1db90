//! The manifest (one generation of the collection: schema, options, live files) and
//! `CURRENT`, the one-line file naming the live manifest.
//!
//! Manifest layout: common header (id = generation), `len u64`, `crc32c u32`,
//! `reserved u32`, then `len` bytes of JSON. Publishing a generation is: write every new
//! file and fsync it, write `MANIFEST-<gen>` and fsync it, write `CURRENT.tmp`, fsync,
//! fsync the directory, rename over `CURRENT`, fsync the directory. A crash before the
//! rename leaves the old generation live and the new files unpublished: the next writable
//! open rolls them back (`collection/recovery.rs`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::disk::{self, DiskFile};
use super::segment::layout::Layout;
use super::{FileKind, HEADER_LEN, IndexKind, decode_header_version, encode_header, read_u32, read_u64};
use crate::error::StorageError;
use crate::schema::{RawSchema, Schema};

const LEN_AT: usize = HEADER_LEN;
const CRC_AT: usize = LEN_AT + 8;
const BODY_AT: usize = CRC_AT + 8;
/// Bound on a manifest's JSON, far above any real one; a larger claim is corruption.
const MAX_BODY: u64 = 256 << 20;

/// Options stored with the collection (as opposed to per-handle open options).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct CollectionOptions {
    /// Most documents one segment holds after optimize.
    pub max_docs_per_segment: u64,
    /// Flush the memtable when it holds this many rows, and keep the collection indexed
    /// in the background: each new segment gets its indexes, and segments are merged in
    /// tiers of `merge_factor` (0, the default: flush and optimize only when asked).
    #[serde(default)]
    pub auto_flush_rows: u64,
    /// Also flush when the memtable's rows take this many bytes of memory (0, the default:
    /// rows only). Either threshold turns background maintenance on.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub auto_flush_bytes: u64,
    /// Segments of one size tier merged into one by background maintenance (at least 2).
    #[serde(default = "default_merge_factor")]
    pub merge_factor: u32,
    /// Once writes have paused this many milliseconds, background maintenance flushes the
    /// memtable and merges the segments smaller than half of `max_docs_per_segment` into
    /// one, as an optimize would (when they hold at least a flush's worth of rows beside
    /// the largest one); 0: never, only tiered merges.
    #[serde(default = "default_idle_optimize_ms", skip_serializing_if = "is_default_idle")]
    pub idle_optimize_ms: u64,
    /// Superseded versions kept beside the live one, newest first, for time travel
    /// ([`crate::Collection::snapshot_at`]) and checkout (0, the default: none, each
    /// publish removes what it superseded at once).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub keep_versions: u64,
    /// Also keep every version superseded less than this many seconds ago (0: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub keep_for_secs: u64,
}

fn default_merge_factor() -> u32 {
    10
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn default_idle_optimize_ms() -> u64 {
    1000
}

fn is_default_idle(ms: &u64) -> bool {
    *ms == default_idle_optimize_ms()
}

impl Default for CollectionOptions {
    fn default() -> Self {
        CollectionOptions {
            max_docs_per_segment: 1 << 22,
            auto_flush_rows: 0,
            auto_flush_bytes: 0,
            merge_factor: default_merge_factor(),
            idle_optimize_ms: default_idle_optimize_ms(),
            keep_versions: 0,
            keep_for_secs: 0,
        }
    }
}

/// Builder-style setters: the struct is `#[non_exhaustive]`, so code outside the
/// engine starts from [`Default`] and sets what it needs.
impl CollectionOptions {
    /// Sets [`CollectionOptions::max_docs_per_segment`].
    pub fn max_docs_per_segment(mut self, max_docs_per_segment: u64) -> Self {
        self.max_docs_per_segment = max_docs_per_segment;
        self
    }

    /// Sets [`CollectionOptions::auto_flush_rows`].
    pub fn auto_flush_rows(mut self, rows: u64) -> Self {
        self.auto_flush_rows = rows;
        self
    }

    /// Sets [`CollectionOptions::auto_flush_bytes`].
    pub fn auto_flush_bytes(mut self, bytes: u64) -> Self {
        self.auto_flush_bytes = bytes;
        self
    }

    /// Sets [`CollectionOptions::idle_optimize_ms`].
    pub fn idle_optimize_ms(mut self, ms: u64) -> Self {
        self.idle_optimize_ms = ms;
        self
    }

    /// Whether background maintenance runs (either flush threshold is set).
    pub fn background(&self) -> bool {
        self.auto_flush_rows > 0 || self.auto_flush_bytes > 0
    }

    /// Sets [`CollectionOptions::merge_factor`].
    pub fn merge_factor(mut self, factor: u32) -> Self {
        self.merge_factor = factor;
        self
    }

    /// Sets [`CollectionOptions::keep_versions`].
    pub fn keep_versions(mut self, versions: u64) -> Self {
        self.keep_versions = versions;
        self
    }

    /// Sets [`CollectionOptions::keep_for_secs`] from a duration (whole seconds).
    pub fn keep_for(mut self, keep: std::time::Duration) -> Self {
        self.keep_for_secs = keep.as_secs();
        self
    }

    /// Whether superseded versions are kept at all (by count or by age).
    pub fn retains(&self) -> bool {
        self.keep_versions > 0 || self.keep_for_secs > 0
    }
}

/// What published a version (a generation): stored in its manifest since manifest
/// version 3, and listed by [`crate::Collection::versions`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Operation {
    /// Written before manifest version 3, which recorded none.
    #[default]
    Unknown,
    /// The collection's first version.
    Create,
    /// A version 1 manifest rewritten as a newer one, same data.
    Upgrade,
    /// The first half of a flush: the memtable frozen, its WAL sealed; same segments.
    Freeze,
    /// A flush: the memtable written as a segment.
    Flush,
    /// An optimize, or background maintenance (indexes built, segments merged).
    Optimize,
    /// A field change (`alter`).
    Alter,
    /// A repair.
    Repair,
    /// An older version published again as the newest ([`crate::Collection::checkout`]).
    Checkout,
    /// An atomic batch of writes published at once ([`crate::Collection::stage`]).
    Import,
}

impl Operation {
    /// The name the manifest stores and the tool prints.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Unknown => "unknown",
            Operation::Create => "create",
            Operation::Upgrade => "upgrade",
            Operation::Freeze => "freeze",
            Operation::Flush => "flush",
            Operation::Optimize => "optimize",
            Operation::Alter => "alter",
            Operation::Repair => "repair",
            Operation::Checkout => "checkout",
            Operation::Import => "import",
        }
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A live delete file of a segment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeletesEntry {
    pub file: String,
    pub size: u64,
    pub count: u64,
}

/// A live index file of a segment: one field (by stable id) and one index kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexEntry {
    /// The field's stable id (see the schema's field ids).
    pub field: u16,
    /// Absent in version 1 manifests, which had vector indexes only.
    #[serde(default)]
    pub kind: IndexKind,
    pub file: String,
    pub size: u64,
}

/// A live segment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SegmentEntry {
    pub id: u64,
    pub file: String,
    pub rows: u64,
    pub size: u64,
    pub deletes: Option<DeletesEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<IndexEntry>,
}

/// One generation of the collection.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    pub generation: u64,
    pub schema: RawSchema,
    pub options: CollectionOptions,
    /// Id the next new segment takes.
    pub next_segment_id: u64,
    /// Sequence number of the WAL that holds writes made after this generation.
    pub wal_seq: u64,
    /// That WAL's salt, so its frames can be read even when its header is damaged; 0 when
    /// unknown (a version 1 manifest, or one repair rebuilt from the files).
    #[serde(default)]
    pub wal_salt: u64,
    /// The WAL a flush in progress is turning into a segment, written before `wal_seq`'s:
    /// replay applies its records first. Absent when no flush is under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_wal: Option<SealedWal>,
    /// The schema that segments older than the fields section (versions 1 and 2) were
    /// written under: kept once fields change while such a segment is listed, so each
    /// still maps by field id; absent otherwise, and a reader older than it refuses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_schema: Option<RawSchema>,
    /// Ids of the vector fields whose index a set-index changed while some segment still
    /// lacks the new one: a writable open builds them in the background, also where
    /// background maintenance is off. Each leaves with the publish that indexes its last
    /// segment ([`Manifest::settle_rebuilding`]); absent when none, and a reader older
    /// than it refuses a manifest that has it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rebuilding: Vec<u16>,
    /// When this version was published, in milliseconds since the Unix epoch (0: before
    /// manifest version 3, unknown).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time_ms: u64,
    /// What published it.
    #[serde(default)]
    pub operation: Operation,
    pub segments: Vec<SegmentEntry>,
}

/// A WAL that takes no more writes: its records, all synced, are being written into a
/// segment while new writes go to the next WAL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SealedWal {
    pub seq: u64,
    pub salt: u64,
    /// Records it holds, all of them synced before it was sealed.
    pub records: u64,
}

impl Manifest {
    pub(crate) fn new(schema: &Schema, options: CollectionOptions) -> Manifest {
        let mut m = Manifest {
            generation: 1,
            schema: schema.to_stored(),
            options,
            next_segment_id: 1,
            wal_seq: 1,
            wal_salt: super::wal::new_salt(),
            sealed_wal: None,
            legacy_schema: None,
            rebuilding: Vec::new(),
            time_ms: 0,
            operation: Operation::Create,
            segments: Vec::new(),
        };
        m.stamp(Operation::Create);
        m
    }

    /// Records `operation` and the time as what made this version (just before a publish).
    pub(crate) fn stamp(&mut self, operation: Operation) {
        self.operation = operation;
        self.time_ms = now_ms();
    }

    /// Rows the version holds: every segment's rows less its deleted ones (WAL records
    /// belong to no version).
    pub(crate) fn live_rows(&self) -> u64 {
        self.segments.iter().map(|s| s.rows - s.deletes.as_ref().map_or(0, |d| d.count)).sum()
    }

    /// The immutable files this version names (segments, delete files, indexes), with
    /// their sizes: what keeping the version keeps.
    pub(crate) fn data_files(&self) -> impl Iterator<Item = (&str, u64)> {
        self.segments.iter().flat_map(|s| {
            std::iter::once((s.file.as_str(), s.size))
                .chain(s.deletes.iter().map(|d| (d.file.as_str(), d.size)))
                .chain(s.indexes.iter().map(|i| (i.file.as_str(), i.size)))
        })
    }

    /// Keeps in `rebuilding` only the fields of `schema` that build an index some listed
    /// segment still lacks.
    pub(crate) fn settle_rebuilding(&mut self, schema: &Schema) {
        let segments = &self.segments;
        let lacking = |id: u16| {
            let has = |s: &SegmentEntry| s.indexes.iter().any(|e| e.field == id && e.kind == IndexKind::Vector);
            segments.iter().any(|s| !has(s))
        };
        let builds = |id: u16| {
            let pos = schema.position_of_id(id);
            pos.and_then(|p| schema.field(p).as_vector()).is_some_and(|v| v.index.builds_index())
        };
        self.rebuilding.retain(|&id| builds(id) && lacking(id));
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let body = serde_json::to_vec_pretty(self).expect("manifest serializes");
        let mut out = Vec::with_capacity(BODY_AT + body.len());
        out.extend_from_slice(&encode_header(FileKind::Manifest, self.generation));
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32c::crc32c(&body).to_le_bytes());
        out.extend_from_slice(&[0u8; 4]);
        out.extend_from_slice(&body);
        out
    }

    pub(crate) fn decode(path: &Path, bytes: &[u8]) -> Result<Manifest, StorageError> {
        let generation = decode_header_version(path, bytes, FileKind::Manifest)?.0;
        if bytes.len() < BODY_AT {
            return Err(StorageError::corrupted(path, bytes.len() as u64, "file ends inside the manifest header"));
        }
        let len = read_u64(bytes, LEN_AT);
        if len > MAX_BODY || len != (bytes.len() - BODY_AT) as u64 {
            return Err(StorageError::corrupted(
                path,
                LEN_AT as u64,
                format!("body length {len}, but {} bytes follow the header", bytes.len() - BODY_AT),
            ));
        }
        if read_u32(bytes, CRC_AT + 4) != 0 {
            return Err(StorageError::corrupted(path, (CRC_AT + 4) as u64, "reserved bytes are not zero"));
        }
        let body = &bytes[BODY_AT..];
        if crc32c::crc32c(body) != read_u32(bytes, CRC_AT) {
            return Err(StorageError::corrupted(path, BODY_AT as u64, "manifest checksum mismatch"));
        }
        let m: Manifest = serde_json::from_slice(body).map_err(|e| {
            StorageError::corrupted(
                path,
                BODY_AT as u64,
                format!("manifest JSON line {} column {}: {e}", e.line(), e.column()),
            )
        })?;
        if m.generation != generation {
            return Err(StorageError::corrupted(
                path,
                BODY_AT as u64,
                format!("generation {} in the body, {generation} in the header", m.generation),
            ));
        }
        if let Some(sealed) = &m.sealed_wal
            && sealed.seq >= m.wal_seq
        {
            return Err(StorageError::corrupted(
                path,
                BODY_AT as u64,
                format!("sealed WAL {} is not older than the live WAL {}", sealed.seq, m.wal_seq),
            ));
        }
        for s in &m.segments {
            let named_ok = s.file == super::segment_name(s.id)
                && s.deletes.as_ref().is_none_or(|d| FileKind::of_name(&d.file) == Some(FileKind::Deletes))
                // Index files written under manifest version 1 keep their names.
                && s.indexes.iter().all(|i| {
                    i.file == super::index_name(s.id, i.field, i.kind) || i.file == super::index_name_v1(s.id, i.field)
                });
            if !named_ok || s.id >= m.next_segment_id {
                return Err(StorageError::corrupted(path, BODY_AT as u64, format!("bad segment entry {}", s.file)));
            }
        }
        Ok(m)
    }

    pub(crate) fn schema(&self, path: &Path) -> Result<Schema, StorageError> {
        self.schema
            .clone()
            .into_schema()
            .map_err(|e| StorageError::corrupted(path, BODY_AT as u64, format!("stored schema is invalid: {e}")))
    }

    /// The layout of the version 1 and 2 segments it lists (see `legacy_schema`); `None`:
    /// the schema's own.
    pub(crate) fn legacy_layout(&self, path: &Path) -> Result<Option<Layout>, StorageError> {
        let Some(raw) = &self.legacy_schema else { return Ok(None) };
        let schema = raw.clone().into_schema().map_err(|e| {
            StorageError::corrupted(path, BODY_AT as u64, format!("stored legacy schema is invalid: {e}"))
        })?;
        Ok(Some(Layout::of(&schema)))
    }

    /// Writes this manifest and points `CURRENT` at it (see the module docs).
    pub(crate) fn publish(&self, dir: &Path) -> Result<(), PublishError> {
        let name = super::manifest_name(self.generation);
        let current_tmp = dir.join("CURRENT.tmp");
        let prepared = super::write_file_atomic(dir, &name, &self.encode()).and_then(|_| {
            let mut f = DiskFile::create(&current_tmp)?;
            f.write_all(format!("{name}\n").as_bytes())?;
            f.sync_all()?;
            // The new files' names must be durable before CURRENT can point at them.
            super::sync_dir(dir)
        });
        if let Err(e) = prepared {
            let _ = disk::remove_file(&current_tmp);
            let _ = disk::remove_file(&dir.join(&name));
            return Err(PublishError::NotPublished(e));
        }
        // From the rename on, an error leaves unknown which generation the disk holds.
        super::disk::rename(&current_tmp, &dir.join("CURRENT"))
            .and_then(|()| super::sync_dir(dir))
            .map_err(PublishError::Unknown)
    }
}

/// A publish that failed, and whether the old generation is certainly still the live one.
#[derive(Debug)]
pub enum PublishError {
    /// Failed before `CURRENT` was replaced: the old generation is live, the new files
    /// are unpublished leftovers.
    NotPublished(StorageError),
    /// Failed in or after the rename: either generation may be live after a crash.
    Unknown(StorageError),
}

impl PublishError {
    pub fn into_inner(self) -> StorageError {
        match self {
            PublishError::NotPublished(e) | PublishError::Unknown(e) => e,
        }
    }
}

impl From<PublishError> for StorageError {
    fn from(e: PublishError) -> StorageError {
        e.into_inner()
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Reads `CURRENT` and returns the live manifest's file name.
pub(crate) fn read_current(dir: &Path) -> Result<String, StorageError> {
    let path = dir.join("CURRENT");
    let text = match super::disk::read(&path) {
        Ok(t) => t,
        Err(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Err(StorageError::NotACollection { path: dir.to_path_buf() });
        }
        Err(e) => return Err(e),
    };
    let name = std::str::from_utf8(&text).ok().and_then(|t| t.strip_suffix('\n')).unwrap_or("");
    if FileKind::of_name(name) != Some(FileKind::Manifest) {
        return Err(StorageError::corrupted(
            &path,
            0,
            format!("expected one line `MANIFEST-<generation>`, found {:?}", String::from_utf8_lossy(&text)),
        ));
    }
    Ok(name.to_string())
}

/// Reads the live manifest.
pub(crate) fn load(dir: &Path) -> Result<Manifest, StorageError> {
    let name = read_current(dir)?;
    let path = dir.join(&name);
    let bytes = super::disk::read(&path)?;
    Manifest::decode(&path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Field, ScalarType};

    #[test]
    fn round_trip_and_damage() {
        let schema = Schema::builder("t").field(Field::scalar("a", ScalarType::Int32)).build().unwrap();
        let m = Manifest::new(&schema, CollectionOptions::default());
        let bytes = m.encode();
        let p = Path::new("MANIFEST-000001");
        let back = Manifest::decode(p, &bytes).unwrap();
        assert_eq!(back.schema(p).unwrap(), schema);
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x20;
            assert!(Manifest::decode(p, &bad).is_err(), "byte {i}");
        }
        for cut in 0..bytes.len() {
            assert!(Manifest::decode(p, &bytes[..cut]).is_err(), "cut {cut}");
        }
    }
}
