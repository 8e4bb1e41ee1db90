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
mod browse;
#[cfg(test)]
mod browse_tests;
mod bulk;
#[cfg(test)]
mod bulk_tests;
#[cfg(test)]
mod degraded_tests;
mod explain;
mod facets;
#[cfg(test)]
mod facets_tests;
#[cfg(test)]
mod field_change_tests;
mod field_indexes;
mod flush;
#[cfg(test)]
mod flush_tests;
mod follow;
mod hybrid;
mod hybrid_json;
mod maintenance;
mod mem;
mod open;
mod optimize;
#[cfg(test)]
mod optimize_tests;
mod options;
mod query;
mod read_ops;
pub(crate) mod recovery;
#[cfg(test)]
mod recovery_tests;
#[cfg(test)]
mod scalar_index_tests;
#[cfg(test)]
mod scan_tests;
#[cfg(test)]
mod set_index_tests;
mod snapshot;
mod sparse_search;
mod stage;
#[cfg(test)]
mod stage_tests;
mod stats;
mod text_search;
mod text_stats;
mod versions;
#[cfg(test)]
mod versions_fault_tests;
#[cfg(test)]
mod versions_tests;
#[cfg(test)]
mod wal_cut_tests;
mod write_ops;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

pub use browse::{ScanPage, ScanRequest};
pub use bulk::{MAX_QUERY_THREADS, Scan, ScanPart};
pub use explain::Explain;
pub use facets::{Facets, FieldStats};
pub(crate) use follow::Refreshed;
pub use hybrid::{
    Branch, BranchHit, BranchKind, BranchTrace, DEFAULT_RRF_K, Fusion, HybridExplain, HybridHit, HybridQuery,
    MAX_BRANCHES, Ranked, Ranking, fuse,
};
pub use optimize::{OptimizeOptions, OptimizeProgress, OptimizeReport};
pub use options::{DEFAULT_DISK_CACHE, OpenOptions};
pub use query::{
    Group, GroupBy, Hit, MAX_EF, MAX_GROUP_HITS, MAX_K, MAX_REFINE_CANDIDATES, Query, SearchKind, SourceTrace, Target,
};
pub use recovery::Recovered;
pub(crate) use snapshot::SegmentRef;
pub use snapshot::{Location, Snapshot};
pub use stage::Stage;
pub use stats::{DiskUsage, IndexBuild, MemoryUsage, SegmentStats, Stats};
pub use text_search::MAX_QUERY_TERMS;
pub use text_search::{PostingsTrace, TextField};
pub use text_stats::{TextFieldStats, TextStats};
pub use versions::Version;

use self::background::Background;
use self::follow::Follow;
use self::writer::Writer;
use crate::error::{Error, StorageError};
use crate::schema::Schema;
use crate::storage::lock::WriterLock;
use crate::storage::manifest::{CollectionOptions, Manifest};
use crate::storage::wal::{self, SyncPolicy};

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
    /// Stopped before the writer is released (fields drop in order). Started at open when
    /// the collection flushes automatically or a set-index's rebuild is pending, else by
    /// the set-index that needs it.
    background: std::sync::OnceLock<Background>,
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
        Collection::open_locked(dir, &open, Some(lock), None)
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
        Collection::open_locked(dir, options, lock, None)
    }

    /// Opens this handle's collection again as the writer (waiting up to
    /// `options.lock_timeout` for the lock), sharing every segment, delete set and index
    /// this handle has open: only what changed since, the WAL and the lock cost anything.
    /// For a face that takes the writer lock per statement and releases it when idle
    /// (`xvec shell --write`): reopening a 116,659-row collection this way takes
    /// milliseconds where a fresh open checksums every file. `options.write` is implied.
    pub fn reopen_writable(&self, options: &OpenOptions) -> Result<Collection, Error> {
        let options = OpenOptions { write: true, ..options.clone() };
        let prev = self.snapshot();
        let lock = WriterLock::acquire_within(&self.dir, options.lock_timeout)?;
        Collection::open_locked(&self.dir, &options, Some(lock), Some(&prev))
    }

    /// Opens `dir` holding `lock` (or none: read-only), sharing what `prev` (a snapshot of
    /// the same collection) has open.
    fn open_locked(
        dir: &Path,
        options: &OpenOptions,
        lock: Option<WriterLock>,
        prev: Option<&Snapshot>,
    ) -> Result<Collection, Error> {
        // A read-only handle can race a writer's flush, which replaces CURRENT and removes
        // the files it superseded; such a race shows as a missing file, so retry.
        let mut attempt = 0;
        loop {
            let mut follow = lock.is_none().then(|| Follow::before_load(dir));
            // A file of the generation read may be gone, or (an index a set-index rebuilt
            // under its old name) replaced, by the time it is opened: retried when the
            // writer has moved on meanwhile.
            let named = lock.is_none().then(|| crate::storage::manifest::read_current(dir).ok()).flatten();
            match open::load(dir, options, lock.is_some(), prev) {
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
                    let rebuilding = !snapshot.rebuilding.is_empty();
                    let coll = Collection {
                        dir: dir.to_path_buf(),
                        current: Arc::new(RwLock::new(Arc::new(snapshot))),
                        background: Default::default(),
                        writer,
                        follow: follow.map(Mutex::new),
                        maintenance: Arc::new(Mutex::new(())),
                        flushing: Arc::new(Mutex::new(())),
                        collection_options: m.options.clone(),
                        options: options.clone(),
                        recovered,
                    };
                    if m.options.background() || rebuilding {
                        coll.start_background();
                    }
                    return Ok(coll);
                }
                Err(e)
                    if lock.is_none() && attempt < 10 && (is_not_found(&e) || current_moved(dir, named.as_deref())) =>
                {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(5 * attempt));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The background threads of a writable handle, started if they are not yet (see
    /// `background.rs`); `None` for a read-only handle.
    fn start_background(&self) -> Option<&Background> {
        let writer = self.writer.as_ref()?;
        let o = &self.collection_options;
        Some(self.background.get_or_init(|| {
            let shared = background::Shared {
                writer: writer.clone(),
                current: self.current.clone(),
                maintenance: self.maintenance.clone(),
                flushing: self.flushing.clone(),
                mmap: self.options.mmap,
                flush_rows: background::flush_rows(o, &self.current.read().expect("snapshot lock poisoned").schema),
                flush_bytes: o.auto_flush_bytes,
                threads: self.options.maintenance_threads.max(1),
                memory_budget: self.options.memory_budget,
            };
            Background::start(shared, o.background())
        }))
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
}

fn is_not_found(e: &Error) -> bool {
    matches!(e, Error::Storage(StorageError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound)
}

/// Whether `CURRENT` names another manifest than `before` (read before a load).
fn current_moved(dir: &Path, before: Option<&str>) -> bool {
    crate::storage::manifest::read_current(dir).ok().as_deref() != before
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
