//! A collection handle: open (writable or read-only), writes through the WAL, flush into
//! segments, and snapshots for queries.
//!
//! One writer per collection (an OS file lock); any number of read-only handles, in this
//! or other processes. Every write is validated, logged, then applied to the mutable
//! segment; `flush` seals it into a segment file and publishes a new manifest.

mod alter;
#[cfg(test)]
mod array_tests;
mod background;
#[cfg(test)]
mod background_tests;
mod explain;
#[cfg(test)]
mod field_change_tests;
mod flush;
#[cfg(test)]
mod flush_tests;
mod follow;
mod hybrid;
mod hybrid_json;
mod mem;
mod open;
mod optimize;
#[cfg(test)]
mod optimize_tests;
mod query;
pub(crate) mod recovery;
#[cfg(test)]
mod recovery_tests;
#[cfg(test)]
mod scalar_index_tests;
mod scalar_indexes;
#[cfg(test)]
mod scan_tests;
mod snapshot;
mod sparse_search;
mod text_search;
#[cfg(test)]
mod wal_cut_tests;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

pub use explain::Explain;
pub use follow::Refreshed;
pub use hybrid::{
    Branch, BranchHit, BranchKind, BranchTrace, DEFAULT_RRF_K, Fusion, HybridExplain, HybridHit, HybridQuery,
    MAX_BRANCHES,
};
pub use optimize::{OptimizeOptions, OptimizeProgress, OptimizeReport};
pub use query::{
    Group, GroupBy, Hit, MAX_EF, MAX_GROUP_HITS, MAX_K, MAX_REFINE_CANDIDATES, Query, SearchKind, SourceTrace, Target,
};
pub use recovery::Recovered;
pub(crate) use snapshot::SegmentRef;
pub use snapshot::{Location, Snapshot};
pub use text_search::MAX_QUERY_TERMS;
pub use text_search::{PostingsTrace, TextField};

use self::background::Background;
use self::follow::Follow;
use self::writer::Writer;
use crate::error::{Error, ReadOnly, StorageError};
use crate::schema::Schema;
use crate::storage::manifest::{CollectionOptions, Manifest};
use crate::storage::wal::{self, SyncPolicy};
use crate::storage::{FileKind, lock::WriterLock};
use crate::value::Doc;

/// How to open a collection.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct OpenOptions {
    /// Take the writer lock and allow writes.
    pub write: bool,
    /// Map segment files (default) or read them into owned buffers.
    pub mmap: bool,
    /// When the WAL is fsynced (writers only).
    pub sync: SyncPolicy,
    /// Check the CRC of vector sections on open too (other sections always are).
    pub verify_vectors: bool,
    /// How long a writable open waits for another writer's lock (zero: fail at once).
    pub lock_timeout: Duration,
    /// Read-only handles only: move to the writer's newest state at each query (see
    /// [`Collection::refresh`]). Off, a handle stays on what it opened until `refresh`.
    pub follow: bool,
    /// Threads a background index build or merge uses (at least 1, the default: the
    /// maintenance thread alone). More drain the index backlog faster, and so raise the
    /// rate writes can keep up before backpressure holds them, at the cost of the cores
    /// queries run on.
    pub maintenance_threads: usize,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            write: false,
            mmap: true,
            sync: SyncPolicy::EveryBatch,
            verify_vectors: true,
            lock_timeout: Duration::ZERO,
            follow: true,
            maintenance_threads: 1,
        }
    }
}

impl OpenOptions {
    /// Options for a read-only handle: no lock taken, writes fail with [`ReadOnly`].
    pub fn read_only() -> OpenOptions {
        OpenOptions::default()
    }

    /// Options for the writer: takes the collection's writer lock on open.
    pub fn writable() -> OpenOptions {
        OpenOptions { write: true, ..OpenOptions::default() }
    }

    /// Sets [`OpenOptions::mmap`].
    pub fn mmap(mut self, mmap: bool) -> OpenOptions {
        self.mmap = mmap;
        self
    }

    /// Sets [`OpenOptions::sync`].
    pub fn sync(mut self, sync: SyncPolicy) -> OpenOptions {
        self.sync = sync;
        self
    }

    /// Sets [`OpenOptions::verify_vectors`]; turning it off makes opening large
    /// collections faster at the cost of not noticing damaged vector bytes.
    pub fn verify_vectors(mut self, yes: bool) -> OpenOptions {
        self.verify_vectors = yes;
        self
    }

    /// Sets [`OpenOptions::follow`].
    pub fn follow(mut self, follow: bool) -> OpenOptions {
        self.follow = follow;
        self
    }

    /// Sets [`OpenOptions::maintenance_threads`] (0 counts as 1).
    pub fn maintenance_threads(mut self, threads: usize) -> OpenOptions {
        self.maintenance_threads = threads.max(1);
        self
    }

    /// Wait up to `timeout` for another writer to release the lock instead of failing at
    /// once with [`StorageError::Locked`].
    pub fn lock_timeout(mut self, timeout: Duration) -> OpenOptions {
        self.lock_timeout = timeout;
        self
    }
}

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
    pub fn by_kind(&self) -> [(&'static str, u64); 16] {
        // Destructured so that a new kind cannot be left out.
        let &MemoryUsage {
            mapped_vectors,
            mapped_other,
            owned_segments,
            codes,
            sketches,
            graph,
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

/// An open collection.
///
/// `Collection` is `Send + Sync` (checked at compile time): share one handle across
/// threads with `Arc` or scoped threads. Writes through it are serialized by an internal
/// lock; queries run concurrently, each on a pinned [`Snapshot`], so a slow write (WAL
/// append and fsync, flush, optimize) does not hold them up: taking a snapshot waits only
/// while a batch is applied in memory.
///
/// ```
/// use xvec::{Collection, Doc, Field, Metric, Query, Schema, ScalarType, VectorType};
/// let dir = tempfile::tempdir().unwrap();
/// let schema = Schema::builder("demo")
///     .field(Field::scalar("title", ScalarType::String))
///     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
///     .build()
///     .unwrap();
/// let coll = Collection::create(dir.path(), schema, Default::default()).unwrap();
/// coll.insert(vec![
///     Doc::new("a").set("title", "first").set("emb", vec![0.0f32, 0.0]),
///     Doc::new("b").set("title", "second").set("emb", vec![1.0f32, 1.0]),
/// ]).unwrap();
/// coll.flush().unwrap();
/// let hits = coll.query(&Query::vector(vec![0.9, 0.9]).k(1)).unwrap();
/// assert_eq!(hits[0].key, "b");
/// ```
pub struct Collection {
    dir: PathBuf,
    current: Arc<RwLock<Arc<Snapshot>>>,
    /// Stopped before the writer is released (fields drop in order).
    background: Option<Background>,
    writer: Option<Arc<Mutex<Writer>>>,
    /// Held by an optimize or a background job from start to end: one at a time.
    maintenance: Arc<Mutex<()>>,
    /// Held by a flush from its freeze to its publish: one at a time.
    flushing: Arc<Mutex<()>>,
    collection_options: CollectionOptions,
    /// Read-only handles: where they stand in the writer's history.
    follow: Option<Mutex<Follow>>,
    options: OpenOptions,
    recovered: Vec<recovery::Recovered>,
}

impl std::fmt::Debug for Collection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collection").field("dir", &self.dir).field("write", &self.writer.is_some()).finish()
    }
}

/// Outcome of one item of a batch write.
pub type ItemResult = Result<(), crate::error::DocError>;

impl Collection {
    /// Creates a new collection in `dir` (created if missing) and opens it for writing.
    ///
    /// `dir` must be empty or hold only what a create that did not finish leaves (no
    /// `CURRENT`; `LOCK`, `*.tmp`, the first manifest, a WAL with no record), which is
    /// removed; anything else fails with [`StorageError::NotEmpty`] naming the files.
    ///
    /// ```
    /// use xvec::{Collection, Field, Metric, Schema, VectorType};
    /// let dir = tempfile::tempdir()?;
    /// let schema = Schema::builder("docs").field(Field::vector("emb", VectorType::Fp32, 4, Metric::Cosine)).build()?;
    /// let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// assert!(coll.is_writable());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create(dir: impl AsRef<Path>, schema: Schema, options: CollectionOptions) -> Result<Collection, Error> {
        Collection::create_with(dir, schema, options, &OpenOptions::writable())
    }

    /// [`Collection::create`], opened with `open`'s mapping, sync policy and lock wait.
    pub fn create_with(
        dir: impl AsRef<Path>,
        schema: Schema,
        options: CollectionOptions,
        open: &OpenOptions,
    ) -> Result<Collection, Error> {
        let dir = dir.as_ref();
        let open = OpenOptions { write: true, ..open.clone() };
        crate::storage::disk::check_dir(dir, false)?;
        crate::storage::disk::create_dir_durable(dir)?;
        let lock = WriterLock::acquire_within(dir, open.lock_timeout)?;
        if dir.join("CURRENT").exists() {
            return Err(StorageError::AlreadyExists { path: dir.to_path_buf() }.into());
        }
        let m = Manifest::new(&schema, options);
        open::remove_unfinished_create(dir, &m)?;
        let wal = wal::WalWriter::create(dir, m.wal_seq, m.wal_salt, SyncPolicy::EveryBatch)?;
        m.publish(dir).map_err(StorageError::from)?;
        drop(wal);
        // Keep the lock: releasing and retaking it would let a process forked meanwhile
        // (holding a copy of the lock's descriptor until it execs) refuse our own open.
        Collection::open_locked(dir, &open, Some(lock))
    }

    /// Opens an existing collection. A path that is missing, a file, or a directory
    /// without `CURRENT` fails before anything is written there (not even `LOCK`).
    ///
    /// ```
    /// use xvec::{Collection, Error, OpenOptions};
    /// # use xvec::{Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// coll.close()?;
    /// let reader = Collection::open(dir.path(), &OpenOptions::read_only())?;
    /// assert_eq!(reader.count(), 2);
    /// assert!(matches!(reader.delete(&["dog"]), Err(Error::ReadOnly(_))));
    /// let writer = Collection::open(dir.path(), &OpenOptions::writable())?;
    /// assert!(writer.is_writable());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(dir: impl AsRef<Path>, options: &OpenOptions) -> Result<Collection, Error> {
        let dir = dir.as_ref();
        crate::storage::disk::check_dir(dir, true)?;
        if options.write && !dir.join("CURRENT").exists() {
            return Err(StorageError::NotACollection { path: dir.to_path_buf() }.into());
        }
        let lock = if options.write { Some(WriterLock::acquire_within(dir, options.lock_timeout)?) } else { None };
        Collection::open_locked(dir, options, lock)
    }

    fn open_locked(dir: &Path, options: &OpenOptions, lock: Option<WriterLock>) -> Result<Collection, Error> {
        // A read-only handle can race a writer's flush, which replaces CURRENT and removes
        // the files it superseded; such a race shows as a missing file, so retry.
        let mut attempt = 0;
        loop {
            let mut follow = lock.is_none().then(|| Follow::before_load(dir));
            match open::load(dir, options, lock.is_some(), None) {
                Ok((m, snapshot, wal_state)) => {
                    if let Some(f) = &mut follow {
                        f.loaded(dir, wal_state.as_ref().map(|(scan, _, _)| scan));
                    }
                    let schema = snapshot.schema.clone();
                    let mut recovered = Vec::new();
                    let writer = match lock {
                        Some(lock) => {
                            if let Some((scan, bytes, durable)) = &wal_state
                                && let Some((at, _)) = scan.torn
                            {
                                recovered.push(recovery::save_torn_tail(dir, &m, bytes, at, durable.as_ref())?);
                            }
                            recovered.extend(recovery::roll_back(dir, &m, &schema)?);
                            let scan = wal_state.map(|(scan, _, _)| scan);
                            let mut w = Writer::new(dir, lock, m.clone(), schema.clone(), scan, options.sync)?;
                            w.adopt_frozen(&snapshot);
                            Some(Arc::new(Mutex::new(w)))
                        }
                        None => None,
                    };
                    let current = Arc::new(RwLock::new(Arc::new(snapshot)));
                    let maintenance = Arc::new(Mutex::new(()));
                    let flushing = Arc::new(Mutex::new(()));
                    let background = match &writer {
                        Some(writer) if m.options.background() => Some(Background::start(background::Shared {
                            writer: writer.clone(),
                            current: current.clone(),
                            maintenance: maintenance.clone(),
                            flushing: flushing.clone(),
                            mmap: options.mmap,
                            flush_rows: background::flush_rows(&m.options, &schema),
                            flush_bytes: m.options.auto_flush_bytes,
                            threads: options.maintenance_threads.max(1),
                        })),
                        _ => None,
                    };
                    return Ok(Collection {
                        dir: dir.to_path_buf(),
                        current,
                        background,
                        writer,
                        follow: follow.map(Mutex::new),
                        maintenance,
                        flushing,
                        collection_options: m.options.clone(),
                        options: options.clone(),
                        recovered,
                    });
                }
                Err(Error::Storage(StorageError::Io { source, .. }))
                    if source.kind() == std::io::ErrorKind::NotFound && lock.is_none() && attempt < 10 =>
                {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(5 * attempt));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The collection directory this handle was opened on.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The options the collection was created with.
    pub fn options(&self) -> &CollectionOptions {
        &self.collection_options
    }

    /// The collection's schema as of the latest snapshot (an alter changes it).
    pub fn schema(&self) -> Arc<Schema> {
        self.snapshot().schema.clone()
    }

    /// Whether this handle holds the writer lock (opened with [`OpenOptions::writable`]
    /// or by `create`).
    pub fn is_writable(&self) -> bool {
        self.writer.is_some()
    }

    /// What this (writable) open did to recover from a crash: leftovers of an interrupted
    /// publish rolled back, a torn WAL tail cut off. Also logged in `lost+found/log`.
    pub fn recovered(&self) -> &[recovery::Recovered] {
        &self.recovered
    }

    /// Pins the current state for queries; it stays valid after later writes, flushes and
    /// even after this handle is closed.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// use xvec::Params;
    /// let snap = coll.snapshot();
    /// coll.delete(&["dog"])?;
    /// // The pinned snapshot still sees the deleted document.
    /// let nouns = snap.keys_where_with(Some("pos = $p"), &Params::new().set("p", "n"))?;
    /// assert_eq!(nouns, ["dog"]);
    /// assert_eq!(coll.count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// A read-only handle opened with [`OpenOptions::follow`] (the default) first moves to
    /// the writer's newest state, as [`Collection::refresh`] does; when another thread of
    /// the handle is doing that already, it returns the snapshot it has instead of
    /// waiting. A snapshot never changes: hold it to pin a state.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        if self.options.follow
            && let Some(follow) = &self.follow
            && let Ok(mut f) = follow.try_lock()
        {
            let outcome = f.refresh(&self.dir, &self.options, &self.current);
            f.last_error = outcome.err().map(|e| e.to_string());
        }
        self.current.read().expect("snapshot lock poisoned").clone()
    }

    /// Moves a read-only handle to the newest state the writer has published or logged:
    /// a new generation is loaded sharing every file already open; WAL records appended
    /// since are read frame by frame, checksums checked, whole batches only. What a
    /// reader can see of records not yet synced depends on the writer's
    /// [`SyncPolicy`] (see `docs/durability.md`). A writable handle is always current.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, OpenOptions, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("w").field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2)).build()?;
    /// let writer = Collection::create(dir.path(), schema, Default::default())?;
    /// let reader = Collection::open(dir.path(), &OpenOptions::read_only().follow(false))?;
    /// writer.insert(vec![Doc::new("a").set("emb", vec![1.0f32, 0.0])])?;
    /// assert_eq!(reader.count(), 0);
    /// let seen = reader.refresh()?;
    /// assert_eq!((seen.wal_records, reader.count()), (1, 1));
    /// writer.flush()?;
    /// assert_eq!(reader.refresh()?.generation, writer.stats().generation);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn refresh(&self) -> Result<Refreshed, Error> {
        match &self.follow {
            Some(follow) => {
                let mut f = follow.lock().expect("follow lock poisoned");
                let outcome = f.refresh(&self.dir, &self.options, &self.current);
                f.last_error = outcome.as_ref().err().map(|e| e.to_string());
                outcome
            }
            None => {
                let snap = self.current.read().expect("snapshot lock poisoned").clone();
                Ok(Refreshed { generation: snap.generation, wal_records: snap.wal_records, changed: false })
            }
        }
    }

    /// Runs a write under the writer lock, after waiting out a backlog of unindexed rows,
    /// and freezes the memtable for the background flusher when it reached
    /// `auto_flush_rows` or `auto_flush_bytes` (see [`CollectionOptions`]) and no flush is
    /// under way.
    fn write<T>(&self, op: impl FnOnce(&mut Writer) -> Result<T, Error>) -> Result<T, Error> {
        if let Some(bg) = &self.background {
            let limit = bg.flush_rows.saturating_mul(4);
            bg.status.wait_for_backlog(&bg.stop, || background::backlog_rows(&self.snapshot()) > limit);
        }
        let mut w = self.writer()?;
        let out = op(&mut w)?;
        if let Some(bg) = &self.background {
            bg.status.wrote();
        }
        if let Some(bg) = &self.background
            && w.pending_flush().is_none()
            && bg.is_full(&self.current.read().expect("snapshot lock poisoned").mem)
        {
            // The write is acknowledged: a failed freeze is reported by stats and retried.
            match w.freeze(&self.current) {
                Ok(_) => bg.wake_flusher(),
                Err(e) => bg.status.record_error(&e),
            }
        }
        Ok(out)
    }

    fn writer(&self) -> Result<MutexGuard<'_, Writer>, Error> {
        match &self.writer {
            Some(w) => Ok(w.lock().expect("writer lock poisoned")),
            None => Err(ReadOnly.into()),
        }
    }

    /// Inserts new documents; an existing key fails that item.
    ///
    /// Each item is validated on its own: a bad document fails its entry of the returned
    /// list (same order as `docs`) and the rest are still written, as one WAL batch. The
    /// outer error is for the batch as a whole (read-only handle, I/O).
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// use xvec::DocError;
    /// let results = coll.insert(vec![
    ///     Doc::new("cat").set("pos", "n").set("emb", vec![0.9f32, 0.1]),
    ///     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// ])?;
    /// assert!(results[0].is_ok());
    /// assert!(matches!(results[1], Err(DocError::DuplicateKey(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn insert(&self, docs: Vec<Doc>) -> Result<Vec<ItemResult>, Error> {
        self.write(|w| w.write(&self.current, docs, writer::Mode::Insert))
    }

    /// Inserts documents or merges the given fields into existing ones.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// let fox = Doc::new("fox").set("pos", "n").set("emb", vec![0.5f32, 0.5]);
    /// let results = coll.upsert(vec![Doc::new("dog").set("pos", "noun"), fox])?;
    /// assert!(results.iter().all(|r| r.is_ok()));
    /// let docs = coll.fetch(&["dog"], None)?;
    /// assert_eq!(docs[0].as_ref().unwrap().get("pos"), Some(&"noun".into()));
    /// assert_eq!(coll.count(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn upsert(&self, docs: Vec<Doc>) -> Result<Vec<ItemResult>, Error> {
        self.write(|w| w.write(&self.current, docs, writer::Mode::Upsert))
    }

    /// Replaces the given fields of existing documents; a missing key fails that item.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// use xvec::DocError;
    /// let results = coll.update(vec![Doc::new("run").set("pos", "verb"), Doc::new("fox").set("pos", "n")])?;
    /// assert!(results[0].is_ok());
    /// assert!(matches!(results[1], Err(DocError::NotFound(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update(&self, docs: Vec<Doc>) -> Result<Vec<ItemResult>, Error> {
        self.write(|w| w.write(&self.current, docs, writer::Mode::Update))
    }

    /// Deletes documents by key; a missing key fails that item.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// let results = coll.delete(&["dog", "fox"])?;
    /// assert!(results[0].is_ok() && results[1].is_err());
    /// assert_eq!(coll.count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn delete(&self, keys: &[&str]) -> Result<Vec<ItemResult>, Error> {
        self.write(|w| w.delete(&self.current, keys))
    }

    /// Deletes every live document matching `filter`; returns how many.
    pub fn delete_where(&self, filter: &str) -> Result<u64, Error> {
        self.delete_where_with(filter, &crate::filter::Params::new())
    }

    /// [`Collection::delete_where`] with the filter's `$name` placeholders bound to `params`.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// use xvec::Params;
    /// let gone = coll.delete_where_with("pos IN $kinds", &Params::new().set("kinds", vec!["v", "adj"]))?;
    /// assert_eq!(gone, 1);
    /// assert_eq!(coll.count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn delete_where_with(&self, filter: &str, params: &crate::filter::Params) -> Result<u64, Error> {
        let mut w = self.writer()?;
        let keys = self.snapshot().keys_where_with(Some(filter), params)?;
        let refs: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
        w.delete(&self.current, &refs)?;
        Ok(keys.len() as u64)
    }

    /// Fetches documents by key (`None` when missing), in the order of `keys`; `fields`
    /// limits the fields returned (`None`: every field).
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// let docs = coll.fetch(&["run", "cat"], Some(&["pos".to_string()]))?;
    /// let run = docs[0].as_ref().unwrap();
    /// assert_eq!(run.get("pos"), Some(&"v".into()));
    /// assert!(run.get("emb").is_none());
    /// assert!(docs[1].is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fetch(&self, keys: &[&str], fields: Option<&[String]>) -> Result<Vec<Option<Doc>>, Error> {
        self.snapshot().fetch(keys, fields)
    }

    /// Nearest-neighbour search over the current snapshot.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// use xvec::{Params, Query};
    /// let q = Query::vector(vec![0.1, 0.9]).k(5).filter("pos = $pos").params(Params::new().set("pos", "n"));
    /// let hits = coll.query(&q)?;
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!(hits[0].key, "dog");
    /// assert!((hits[0].score - 1.62).abs() < 1e-5); // squared L2 distance
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn query(&self, q: &Query) -> Result<Vec<Hit>, Error> {
        self.snapshot().query(q)
    }

    /// A hybrid query: dense, full-text and key branches under one filter, fused (see
    /// [`Snapshot::hybrid`]).
    pub fn hybrid(&self, q: &HybridQuery) -> Result<Vec<HybridHit>, Error> {
        self.snapshot().hybrid(q)
    }

    /// Nearest-neighbour search grouped by a scalar field (see [`Snapshot::query_groups`]).
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// use xvec::{GroupBy, Query};
    /// coll.insert(vec![Doc::new("cat").set("pos", "n").set("emb", vec![0.9f32, 0.1])])?;
    /// let by = GroupBy::new("pos", 2, 2);
    /// let groups = coll.query_groups(&Query::vector(vec![1.0, 0.0]), &by)?;
    /// assert_eq!(groups[0].value, "n".into());
    /// assert_eq!(groups[0].hits.len(), 2);
    /// assert_eq!(groups[1].hits[0].key, "run");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn query_groups(&self, q: &Query, by: &GroupBy) -> Result<Vec<Group>, Error> {
        self.snapshot().query_groups(q, by)
    }

    /// Live documents.
    pub fn count(&self) -> u64 {
        self.snapshot().count()
    }

    /// Seals the mutable segment into a segment file and publishes a new generation.
    ///
    /// Writes are durable once logged (per [`OpenOptions::sync`]); flushing bounds the WAL
    /// that the next open replays. Other writes wait only for the two brief publishes,
    /// not for the segment file to be written (see `collection/flush.rs`).
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, ScalarType, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("words")
    /// #     .field(Field::scalar("pos", ScalarType::String))
    /// #     .field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2))
    /// #     .build()?;
    /// # let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// # coll.insert(vec![
    /// #     Doc::new("dog").set("pos", "n").set("emb", vec![1.0f32, 0.0]),
    /// #     Doc::new("run").set("pos", "v").set("emb", vec![0.0f32, 1.0]),
    /// # ])?;
    /// coll.flush()?;
    /// let stats = coll.stats();
    /// assert_eq!((stats.segments.len(), stats.mem_rows), (1, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn flush(&self) -> Result<(), Error> {
        let writer = self.writer.as_ref().ok_or(ReadOnly)?;
        flush::flush(writer, &self.current, &self.flushing, self.options.mmap)?;
        if let Some(bg) = &self.background {
            bg.wake();
        }
        Ok(())
    }

    /// Rewrites the live data into compact segments and builds every field's index;
    /// publishes the result atomically. Writes, deletes and queries go on meanwhile: the
    /// writer lock is taken only to flush at the start and to publish at the end, and
    /// deletes that arrive during the build are carried into the new segments. One
    /// optimize runs at a time per handle.
    ///
    /// ```
    /// use xvec::{Collection, Doc, Field, HnswParams, IndexParams, Metric, OptimizeOptions, Schema, VectorType};
    /// let dir = tempfile::tempdir()?;
    /// let hnsw = IndexParams::Hnsw(HnswParams::default().m(8));
    /// let field = Field::vector("emb", VectorType::Fp32, 2, Metric::L2).index(hnsw);
    /// let coll = Collection::create(dir.path(), Schema::builder("g").field(field).build()?, Default::default())?;
    /// for i in 0..3 {
    ///     coll.insert(vec![Doc::new(format!("k{i}")).set("emb", vec![i as f32, 1.0])])?;
    ///     coll.flush()?;
    /// }
    /// coll.delete(&["k0"])?;
    /// let mut opts = OptimizeOptions::default();
    /// opts.concurrency = 1;
    /// let report = coll.optimize(&opts)?;
    /// assert_eq!((report.segments_before, report.segments_after), (3, 1));
    /// assert_eq!((report.rows, report.dropped, report.indexes_built), (2, 1, 1));
    /// assert_eq!(coll.stats().deleted_docs, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn optimize(&self, opts: &OptimizeOptions) -> Result<OptimizeReport, Error> {
        let writer = self.writer.as_ref().ok_or(ReadOnly)?;
        let locks = optimize::Locks { maintenance: &self.maintenance, flushing: &self.flushing };
        optimize::optimize(writer, &self.current, locks, self.options.mmap, opts)
    }

    /// Syncs the WAL and releases the writer lock. Snapshots taken earlier stay usable.
    pub fn close(self) -> Result<(), Error> {
        if let Some(w) = &self.writer {
            w.lock().expect("writer lock poisoned").sync()?;
        }
        Ok(())
    }

    /// Pauses background maintenance: a running index build or merge is cancelled (its
    /// files removed, its work lost) and none starts until [`Collection::resume_maintenance`].
    /// Automatic flushes go on, and writes no longer wait for the index backlog (unindexed
    /// rows, scanned by queries, grow instead). For a burst of queries or writes that
    /// must not share the cores; false when this handle runs no maintenance.
    pub fn pause_maintenance(&self) -> bool {
        self.background.as_ref().map(|b| b.pause()).is_some()
    }

    /// Resumes background maintenance after [`Collection::pause_maintenance`]; false when
    /// this handle runs no maintenance.
    pub fn resume_maintenance(&self) -> bool {
        self.background.as_ref().map(|b| b.resume()).is_some()
    }

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
            })
            .collect();
        let mut disk_bytes = 0;
        let mut wal_bytes = 0;
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for e in entries.flatten() {
                let len = e.metadata().map(|m| m.len()).unwrap_or(0);
                disk_bytes += len;
                if FileKind::of_name(&e.file_name().to_string_lossy()) == Some(FileKind::Wal) {
                    wal_bytes += len;
                }
            }
        }
        Stats {
            generation: snap.generation,
            wal_records: snap.wal_records,
            follow_error: self.follow.as_ref().and_then(|f| f.lock().ok()?.last_error.clone()),
            unindexed_rows: background::backlog_rows(&snap),
            background_jobs: self.background.as_ref().map_or(0, |b| b.status.jobs.load(Ordering::Relaxed)),
            background_busy: self.background.as_ref().is_some_and(|b| b.status.busy.load(Ordering::Relaxed) > 0),
            maintenance_paused: self.background.as_ref().is_some_and(|b| b.status.is_paused()),
            write_stall_ms: self.background.as_ref().map_or(0, |b| b.status.stall_ms.load(Ordering::Relaxed)),
            background_error: (self.background.as_ref()).and_then(|b| b.status.last_error.lock().ok()?.clone()),
            live_docs: snap.count(),
            deleted_docs: segments.iter().map(|s| s.deleted).sum::<u64>() + snap.mem.dead_count(),
            segments,
            mem_rows: snap.mem.len() as u64,
            frozen_rows: snap.frozen.as_ref().map_or(0, |f| f.len() as u64),
            mem_live: snap.mem.live_count() as u64,
            wal_bytes,
            disk_bytes,
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
                m.lists += b.lists;
            }
            m.scan_codes += s.scan.iter().flatten().map(|c| c.heap_bytes() as u64).sum::<u64>();
            m.scalar_indexes += s.scalar.iter().flat_map(|f| f.iter()).map(|i| i.file_len()).sum::<u64>();
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

impl Drop for Collection {
    fn drop(&mut self) {
        if let Some(w) = &self.writer
            && let Ok(mut w) = w.lock()
        {
            let _ = w.sync();
        }
    }
}

// Fails the build if a field change makes the handle or a snapshot lose `Send + Sync`,
// which their docs promise.
const _: () = {
    fn assert_send_sync<T: Send + Sync>() {}
    let _ = assert_send_sync::<Collection>;
    let _ = assert_send_sync::<Snapshot>;
};
