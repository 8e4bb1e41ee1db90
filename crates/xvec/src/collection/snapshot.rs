//! A snapshot: one consistent view of a collection (its segments, their deleted rows and
//! the mutable segment) that queries pin. Writers publish new snapshots; a pinned one
//! keeps its files and memory alive until the last query using it returns.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use roaring::RoaringBitmap;

use super::mem::{ChunkCodes, MemSegment};
use crate::index::field_indexes::FieldIndexes;
use crate::index::quant::fastscan::ScanCodes;
use crate::index::segment_index::SegmentIndex;
use crate::schema::{FieldType, Schema};
use crate::storage::column::SegmentView;
use crate::storage::manifest::{DeletesEntry, IndexEntry, SegmentEntry};
use crate::storage::segment::Segment;
use crate::value::Value;

/// Makes `next` the snapshot queries start from and returns the one it replaced (for the
/// caller to release after the writer lock).
pub(crate) fn install(current: &RwLock<Arc<Snapshot>>, next: Snapshot) -> Arc<Snapshot> {
    std::mem::replace(&mut *current.write().expect("snapshot lock poisoned"), Arc::new(next))
}

/// Scan codes per schema field of one segment (see [`SegmentRef::scan`]).
pub(crate) type ScanCodesByField = Vec<Option<Arc<ScanCodes>>>;

/// An immutable segment as seen by one snapshot.
#[derive(Clone, Debug)]
pub(crate) struct SegmentRef {
    pub segment: Arc<Segment>,
    pub deleted: Arc<RoaringBitmap>,
    /// The delete file this state was read from, if the deletes are published.
    pub deletes_file: Option<DeletesEntry>,
    /// True when `deleted` holds rows not yet written to a delete file.
    pub dirty: bool,
    /// Open index per schema field (`None`: not built, or not a vector field).
    pub indexes: Vec<Option<Arc<SegmentIndex>>>,
    /// The index files behind `indexes`, as the manifest lists them.
    pub index_files: Vec<IndexEntry>,
    /// Scan codes per schema field, for vector fields whose approximate index is not
    /// built yet (see [`fastscan`]); in memory only.
    pub scan: ScanCodesByField,
    /// Open scalar indexes per schema field (their files are among `index_files`).
    pub scalar: Vec<FieldIndexes>,
}

impl SegmentRef {
    /// The scan codes `segment` needs given its open `indexes`: one set per vector field
    /// with an approximate index not built, taken from `old` (the same segment's codes in
    /// an earlier snapshot) when it has them, else encoded from the vectors.
    pub(crate) fn scan_codes(
        schema: &Schema,
        segment: &Segment,
        indexes: &[Option<Arc<SegmentIndex>>],
        old: Option<&[Option<Arc<ScanCodes>>]>,
    ) -> ScanCodesByField {
        (0..schema.fields().len())
            .map(|f| match schema.field(f).as_vector() {
                Some(v) if v.index.is_approximate() && indexes[f].is_none() => {
                    Some(old.and_then(|o| o.get(f).cloned().flatten()).unwrap_or_else(|| {
                        Arc::new(ScanCodes::of_column(&segment.vector(f), segment.rows(), v.metric))
                    }))
                }
                _ => None,
            })
            .collect()
    }

    /// Rows a read leaves out: the deleted ones, and those in damaged blocks.
    pub(crate) fn hidden(&self) -> Cow<'_, RoaringBitmap> {
        match self.segment.damage() {
            Some(d) => Cow::Owned(&*self.deleted | &d.rows),
            None => Cow::Borrowed(&self.deleted),
        }
    }

    /// Live rows no read can reach: not deleted, but in damaged blocks.
    pub(crate) fn unreadable(&self) -> u64 {
        self.segment.damage().map_or(0, |d| d.rows.difference_len(&self.deleted))
    }

    /// The segment as the manifest lists it.
    /// The vector index files the manifest lists for this segment that did not open
    /// (damaged or missing): their fields' searches of it scan exactly.
    pub(crate) fn unusable_indexes(&self, schema: &Schema) -> Vec<String> {
        (self.index_files.iter().filter(|ie| ie.kind == crate::storage::IndexKind::Vector))
            .filter(|ie| schema.position_of_id(ie.field).is_some_and(|pos| self.indexes[pos].is_none()))
            .map(|ie| ie.file.clone())
            .collect()
    }

    pub(crate) fn entry(&self) -> SegmentEntry {
        SegmentEntry {
            id: self.segment.id(),
            file: crate::storage::segment_name(self.segment.id()),
            rows: self.segment.rows() as u64,
            size: self.segment.file_len(),
            deletes: self.deletes_file.clone(),
            indexes: self.index_files.clone(),
        }
    }
}

/// One searchable part of a snapshot.
pub(crate) struct Source<'a> {
    pub position: u32,
    pub view: &'a dyn SegmentView,
    /// Rows left out: deleted, or in a damaged block of the segment.
    pub deleted: Cow<'a, RoaringBitmap>,
    pub indexes: &'a [Option<Arc<SegmentIndex>>],
    /// Scan codes per field (see [`ScanCodes`]).
    pub scan: SourceCodes<'a>,
    /// Scalar indexes per field (none for a memtable chunk).
    pub scalar: &'a [FieldIndexes],
}

/// A source's scan codes: a segment's, made when it was opened or flushed, or a memtable
/// chunk's, made when first asked for.
#[derive(Clone, Copy)]
pub(crate) enum SourceCodes<'a> {
    Segment(&'a [Option<Arc<ScanCodes>>]),
    Chunk(ChunkCodes<'a>),
}

impl<'a> Source<'a> {
    /// The scan codes of vector field `field`, when its rows are scanned with them.
    pub(crate) fn scan_codes(&self, field: usize) -> Option<&'a ScanCodes> {
        match self.scan {
            SourceCodes::Segment(codes) => codes.get(field).and_then(|c| c.as_deref()),
            SourceCodes::Chunk(codes) => codes.field(field),
        }
    }
}

/// Where the live version of a key is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Row of the segment at this position in the snapshot.
    Segment(usize, u32),
    /// Row of the mutable segment.
    Mem(u32),
    /// Row of the frozen memtable a flush is writing out.
    Frozen(u32),
}

/// One consistent view of a collection; cheap to clone, safe to share across threads.
///
/// `Snapshot` is `Send + Sync` (checked at compile time): its parts are immutable and
/// reference-counted, so a pinned snapshot can be queried from many threads at once while
/// the collection moves on.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub(crate) schema: Arc<Schema>,
    pub(crate) generation: u64,
    pub(crate) segments: Vec<SegmentRef>,
    /// The memtable a flush in progress is writing into a segment (its rows are in the
    /// sealed WAL); searched like `mem`, and deletes reach it, but it takes no new rows.
    pub(crate) frozen: Option<MemSegment>,
    pub(crate) mem: MemSegment,
    /// WAL records applied on top of the generation (the sealed WAL's included).
    pub(crate) wal_records: u64,
    /// Ids of the vector fields a set-index is rebuilding (the manifest's `rebuilding`).
    pub(crate) rebuilding: Vec<u16>,
    /// The lease that keeps an older version's files ([`super::Collection::snapshot_at`]);
    /// `None` for the handle's own snapshots, whose files their maps keep.
    pub(crate) pin: Option<Arc<crate::storage::versions::lease::Lease>>,
}

impl Snapshot {
    /// This state as a publish of `generation` with `segments` leaves it: no memtable
    /// frozen (a publish finishes a flush or needs none), the live memtable kept with
    /// `wal_records` on top.
    pub(crate) fn republished(&self, generation: u64, segments: Vec<SegmentRef>, wal_records: u64) -> Snapshot {
        Snapshot {
            schema: self.schema.clone(),
            generation,
            segments,
            frozen: None,
            mem: self.mem.clone(),
            wal_records,
            rebuilding: self.rebuilding.clone(),
            pin: None,
        }
    }

    /// The schema the snapshot's data follows.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Manifest generation this snapshot is based on.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// WAL records this snapshot holds on top of its generation (written since the
    /// generation was published).
    pub fn wal_records(&self) -> u64 {
        self.wal_records
    }

    /// This snapshot published as `generation` with `segments` in place of its own (the
    /// memtables and the WAL records on top stay): what an optimize or an alter installs.
    pub(crate) fn with_segments(&self, generation: u64, segments: Vec<SegmentRef>) -> Snapshot {
        Snapshot { generation, segments, ..self.clone() }
    }

    /// Live documents, but those in damaged blocks of a segment (see
    /// [`Stats::degraded`](super::Stats::degraded)).
    pub fn count(&self) -> u64 {
        self.segments.iter().map(|s| s.segment.rows() as u64 - s.deleted.len() - s.unreadable()).sum::<u64>()
            + self.mems().map(|m| m.live_count() as u64).sum::<u64>()
    }

    /// The frozen memtable, if any, then the mutable one: the order rows were written.
    pub(crate) fn mems(&self) -> impl Iterator<Item = &MemSegment> {
        self.frozen.iter().chain([&self.mem])
    }

    /// Finds the live version of `key`: the mutable segment first, then the frozen one,
    /// then segments newest first (an older part can only hold deleted versions of a key
    /// a newer one has).
    pub fn locate(&self, key: &str) -> Option<Location> {
        if let Some(r) = self.mem.find(key) {
            return Some(Location::Mem(r));
        }
        if let Some(r) = self.frozen.as_ref().and_then(|f| f.find(key)) {
            return Some(Location::Frozen(r));
        }
        for (i, s) in self.segments.iter().enumerate().rev() {
            if let Some(r) = s.segment.find_key(key)
                && !s.deleted.contains(r)
            {
                return Some(Location::Segment(i, r));
            }
        }
        None
    }

    /// Up to `limit` live keys starting with `prefix`, sorted: what a completer offers.
    /// Bounded work on a large collection: each segment walks its key order from the
    /// prefix and stops after `limit` live keys; only the mutable segment is scanned whole.
    pub fn keys_with_prefix(&self, prefix: &str, limit: usize) -> Vec<String> {
        let in_mem: Vec<String> = self.mems().flat_map(|m| m.keys_with_prefix(prefix)).collect();
        let mut found: std::collections::BTreeSet<&str> = in_mem.iter().map(String::as_str).collect();
        while found.len() > limit {
            found.pop_last();
        }
        for s in &self.segments {
            let keys = (&*s.segment as &dyn SegmentView).keys();
            let hidden = s.hidden();
            let live = s.segment.rows_with_key_prefix(prefix).filter(|r| !hidden.contains(*r));
            for key in live.map(|r| keys.get_str(r as usize)).take(limit) {
                if found.len() == limit && found.last().is_some_and(|last| key >= *last) {
                    break;
                }
                found.insert(key);
                if found.len() > limit {
                    found.pop_last();
                }
            }
        }
        found.into_iter().map(str::to_string).collect()
    }

    pub(crate) fn view(&self, loc: Location) -> (&dyn SegmentView, usize) {
        match loc {
            Location::Segment(i, r) => (&*self.segments[i].segment as &dyn SegmentView, r as usize),
            Location::Mem(r) => self.mem.view(r),
            Location::Frozen(r) => self.frozen.as_ref().expect("a frozen location has a frozen memtable").view(r),
        }
    }

    /// Every value of the row at `loc`, in schema order.
    pub(crate) fn row_values(&self, loc: Location) -> Vec<Value> {
        let (src, row) = self.view(loc);
        (0..self.schema.fields().len()).map(|f| field_value(&self.schema, src, f, row)).collect()
    }

    /// The key and chosen fields of a row.
    pub(crate) fn project(
        &self,
        src: &dyn SegmentView,
        row: usize,
        fields: &[usize],
    ) -> (String, BTreeMap<String, Value>) {
        let key = src.keys().get_str(row).to_string();
        let mut out = BTreeMap::new();
        for &f in fields {
            let v = field_value(&self.schema, src, f, row);
            if v != Value::Null {
                out.insert(self.schema.field(f).name.clone(), v);
            }
        }
        (key, out)
    }

    /// Segment views then memtable chunks (frozen, then mutable), in search order, with
    /// the position the top-k uses for ties and [`Snapshot::source`] resolves.
    pub(crate) fn sources(&self) -> impl Iterator<Item = Source<'_>> {
        let segments = self.segments.iter().enumerate().map(|(i, s)| Source {
            position: i as u32,
            view: &*s.segment as &dyn SegmentView,
            deleted: s.hidden(),
            indexes: &s.indexes,
            scan: SourceCodes::Segment(&s.scan),
            scalar: &s.scalar,
        });
        let chunks = self.mems().flat_map(|m| (0..m.chunk_count()).map(|i| m.part(i).expect("chunk in range")));
        let first = self.segments.len();
        let chunks = chunks.enumerate().map(move |(i, part)| Source {
            position: (first + i) as u32,
            view: part.view,
            deleted: Cow::Borrowed(part.deleted),
            indexes: &[],
            scan: SourceCodes::Chunk(part.scan),
            scalar: &[],
        });
        segments.chain(chunks)
    }

    /// Share of live rows covered by a built index, per vector field (1.0 = complete).
    pub fn index_completeness(&self, field: usize) -> f64 {
        let total = self.count();
        if total == 0 {
            return 1.0;
        }
        let indexed: u64 = self
            .segments
            .iter()
            .filter(|s| s.indexes.get(field).is_some_and(|i| i.is_some()))
            .map(|s| s.segment.rows() as u64 - s.deleted.len())
            .sum();
        indexed as f64 / total as f64
    }

    /// Fails naming the rows when `loc` is a row of a damaged block: what a read by key
    /// returns in place of its values.
    pub(crate) fn check_readable(&self, key: &str, loc: Location) -> Result<(), crate::error::StorageError> {
        let Location::Segment(i, r) = loc else { return Ok(()) };
        let s = &self.segments[i];
        match s.segment.damage() {
            Some(d) if d.rows.contains(r) => Err(crate::error::StorageError::DamagedRows {
                path: s.segment.path().to_path_buf(),
                rows: format!("key {key:?} (row {r}) is"),
                what: format!("it lies in a damaged block: {}", d.blocks.join("; ")),
            }),
            _ => Ok(()),
        }
    }

    /// Fails when `key`, found nowhere, may be among the rows of a segment whose keys are
    /// unreadable: "not found" would be a guess.
    pub(crate) fn check_absent(&self, key: &str) -> Result<(), crate::error::StorageError> {
        let lost =
            self.segments.iter().find_map(|s| s.segment.damage().filter(|d| !d.keys_lost.is_empty()).map(|d| (s, d)));
        match lost {
            Some((s, d)) => Err(crate::error::StorageError::DamagedRows {
                path: s.segment.path().to_path_buf(),
                rows: format!(
                    "key {key:?} is not among the readable rows; {} row(s) whose keys are",
                    d.keys_lost.len()
                ),
                what: format!("damaged blocks: {}", d.blocks.join("; ")),
            }),
            None => Ok(()),
        }
    }

    pub(crate) fn source(&self, position: u32) -> &dyn SegmentView {
        let position = position as usize;
        if let Some(s) = self.segments.get(position) {
            return &*s.segment;
        }
        let mut chunk = position - self.segments.len();
        if let Some(f) = &self.frozen {
            if chunk < f.chunk_count() {
                return f.part(chunk).expect("chunk in range").view;
            }
            chunk -= f.chunk_count();
        }
        self.mem.part(chunk).expect("a source's position").view
    }
}

fn field_value(schema: &Schema, src: &dyn SegmentView, f: usize, row: usize) -> Value {
    match schema.field(f).ty {
        FieldType::Vector(_) => src.vector(f).value(row),
        FieldType::Array(_) => src.array(f).value(row),
        FieldType::Scalar(_) => src.scalar(f).value(row),
        FieldType::Sparse(_) => src.array(f).sparse_value(row),
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::{Field, ScalarType};
    use crate::{Collection, Doc, Schema};

    #[test]
    fn keys_with_prefix_merges_segments_and_memory_live_only_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let schema = Schema::builder("k").field(Field::scalar("n", ScalarType::Int64)).build().unwrap();
        let coll = Collection::create(dir.path(), schema, Default::default()).unwrap();
        let docs = |keys: &[&str]| keys.iter().map(|k| Doc::new(*k).set("n", 1i64)).collect::<Vec<_>>();
        coll.insert(docs(&["ab3", "ab1", "b", "ab5", "a"])).unwrap();
        coll.flush().unwrap();
        coll.insert(docs(&["ab2", "ab4", "abc", "ac"])).unwrap();
        coll.delete(&["ab3"]).unwrap();
        coll.flush().unwrap();
        coll.insert(docs(&["ab0"])).unwrap();
        // ab1 is replaced by a newer version: listed once.
        coll.upsert(docs(&["ab1"])).unwrap();
        let snap = coll.snapshot();
        assert_eq!(snap.keys_with_prefix("ab", 100), ["ab0", "ab1", "ab2", "ab4", "ab5", "abc"]);
        assert_eq!(snap.keys_with_prefix("ab", 3), ["ab0", "ab1", "ab2"]);
        assert_eq!(snap.keys_with_prefix("", 2), ["a", "ab0"]);
        assert!(snap.keys_with_prefix("zz", 100).is_empty());
        assert_eq!(snap.keys_with_prefix("ab5", 100), ["ab5"]);
    }
}
