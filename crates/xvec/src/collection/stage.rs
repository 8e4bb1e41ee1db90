//! An atomic batch of writes, all published by one manifest swap or none of them
//! (`xvec import --atomic`): LanceDB's append-as-one-version, SQLite's transaction.
//!
//! A [`Stage`] holds the writer for its whole life, as a transaction holds SQLite's write
//! lock: writes through the handle, flushes and maintenance wait until it commits or is
//! dropped, so nothing changes under the rows it stages. It starts from a flushed state
//! (an empty memtable), applies each batch to a private copy of the snapshot, and writes
//! its rows out as segments with ids past the manifest's `next_segment_id` whenever they
//! fill a memtable's worth, so memory stays bounded however large the import. Nothing
//! goes to the WAL. [`Stage::commit`] writes the last rows and the delete sets of the rows
//! the stage replaced, then publishes one version (operation `import`) naming them.
//!
//! Before the publish no version names a staged file: dropping the stage removes them,
//! and after a crash the next writable open removes them as files of an unpublished
//! generation (their ids are at or past the live manifest's `next_segment_id`; see
//! `recovery.rs`). Readers see the rows only once the commit is published.

use std::path::PathBuf;
use std::sync::MutexGuard;

use super::flush::{self, write_unpublished};
use super::mem::MemSegment;
use super::snapshot::{SegmentRef, Snapshot, install};
use super::writer::{self, Mode, Writer, apply, discard};
use super::{Collection, ItemResult, field_indexes};
use crate::error::{Error, ReadOnly};
use crate::storage::manifest::Operation;
use crate::storage::wal::Record;
use crate::value::Doc;

/// Rows a stage holds in memory before it writes them out as a segment, when the
/// collection sets no `auto_flush_rows`.
const DEFAULT_STAGE_ROWS: usize = 100_000;

/// Bytes of staged rows held in memory before they are written out, whatever the rows.
const STAGE_BYTES: usize = 256 << 20;

/// An atomic batch of writes; see the module docs. Made by [`Collection::stage`].
pub struct Stage<'a> {
    coll: &'a Collection,
    // Field order is drop order: the writer is released before maintenance may resume.
    writer: MutexGuard<'a, Writer>,
    _flushes: MutexGuard<'a, ()>,
    _jobs: MutexGuard<'a, ()>,
    /// The live state with the staged writes applied; its segments past `published` are
    /// the staged ones.
    snap: Snapshot,
    published: usize,
    /// The next segment id a staged segment takes.
    next_id: u64,
    /// Rows held in `snap.mem` before they are written out.
    spill_rows: usize,
    /// Staged files, removed unless a commit publishes them.
    made: Vec<PathBuf>,
}

impl Collection {
    /// Starts an atomic batch of writes: what is written through the returned [`Stage`]
    /// becomes visible, and durable, all at once when it commits, or not at all. The
    /// stage holds the writer until it commits or is dropped (other writes through this
    /// handle wait); it first flushes the memtable.
    ///
    /// ```
    /// # use xvec::{Collection, Doc, Field, Metric, Schema, VectorType};
    /// # let dir = tempfile::tempdir()?;
    /// # let schema = Schema::builder("v").field(Field::vector("emb", VectorType::Fp32, 2, Metric::L2)).build()?;
    /// let coll = Collection::create(dir.path(), schema, Default::default())?;
    /// let mut stage = coll.stage()?;
    /// stage.insert(vec![Doc::new("a").set("emb", vec![1.0f32, 0.0])])?;
    /// stage.insert(vec![Doc::new("b").set("emb", vec![0.0f32, 1.0])])?;
    /// drop(stage); // not committed: nothing was written
    /// assert_eq!(coll.count(), 0);
    /// let mut stage = coll.stage()?;
    /// stage.insert(vec![Doc::new("a").set("emb", vec![1.0f32, 0.0])])?;
    /// stage.commit()?;
    /// assert_eq!(coll.count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stage(&self) -> Result<Stage<'_>, Error> {
        let lock = self.writer.as_ref().ok_or(ReadOnly)?;
        let jobs = self.maintenance.lock().expect("maintenance lock poisoned");
        let flushes = self.flushing.lock().expect("flush lock poisoned");
        for _ in 0..super::alter::FLUSH_ATTEMPTS {
            flush::flush_locked(lock, &self.current, self.options.mmap)?;
            let w = lock.lock().expect("writer lock poisoned");
            w.check_running()?;
            let mut snap = (**self.current.read().expect("snapshot lock poisoned")).clone();
            if snap.mem.len() > 0 || snap.frozen.is_some() {
                continue;
            }
            // Its own memtable: the live one's chunks are shared with the live snapshot.
            snap.mem = MemSegment::new(&snap.schema);
            let rows = self.collection_options.auto_flush_rows;
            return Ok(Stage {
                coll: self,
                next_id: w.manifest.next_segment_id,
                writer: w,
                _flushes: flushes,
                _jobs: jobs,
                published: snap.segments.len(),
                snap,
                spill_rows: if rows > 0 { rows as usize } else { DEFAULT_STAGE_ROWS },
                made: Vec::new(),
            });
        }
        Err(Error::Busy(format!(
            "writes kept arriving while an atomic batch started ({} flushes); retry when writes pause",
            super::alter::FLUSH_ATTEMPTS
        )))
    }
}

impl Stage<'_> {
    /// Stages new documents, as [`Collection::insert`]: an existing key (stored, or
    /// staged earlier) fails that item.
    pub fn insert(&mut self, docs: Vec<Doc>) -> Result<Vec<ItemResult>, Error> {
        self.put(docs, Mode::Insert)
    }

    /// Stages documents or merges the given fields into existing ones, as
    /// [`Collection::upsert`].
    pub fn upsert(&mut self, docs: Vec<Doc>) -> Result<Vec<ItemResult>, Error> {
        self.put(docs, Mode::Upsert)
    }

    /// Stages a replacement of the given fields of existing documents, as
    /// [`Collection::update`].
    pub fn update(&mut self, docs: Vec<Doc>) -> Result<Vec<ItemResult>, Error> {
        self.put(docs, Mode::Update)
    }

    /// Stages deletes by key, as [`Collection::delete`].
    pub fn delete(&mut self, keys: &[&str]) -> Result<Vec<ItemResult>, Error> {
        let (records, results) = writer::delete_records(&self.snap, keys);
        self.apply(&records)?;
        Ok(results)
    }

    /// Live documents the collection will hold once the stage commits.
    pub fn count(&self) -> u64 {
        self.snap.count()
    }

    /// Publishes everything staged as one new version; returns it. On an error nothing
    /// is published (the writer may have stopped if the publish's outcome is unknown, as
    /// for any publish; the next open recovers).
    pub fn commit(mut self) -> Result<u64, Error> {
        self.spill()?;
        let dir = self.writer.dir.clone();
        let mmap = self.coll.options.mmap;
        let cur = self.coll.current.read().expect("snapshot lock poisoned").clone();
        let mut m = self.writer.manifest.clone();
        m.generation += 1;
        m.next_segment_id = self.next_id;
        let mut made = std::mem::take(&mut self.made);
        let mut gone = Vec::new();
        let mut segments = std::mem::take(&mut self.snap.segments);
        let staged = (|| {
            for s in segments.iter_mut().filter(|s| s.dirty) {
                s.deletes_file =
                    Some(self.writer.write_deletes(s.segment.id(), &s.deleted, m.generation, &mut made)?);
                s.dirty = false;
            }
            for s in &mut segments[self.published..] {
                field_indexes::complete(&dir, &cur.schema, s, mmap, &mut made, &mut gone)?;
            }
            Ok::<_, Error>(())
        })();
        staged.inspect_err(|_| discard(&made))?;
        m.segments = segments.iter().map(SegmentRef::entry).collect();
        m.stamp(Operation::Import);
        self.writer.publish(&m, &made)?;

        let replaced = install(&self.coll.current, cur.republished(m.generation, segments, cur.wal_records));
        let old = std::mem::replace(&mut self.writer.manifest, m);
        let mut obsolete = gone;
        obsolete.extend(self.writer.superseded_by_publish(&old));
        let version = self.writer.manifest.generation;
        let superseded = self.writer.superseded(obsolete, replaced);
        let coll = self.coll;
        drop(self);
        superseded.release();
        if let Some(bg) = coll.background.get() {
            bg.wake();
        }
        Ok(version)
    }

    fn put(&mut self, docs: Vec<Doc>, mode: Mode) -> Result<Vec<ItemResult>, Error> {
        let (records, results) = writer::put_records(&self.snap, docs, mode);
        self.apply(&records)?;
        Ok(results)
    }

    /// Applies validated records to the staged state, writing its rows out as a segment
    /// when they fill a memtable's worth.
    fn apply(&mut self, records: &[Record]) -> Result<(), Error> {
        self.writer.check_running()?;
        let dir = self.writer.dir.clone();
        for r in records {
            apply(&mut self.snap, r, &dir, 0)?;
        }
        if self.snap.mem.len() >= self.spill_rows || self.snap.mem.heap_bytes() >= STAGE_BYTES {
            self.spill()?;
        }
        Ok(())
    }

    /// Writes the staged rows held in memory out as the next staged segment.
    fn spill(&mut self) -> Result<(), Error> {
        let mem = std::mem::replace(&mut self.snap.mem, MemSegment::new(&self.snap.schema));
        let id = self.next_id;
        let written =
            write_unpublished(&self.writer.dir, &self.snap.schema, mem, id, self.coll.options.mmap, &mut self.made)?;
        if let Some(segment) = written {
            self.next_id += 1;
            self.snap.segments.push(segment);
        }
        Ok(())
    }
}

impl Drop for Stage<'_> {
    /// Not committed: the staged files go (no version names them).
    fn drop(&mut self) {
        discard(&self.made);
    }
}
