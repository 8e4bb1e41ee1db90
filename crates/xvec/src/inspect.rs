//! What an open collection holds, for `xvec inspect`: its segments and their files, its
//! fields and how much of each is indexed, the topology of a field's graphs, the sizes of
//! its IVF lists, the node blocks of its disk indexes, the memory
//! the engine accounts for beside the process RSS, the WAL, and where a key lives.
//!
//! Everything here reads a pinned snapshot (or the directory, for WAL files); nothing
//! changes the collection.

use std::path::Path;
use std::time::UNIX_EPOCH;

use roaring::RoaringBitmap;
use serde::Serialize;

use crate::collection::Collection;
use crate::error::{Error, StorageError};
use crate::schema::FieldKind;
use crate::storage::column::SegmentView;
use crate::storage::lock::WriterLock;
use crate::storage::wal::Record;
use crate::storage::{FileKind, disk, segment_name, wal_name};
use crate::verify::GraphReport;
use crate::verify::scan;
use crate::verify::topology::{GraphTopology, check_disk, check_index};

/// One segment and its files.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SegmentInfo {
    /// The segment's id, unique in the collection and increasing with age.
    pub id: u64,
    /// The segment file's name in the collection directory.
    pub file: String,
    /// Rows stored, deleted ones included.
    pub rows: u64,
    /// Rows marked deleted or superseded in this snapshot (unflushed marks included).
    pub deleted: u64,
    /// Size of the segment file.
    pub bytes: u64,
    /// The published delete file, `None` when no delete of this segment is flushed.
    pub deletes_file: Option<String>,
    /// Size of the delete file (0 without one).
    pub deletes_bytes: u64,
    /// Index files with their sizes.
    pub indexes: Vec<(String, u64)>,
    /// When the segment file was written (its modification time; segments are written
    /// once), in seconds since the Unix epoch.
    pub created: Option<u64>,
}

fn file_len(dir: &Path, name: &str) -> u64 {
    disk::metadata(&dir.join(name)).map_or(0, |m| m.len())
}

/// The snapshot's segments, in snapshot order, with their files and sizes.
///
/// ```
/// use xvec::{Collection, Doc, Field, Metric, Schema, VectorType};
/// let dir = tempfile::tempdir()?;
/// let schema = Schema::builder("s").field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2)).build()?;
/// let coll = Collection::create(dir.path(), schema, Default::default())?;
/// coll.insert(vec![Doc::new("a").set("emb", vec![0.0f32, 1.0])])?;
/// coll.flush()?;
/// let segments = xvec::inspect::segments(&coll);
/// assert_eq!(segments.len(), 1);
/// assert_eq!((segments[0].rows, segments[0].deleted), (1, 0));
/// assert!(dir.path().join(&segments[0].file).exists());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn segments(coll: &Collection) -> Vec<SegmentInfo> {
    let dir = coll.dir();
    coll.snapshot()
        .segments
        .iter()
        .map(|s| {
            let file = segment_name(s.segment.id());
            SegmentInfo {
                id: s.segment.id(),
                rows: s.segment.rows() as u64,
                deleted: s.deleted.len(),
                bytes: s.segment.file_len(),
                deletes_file: s.deletes_file.as_ref().map(|d| d.file.clone()),
                deletes_bytes: s.deletes_file.as_ref().map_or(0, |d| d.size),
                indexes: s.index_files.iter().map(|i| (i.file.clone(), file_len(dir, &i.file))).collect(),
                created: disk::metadata(&dir.join(&file))
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map(|d| d.as_secs()),
                file,
            }
        })
        .collect()
}

/// One field and how far its index is built.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldInfo {
    /// The field's name.
    pub name: String,
    /// Its type's schema name (`int32`, `vector_fp32`, ...).
    pub ty: String,
    /// Whether it may be null.
    pub nullable: bool,
    /// Dimension, vector fields only.
    pub dim: Option<u32>,
    /// Metric name, vector fields only.
    pub metric: Option<String>,
    /// Index type and parameters, e.g. `hnsw m=16 efc=200 ef=64 int8+rot`; a scalar
    /// field's index kinds, e.g. `inverted+range` or `inverted+fts`; `sparse` for a
    /// sparse field.
    pub index: Option<String>,
    /// Quantization name (`none` when unquantized), vector fields only.
    pub quantize: Option<String>,
    /// Segments with a built index of this field, of all segments.
    pub indexed_segments: u64,
    /// Segments in the snapshot.
    pub segments: u64,
    /// Share of live rows an index covers (1.0: complete; for a scalar field, every
    /// index it declares, full-text included; a sparse field's sparse index). `None`
    /// when the field needs no index file (a scalar field without indexes, unquantized
    /// flat).
    pub completeness: Option<f64>,
}

/// Every schema field, in schema order, with how far its index is built.
pub fn fields(coll: &Collection) -> Vec<FieldInfo> {
    let snap = coll.snapshot();
    snap.schema()
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let v = f.as_vector();
            let sparse = matches!(f.ty, crate::schema::FieldType::Sparse(_));
            let scalar = !f.scalar_indexes.is_empty() || f.text.is_some() || sparse;
            let builds = v.is_some_and(|v| v.index.builds_index()) || scalar;
            let has_index = |s: &&crate::collection::SegmentRef| match v {
                Some(_) => s.indexes.get(i).is_some_and(|x| x.is_some()),
                None => s.scalar.get(i).is_some_and(|x| {
                    f.scalar_indexes.iter().all(|&k| x.get(k).is_some())
                        && (f.text.is_none() || x.text.is_some())
                        && (!sparse || x.sparse.is_some())
                }),
            };
            let completeness = || {
                let total = snap.count();
                let covered: u64 = (snap.segments.iter().filter(|s| has_index(s)))
                    .map(|s| s.segment.rows() as u64 - s.deleted.len())
                    .sum();
                if total == 0 { 1.0 } else { covered as f64 / total as f64 }
            };
            let scalar_kinds = || {
                let mut kinds: Vec<&str> = f.scalar_indexes.iter().map(|k| k.name()).collect();
                kinds.extend(f.text.is_some().then_some("fts"));
                kinds.extend(sparse.then_some("sparse"));
                kinds.join("+")
            };
            FieldInfo {
                name: f.name.clone(),
                ty: f.ty.name().into(),
                nullable: f.nullable,
                dim: v.map(|v| v.dim),
                metric: v.map(|v| v.metric.name().into()),
                index: v.map(|v| v.index.describe()).or_else(|| scalar.then(scalar_kinds)),
                quantize: v.map(|v| v.index.quant().quantize.name().into()),
                indexed_segments: snap.segments.iter().filter(|s| has_index(s)).count() as u64,
                segments: snap.segments.len() as u64,
                completeness: builds.then(completeness),
            }
        })
        .collect()
}

/// The position of vector field `field` in the snapshot's schema.
fn vector_field(snap: &crate::collection::Snapshot, field: &str) -> Result<usize, Error> {
    Ok(snap.schema().resolve(FieldKind::Vector, Some(field))?)
}

/// The graphs of one vector field, one per indexed segment.
pub fn graphs(coll: &Collection, field: &str) -> Result<Vec<GraphReport>, Error> {
    let snap = coll.snapshot();
    let idx = vector_field(&snap, field)?;
    let mut out = Vec::new();
    for s in &snap.segments {
        let Some(index) = s.indexes.get(idx).and_then(|i| i.as_ref()) else { continue };
        let col = s.segment.vector(idx);
        let mut ignored: RoaringBitmap = (*s.deleted).clone();
        ignored.extend((0..s.segment.rows() as u32).filter(|&r| !col.validity.is_valid(r as usize)));
        let topology = match index.disk() {
            Some(g) => Some(check_disk(g, &ignored)?),
            None => check_index(index, &ignored),
        };
        let Some(GraphTopology { kind, entry, layers, .. }) = topology else {
            continue;
        };
        out.push(GraphReport {
            file: index.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            segment: s.segment.id(),
            field: field.to_string(),
            kind: kind.into(),
            nodes: layers.first().map_or(0, |l| l.nodes),
            edges: layers.iter().map(|l| l.edges).sum(),
            entry,
            layers,
        });
    }
    Ok(out)
}

/// The IVF lists of one segment's index of a field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ListsReport {
    /// The index file holding the lists.
    pub file: String,
    /// Id of the segment it indexes.
    pub segment: u64,
    /// Lists trained for the segment (fewer than `nlist` for a small one).
    pub lists: u64,
    /// Entries over all lists: one per row with a vector, plus the SOAR spills.
    pub entries: u64,
    /// Entries beyond a row's first (SOAR's second assignments).
    pub duplicates: u64,
    /// Entries of deleted rows, which searches skip.
    pub deleted_entries: u64,
    /// Lists with no entry.
    pub empty: u64,
    /// Entries of the smallest list.
    pub smallest: u64,
    /// Entries of the median list.
    pub median: u64,
    /// Entries of the largest list.
    pub largest: u64,
    /// `lists × Σ size² / entries²` as faiss reports it: 1.0 when every list is the same
    /// size; the factor by which a probe scans more entries than balanced lists would.
    pub imbalance: f64,
}

/// The IVF lists of one vector field, one report per indexed segment.
pub fn lists(coll: &Collection, field: &str) -> Result<Vec<ListsReport>, Error> {
    let snap = coll.snapshot();
    let idx = vector_field(&snap, field)?;
    let mut out = Vec::new();
    for s in &snap.segments {
        let Some(index) = s.indexes.get(idx).and_then(|i| i.as_ref()) else { continue };
        let Some(ivf) = index.ivf() else { continue };
        let mut sizes: Vec<u64> = (0..ivf.lists()).map(|l| ivf.list(l).len() as u64).collect();
        let entries = ivf.ids.len() as u64;
        let mut seen = RoaringBitmap::new();
        let duplicates = ivf.ids.iter().filter(|&&r| !seen.insert(r)).count() as u64;
        let deleted_entries = ivf.ids.iter().filter(|&&r| s.deleted.contains(r)).count() as u64;
        let squares: f64 = sizes.iter().map(|&n| (n as f64).powi(2)).sum();
        let imbalance = if entries == 0 { 1.0 } else { sizes.len() as f64 * squares / (entries as f64).powi(2) };
        sizes.sort_unstable();
        out.push(ListsReport {
            file: index.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            segment: s.segment.id(),
            lists: sizes.len() as u64,
            entries,
            duplicates,
            deleted_entries,
            empty: sizes.iter().take_while(|&&n| n == 0).count() as u64,
            smallest: sizes.first().copied().unwrap_or(0),
            median: sizes.get(sizes.len() / 2).copied().unwrap_or(0),
            largest: sizes.last().copied().unwrap_or(0),
            imbalance,
        });
    }
    Ok(out)
}

/// The node blocks of one segment's disk index of a field: their layout, the entry
/// point and the cache, and with a node asked for, that node as its block holds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiskReport {
    /// The index file holding the blocks.
    pub file: String,
    /// Id of the segment it indexes.
    pub segment: u64,
    /// Dimension of the stored vectors.
    pub dim: u64,
    /// Their element type (`fp32`, `fp16`, `int8`), the column's own.
    pub elem: String,
    /// Most neighbours a node keeps.
    pub degree: u64,
    /// Nodes: one per row of the segment.
    pub nodes: u64,
    /// Bytes of one node (vector, norm, count, neighbour slots).
    pub node_bytes: u64,
    /// Bytes of one block: whole 4 KiB pages, the last 4 bytes its checksum.
    pub block_bytes: u64,
    /// Nodes one block holds.
    pub nodes_per_block: u64,
    /// Blocks of the segment's nodes.
    pub blocks: u64,
    /// File offset of block 0.
    pub first_block_offset: u64,
    /// The entry point every search starts at.
    pub medoid: u64,
    /// Nodes whose neighbour lists this handle keeps in memory (the entry's neighbourhood
    /// at open, then the nodes its searches read).
    pub cached_nodes: u64,
    /// Bytes of that cache.
    pub cache_bytes: u64,
    /// The node asked for, when the segment has it.
    pub node: Option<DiskNode>,
}

/// One node of a disk index, as read from its block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiskNode {
    /// The node (the segment's row).
    pub id: u64,
    /// Its block.
    pub block: u64,
    /// The file offset of the node in that block.
    pub offset: u64,
    /// Its neighbours, in stored order.
    pub neighbors: Vec<u32>,
    /// The stored norm (1 where the metric keeps none).
    pub norm: f32,
    /// The first elements of its vector, as f32.
    pub vector_head: Vec<f32>,
}

/// Elements of a node's vector [`DiskNode::vector_head`] shows.
const VECTOR_HEAD: usize = 8;

/// The node blocks of one vector field's disk indexes, one report per indexed segment,
/// each with `node` (a row of the segment) read from its block when given. Fails when a
/// block read fails its check.
pub fn disk(coll: &Collection, field: &str, node: Option<u32>) -> Result<Vec<DiskReport>, Error> {
    let snap = coll.snapshot();
    let idx = vector_field(&snap, field)?;
    let mut out = Vec::new();
    for s in &snap.segments {
        let Some(index) = s.indexes.get(idx).and_then(|i| i.as_ref()) else { continue };
        let Some(g) = index.disk() else { continue };
        let (l, stats) = (g.layout(), g.stats());
        let node = match node.filter(|&n| (n as usize) < l.nodes) {
            Some(n) => Some(g.with_node(n, |x| {
                let col = x.column();
                DiskNode {
                    id: u64::from(n),
                    block: l.block_of(n) as u64,
                    offset: g.block_offset(l.block_of(n)) + l.slot_of(n) as u64,
                    neighbors: x.neighbors().to_vec(),
                    norm: x.norm(),
                    vector_head: col.row_f32(0).into_iter().take(VECTOR_HEAD).collect(),
                }
            })?),
            None => None,
        };
        out.push(DiskReport {
            file: index.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            segment: s.segment.id(),
            dim: l.dim as u64,
            elem: l.elem.name().into(),
            degree: l.degree as u64,
            nodes: l.nodes as u64,
            node_bytes: l.node_bytes() as u64,
            block_bytes: l.block_len() as u64,
            nodes_per_block: l.per_block() as u64,
            blocks: l.blocks() as u64,
            first_block_offset: g.block_offset(0),
            medoid: u64::from(g.medoid()),
            cached_nodes: stats.cached_nodes,
            cache_bytes: stats.cache_bytes,
            node,
        });
    }
    Ok(out)
}

/// The engine's memory by kind. The process's resident set is the caller's to add: the
/// engine accounts for what it holds, not for what the process around it does.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryInfo {
    /// Bytes per kind with its label, in [`MemoryUsage::by_kind`](crate::MemoryUsage::by_kind) order.
    pub by_kind: Vec<(String, u64)>,
    /// Sum of `by_kind`, in bytes.
    pub total: u64,
}

/// The memory this handle holds, by kind ([`Collection::memory`]).
pub fn memory(coll: &Collection) -> MemoryInfo {
    let m = coll.memory();
    let total = m.total();
    let by_kind = m.by_kind().into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    MemoryInfo { by_kind, total }
}

/// One WAL file of the directory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WalFile {
    /// The file name.
    pub file: String,
    /// Its size.
    pub bytes: u64,
    /// Intact records in it.
    pub records: u64,
    /// Of `records`, the puts (insert, upsert, update).
    pub puts: u64,
    /// Of `records`, the deletes.
    pub deletes: u64,
    /// Damaged frames between good ones.
    pub bad_frames: u64,
    /// Bytes after the last good frame (a batch whose write was cut short), which a
    /// writable open cuts off; 0 when the file ends cleanly.
    pub torn_bytes: u64,
    /// The WAL the live manifest names (the others are left over or in flight).
    pub live: bool,
}

/// The directory's WAL files and the state of their writer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WalInfo {
    /// Every WAL file in the directory, in name order.
    pub files: Vec<WalFile>,
    /// Records this handle appended and has not fsynced; `None` when another process
    /// (or nobody) writes.
    pub unsynced: Option<u64>,
    /// Whether this handle or another process holds the writer lock.
    pub writer_active: bool,
}

/// Scans every WAL file of the directory; fails when the live manifest cannot be read.
pub fn wal(coll: &Collection) -> Result<WalInfo, StorageError> {
    let dir = coll.dir();
    let m = crate::storage::manifest::load(dir)?;
    let live = m.wal_seq;
    let mut files = Vec::new();
    for e in crate::verify::exam::list_dir(dir)? {
        if e.kind != Some(FileKind::Wal) {
            continue;
        }
        let path = dir.join(&e.name);
        let bytes = crate::storage::disk::read(&path)?;
        let known = (e.name == wal_name(live)).then_some((m.wal_seq, m.wal_salt));
        let s = scan::scan_wal(&path, &bytes, known, &coll.schema(), &mut 0);
        let puts = s.records.iter().filter(|(_, r)| matches!(r, Record::Put(_))).count() as u64;
        files.push(WalFile {
            live: e.name == wal_name(live),
            file: e.name,
            bytes: bytes.len() as u64,
            records: s.records.len() as u64,
            puts,
            deletes: s.records.len() as u64 - puts,
            bad_frames: s.bad.len() as u64,
            torn_bytes: s.torn.map_or(0, |t| t.1),
        });
    }
    Ok(WalInfo {
        files,
        unsynced: coll.wal_unsynced(),
        writer_active: coll.is_writable() || WriterLock::is_held(dir).unwrap_or(false),
    })
}

/// A row holding some version of a key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Place {
    /// Segment file, or `unflushed` for the in-memory rows replayed from the WAL.
    pub file: String,
    /// The row in that segment.
    pub row: u32,
    /// Deleted (an older version, or the key was deleted).
    pub deleted: bool,
    /// Whether this is the version queries and fetches see (at most one place is).
    pub live: bool,
}

/// A WAL record naming a key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WalMention {
    /// The WAL file (the live one).
    pub file: String,
    /// Byte offset of the record's frame in it.
    pub offset: u64,
    /// `put` or `delete`.
    pub op: String,
}

/// Where a key lives: every row holding a version of it, newest segment last, and the
/// WAL records that name it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DocInfo {
    /// The key looked up.
    pub key: String,
    /// Every row holding a version of the key: segments in snapshot order, then unflushed rows.
    pub places: Vec<Place>,
    /// Records of the live WAL naming the key, in log order.
    pub wal: Vec<WalMention>,
}

impl DocInfo {
    /// The live version's place, `None` when the key is not live.
    pub fn live(&self) -> Option<&Place> {
        self.places.iter().find(|p| p.live)
    }
}

/// Where `key` lives; a key found nowhere gives empty lists, not an error.
pub fn doc(coll: &Collection, key: &str) -> Result<DocInfo, StorageError> {
    let snap = coll.snapshot();
    let live = snap.locate(key);
    let mut places = Vec::new();
    for (i, s) in snap.segments.iter().enumerate() {
        if let Some(row) = s.segment.find_key(key) {
            places.push(Place {
                file: segment_name(s.segment.id()),
                row,
                deleted: s.deleted.contains(row),
                live: live == Some(crate::collection::Location::Segment(i, row)),
            });
        }
    }
    for (row, deleted) in snap.mem.versions(key) {
        places.push(Place {
            file: "unflushed".into(),
            row,
            deleted,
            live: live == Some(crate::collection::Location::Mem(row)),
        });
    }
    let mut wal = Vec::new();
    let dir = coll.dir();
    let m = crate::storage::manifest::load(dir)?;
    let name = wal_name(m.wal_seq);
    let path = dir.join(&name);
    if let Ok(bytes) = crate::storage::disk::read(&path) {
        for (offset, r) in scan::scan_wal(&path, &bytes, Some((m.wal_seq, m.wal_salt)), &coll.schema(), &mut 0).records
        {
            let (k, op) = match &r {
                Record::Put(row) => (row.key.as_str(), "put"),
                Record::Delete(k) => (k.as_str(), "delete"),
            };
            if k == key {
                wal.push(WalMention { file: name.clone(), offset, op: op.into() });
            }
        }
    }
    Ok(DocInfo { key: key.to_string(), places, wal })
}
