//! What a handle reports of itself: counts and sizes (`describe`, `stats`) and the
//! engine's own accounting of the memory it holds (`inspect memory`, `xvec bench`).

use std::sync::atomic::Ordering;

use super::{Collection, background};
use crate::storage::FileKind;

/// Counts and sizes of a collection, for `describe` and `stats`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Stats {
    /// Manifest generation of the snapshot counted; each publish adds one (a flush
    /// publishes twice, at its freeze and with its segment; an optimize once).
    pub generation: u64,
    /// WAL records the snapshot holds on top of its generation.
    pub wal_records: u64,
    /// Rows queries still scan by brute force: the memtable's and those of segments whose
    /// indexes are not built yet (what background maintenance works off).
    pub unindexed_rows: u64,
    /// Background jobs (index builds, merges) published by this handle.
    pub background_jobs: u64,
    /// Disk indexes those jobs built from int8 codes alone because their rows did not fit
    /// the handle's [`memory_budget`](super::OpenOptions::memory_budget), as `optimize`
    /// does under it.
    pub background_low_memory_builds: u64,
    /// Whether a background flush or job is running now (false: maintenance is idle,
    /// or off).
    pub background_busy: bool,
    /// Whether background jobs are paused ([`Collection::pause_maintenance`]).
    pub maintenance_paused: bool,
    /// Milliseconds this handle's writes waited for the index backlog to drain.
    pub write_stall_ms: u64,
    /// Why the last background job or automatic flush failed, if the last one did.
    pub background_error: Option<String>,
    /// Why a following read-only handle could not move to the writer's newest state at
    /// its last attempt (it keeps serving the state it has).
    pub follow_error: Option<String>,
    /// Documents a query can find.
    pub live_docs: u64,
    /// Rows holding deleted or superseded versions, in segments and the mutable segment;
    /// `optimize` drops them.
    pub deleted_docs: u64,
    /// One entry per segment file, in snapshot order.
    pub segments: Vec<SegmentStats>,
    /// Rows of the mutable (unflushed) segment, superseded versions included.
    pub mem_rows: u64,
    /// Rows of a memtable a flush is writing out (searched meanwhile), superseded
    /// versions included.
    pub frozen_rows: u64,
    /// Live documents in the mutable segment.
    pub mem_live: u64,
    /// Bytes of WAL files in the directory.
    pub wal_bytes: u64,
    /// Bytes of every file in the directory (WAL, segments, indexes, manifests, ...).
    pub disk_bytes: u64,
    /// The vector fields whose index a set-index changed and is building, with how far
    /// each is (empty when none is).
    pub index_builds: Vec<IndexBuild>,
    /// The handle's [`OpenOptions::memory_budget`](super::OpenOptions::memory_budget).
    pub memory_budget: Option<u64>,
    /// Bytes searches want in memory to run at full speed: what the indexes hold (codes,
    /// graphs, lists, disk indexes' codes and caches), and the vectors searches read in
    /// place (every vector column but those a disk index serves from its blocks, and the
    /// memtable's). Past the budget, queries still answer, slower, from the page cache.
    pub memory_wanted: u64,
    /// The disk-resident indexes' blocks, cache and reads.
    pub disk: DiskUsage,
}

/// What a handle's disk-resident indexes (`"type": "disk"`) hold and have read, summed
/// over their segments: what `stats` shows beside the budget, and the benchmark's reads
/// per query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct DiskUsage {
    /// Segment indexes of the disk kind.
    pub indexes: u64,
    /// Bytes of node blocks in their files (read on demand, never held).
    pub block_bytes: u64,
    /// Bytes of their codes, held in memory.
    pub code_bytes: u64,
    /// Nodes in their caches.
    pub cached_nodes: u64,
    /// Bytes of their caches.
    pub cache_bytes: u64,
    /// Searches of their graphs (one per segment searched).
    pub searches: u64,
    /// Blocks those searches read, one `pread` each: `blocks_read / searches` is the
    /// reads per segment search.
    pub blocks_read: u64,
    /// Expanded nodes the caches served instead of a read.
    pub cache_hits: u64,
}

/// A vector field whose segments are getting the index a set-index gave it
/// ([`FieldChange::SetIndex`](crate::FieldChange::SetIndex)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct IndexBuild {
    /// The field.
    pub field: String,
    /// Its new index, as [`IndexParams::describe`](crate::IndexParams::describe) puts it.
    pub index: String,
    /// Segments whose new index is built; the others are searched by an exact scan.
    pub segments_done: usize,
    /// Segments of the snapshot.
    pub segments_total: usize,
}

/// Counts and size of one segment file, as [`Stats::segments`] lists them.
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentStats {
    /// The segment's id, unique in the collection and increasing with age.
    pub id: u64,
    /// Its file name in the collection directory.
    pub file: String,
    /// Rows stored, deleted ones included.
    pub rows: u64,
    /// Rows marked deleted or superseded.
    pub deleted: u64,
    /// Size of the segment file (index and delete files not counted).
    pub bytes: u64,
    /// Live rows in damaged blocks of the file (a checksum failed): reads leave them out
    /// until `repair` writes the segment again without them.
    pub unreadable: u64,
    /// Where the damage is, one entry per damaged section (empty when there is none).
    pub damaged: Vec<String>,
    /// Vector index files of the segment that did not open (damaged or missing): the
    /// segment is searched exactly for their fields until repair or an optimize rebuilds
    /// them.
    pub unusable_indexes: Vec<String>,
}

/// The engine's own accounting of the memory it holds, by kind.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MemoryUsage {
    /// Vector sections of mapped segments (page cache, counted in RSS once touched).
    pub mapped_vectors: u64,
    /// Other mapped segment bytes: keys, scalar columns.
    pub mapped_other: u64,
    /// Segment bytes on the heap: files read into owned buffers (`mmap = false`), and the
    /// columns made at open for fields added or widened since a file was written.
    pub owned_segments: u64,
    /// Quantized codes and their per-row params (index files).
    pub codes: u64,
    /// One-bit sketches of the rows that graph searches screen with (index files).
    pub sketches: u64,
    /// Graph links and levels (index files).
    pub graph: u64,
    /// The nodes disk-resident indexes cache (their codes are under `codes`).
    pub disk_cache: u64,
    /// IVF centroids, list offsets and list entries (index files).
    pub lists: u64,
    /// Inverted and range indexes of scalar fields (index files, mapped or read).
    pub scalar_indexes: u64,
    /// Full-text indexes of string fields (index files, mapped or read).
    pub text_indexes: u64,
    /// Inverted indexes of sparse vector fields (index files, mapped or read).
    pub sparse_indexes: u64,
    /// Sketches of the rows no index covers yet, for scanning them (in memory only).
    pub scan_codes: u64,
    /// Per-thread search scratch (visited sets, heaps), over all threads.
    pub query_scratch: u64,
    /// The mutable segment's vectors.
    pub mem_vectors: u64,
    /// The mutable segment's keys, scalars and key map.
    pub mem_other: u64,
    /// Deleted-row bitmaps.
    pub delete_bitmaps: u64,
    /// The WAL writer's frame buffer.
    pub wal_buffer: u64,
}

impl MemoryUsage {
    /// Every kind with a label for listings (`inspect memory`, `xvec bench`), in field order.
    pub fn by_kind(&self) -> [(&'static str, u64); 17] {
        // Destructured so that a new kind cannot be left out.
        let &MemoryUsage {
            mapped_vectors,
            mapped_other,
            owned_segments,
            codes,
            sketches,
            graph,
            disk_cache,
            lists,
            scalar_indexes,
            text_indexes,
            sparse_indexes,
            scan_codes,
            query_scratch,
            mem_vectors,
            mem_other,
            delete_bitmaps,
            wal_buffer,
        } = self;
        [
            ("mapped vectors", mapped_vectors),
            ("mapped keys and scalars", mapped_other),
            ("owned segments", owned_segments),
            ("codes", codes),
            ("sketches", sketches),
            ("graph", graph),
            ("disk node cache", disk_cache),
            ("IVF lists", lists),
            ("scalar indexes", scalar_indexes),
            ("full-text indexes", text_indexes),
            ("sparse indexes", sparse_indexes),
            ("scan codes", scan_codes),
            ("query scratch", query_scratch),
            ("unflushed vectors", mem_vectors),
            ("unflushed other", mem_other),
            ("delete bitmaps", delete_bitmaps),
            ("WAL buffer", wal_buffer),
        ]
    }

    /// Sum over every kind, in bytes.
    pub fn total(&self) -> u64 {
        self.by_kind().iter().map(|&(_, bytes)| bytes).sum()
    }
}

/// How far each rebuild `snap` lists is.
fn index_builds(snap: &super::Snapshot) -> Vec<IndexBuild> {
    let schema = &snap.schema;
    let fields = snap.rebuilding.iter().filter_map(|&id| schema.position_of_id(id));
    let build = |f: usize| {
        let v = schema.field(f).as_vector()?;
        Some(IndexBuild {
            field: schema.field(f).name.clone(),
            index: v.index.describe(),
            segments_done: snap.segments.iter().filter(|s| s.indexes[f].is_some()).count(),
            segments_total: snap.segments.len(),
        })
    };
    fields.filter_map(build).collect()
}

impl Stats {
    /// How far [`Stats::memory_wanted`] exceeds the memory budget, in bytes; `None`
    /// without a budget or within it.
    pub fn over_budget(&self) -> Option<u64> {
        self.memory_budget.and_then(|b| self.memory_wanted.checked_sub(b)).filter(|&over| over > 0)
    }

    /// The segments with damaged blocks, each as `degraded: N rows unreadable in
    /// SEG-…, run `xvec repair``, and the index files that did not open: what
    /// `describe`, `stats` and the shell say.
    pub fn degraded(&self) -> Vec<String> {
        let rows = (self.segments.iter().filter(|s| !s.damaged.is_empty()))
            .map(|s| format!("degraded: {} rows unreadable in {}, run `xvec repair`", s.unreadable, s.file));
        let indexes = self.segments.iter().flat_map(|s| {
            s.unusable_indexes.iter().map(move |f| {
                format!("degraded: index {f} unreadable, {} is searched exactly; run `xvec repair`", s.file)
            })
        });
        rows.chain(indexes).collect()
    }
}

impl Collection {
    /// Counts and sizes of the current snapshot and of the directory's files.
    pub fn stats(&self) -> Stats {
        let snap = self.snapshot();
        let segments: Vec<SegmentStats> = snap
            .segments
            .iter()
            .map(|s| SegmentStats {
                id: s.segment.id(),
                file: crate::storage::segment_name(s.segment.id()),
                rows: s.segment.rows() as u64,
                deleted: s.deleted.len(),
                bytes: s.segment.file_len(),
                unreadable: s.unreadable(),
                damaged: s.segment.damage().map(|d| d.blocks.clone()).unwrap_or_default(),
                unusable_indexes: s.unusable_indexes(&snap.schema),
            })
            .collect();
        let mut disk_bytes = 0;
        let mut wal_bytes = 0;
        if let Ok(entries) = crate::storage::disk::list_dir(&self.dir) {
            for e in entries {
                disk_bytes += e.len;
                if FileKind::of_name(&e.name) == Some(FileKind::Wal) {
                    wal_bytes += e.len;
                }
            }
        }
        Stats {
            generation: snap.generation,
            wal_records: snap.wal_records,
            follow_error: self.follow.as_ref().and_then(|f| f.lock().ok()?.last_error.clone()),
            unindexed_rows: background::backlog_rows(&snap),
            background_jobs: self.background.get().map_or(0, |b| b.status.jobs.load(Ordering::Relaxed)),
            background_low_memory_builds: self
                .background
                .get()
                .map_or(0, |b| b.status.low_memory_builds.load(Ordering::Relaxed)),
            background_busy: self.background.get().is_some_and(|b| b.status.busy.load(Ordering::Relaxed) > 0),
            maintenance_paused: self.background.get().is_some_and(|b| b.status.is_paused()),
            write_stall_ms: self.background.get().map_or(0, |b| b.status.stall_ms.load(Ordering::Relaxed)),
            background_error: self.background.get().and_then(|b| b.status.last_error.lock().ok()?.clone()),
            live_docs: snap.count(),
            deleted_docs: segments.iter().map(|s| s.deleted).sum::<u64>() + snap.mem.dead_count(),
            segments,
            mem_rows: snap.mem.len() as u64,
            frozen_rows: snap.frozen.as_ref().map_or(0, |f| f.len() as u64),
            mem_live: snap.mem.live_count() as u64,
            wal_bytes,
            disk_bytes,
            index_builds: index_builds(&snap),
            memory_budget: self.options.memory_budget,
            memory_wanted: memory_wanted(&snap),
            disk: disk_usage(&snap),
        }
    }

    /// Records this handle appended to the WAL and has not fsynced yet; `None` for a
    /// read-only handle (a writer in another process keeps its own count).
    pub fn wal_unsynced(&self) -> Option<u64> {
        self.writer.as_ref().map(|w| w.lock().expect("writer lock poisoned").unsynced_records())
    }

    /// Memory held by this handle, by kind.
    pub fn memory(&self) -> MemoryUsage {
        let snap = self.snapshot();
        let mut m = MemoryUsage::default();
        for s in &snap.segments {
            let vectors = s.segment.vector_bytes() as u64;
            if s.segment.is_mapped() {
                m.mapped_vectors += vectors;
                m.mapped_other += s.segment.file_len() - vectors;
            }
            m.owned_segments += s.segment.heap_bytes() as u64;
            m.delete_bitmaps += s.deleted.serialized_size() as u64;
            for index in s.indexes.iter().flatten() {
                let b = index.bytes_by_kind();
                m.codes += b.codes;
                m.sketches += b.sketches;
                m.graph += b.graph;
                m.disk_cache += b.disk_cache;
                m.lists += b.lists;
            }
            m.scan_codes += s.scan.iter().flatten().map(|c| c.heap_bytes() as u64).sum::<u64>();
            m.scalar_indexes += s.scalar.iter().flat_map(|f| f.scalar()).map(|i| i.file_len()).sum::<u64>();
            m.text_indexes += s.scalar.iter().flat_map(|f| &f.text).map(|i| i.file_len()).sum::<u64>();
            m.sparse_indexes += s.scalar.iter().flat_map(|f| &f.sparse).map(|i| i.file_len()).sum::<u64>();
        }
        m.query_scratch = crate::index::segment_index::scratch_bytes();
        for mem in snap.mems() {
            m.mem_vectors += mem.vector_bytes() as u64;
            m.scan_codes += mem.scan_bytes() as u64;
            m.mem_other += (mem.heap_bytes() - mem.vector_bytes() - mem.scan_bytes()) as u64;
        }
        if let Some(w) = &self.writer {
            m.wal_buffer = w.lock().expect("writer lock poisoned").buffer_bytes() as u64;
        }
        m
    }
}

impl super::snapshot::Snapshot {
    /// What this snapshot's disk-resident indexes hold and have read so far, summed: a
    /// few relaxed atomic loads per segment, cheap enough to read around every query
    /// (the benchmark's node blocks read per query), unlike [`Collection::stats`],
    /// which lists the directory.
    pub fn disk_usage(&self) -> DiskUsage {
        disk_usage(self)
    }
}

/// See [`Stats::memory_wanted`].
fn memory_wanted(snap: &super::snapshot::Snapshot) -> u64 {
    use crate::storage::column::SegmentView;
    use crate::storage::column::VectorData;
    let vectors: Vec<usize> =
        (0..snap.schema.fields().len()).filter(|&f| snap.schema.field(f).as_vector().is_some()).collect();
    let mut wanted = 0u64;
    for s in &snap.segments {
        for &f in &vectors {
            let index = s.indexes.get(f).and_then(Option::as_ref);
            if let Some(index) = index {
                let b = index.bytes_by_kind();
                wanted += b.codes + b.sketches + b.graph + b.lists + b.disk_cache;
                if index.disk_stats().is_some() {
                    continue;
                }
            }
            wanted += match s.segment.vector(f).data {
                VectorData::Fp32(v) => v.len() as u64 * 4,
                VectorData::Fp16(v) => v.len() as u64 * 2,
                VectorData::Int8(v) => v.len() as u64,
            };
        }
    }
    wanted + snap.mems().map(|m| m.vector_bytes() as u64).sum::<u64>()
}

/// The disk-resident indexes of `snap`, summed.
fn disk_usage(snap: &super::snapshot::Snapshot) -> DiskUsage {
    let mut d = DiskUsage::default();
    for index in snap.segments.iter().flat_map(|s| s.indexes.iter().flatten()) {
        let Some(s) = index.disk_stats() else { continue };
        d.indexes += 1;
        d.block_bytes += s.block_bytes;
        d.code_bytes += index.bytes_by_kind().codes;
        d.cached_nodes += s.cached_nodes;
        d.cache_bytes += s.cache_bytes;
        d.searches += s.searches;
        d.blocks_read += s.blocks_read;
        d.cache_hits += s.cache_hits;
    }
    d
}
