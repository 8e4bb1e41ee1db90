//! The handle's maintenance calls: flush, optimize, close, pausing and resuming the
//! background jobs.

use super::{Collection, OptimizeOptions, OptimizeReport, flush, optimize};
use crate::error::{Error, ReadOnly};

impl Collection {
    /// Seals the mutable segment into a segment file and publishes a new generation.
    ///
    /// Writes are durable once logged (per [`OpenOptions::sync`](super::OpenOptions::sync)); flushing bounds the WAL
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
        if let Some(bg) = self.background.get() {
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
        let opts = OptimizeOptions { memory_budget: opts.memory_budget.or(self.options.memory_budget), ..*opts };
        let report = optimize::optimize(writer, &self.current, locks, self.options.mmap, &opts);
        // The build threads' scratch and the rewritten segments' rows are free now.
        super::flush::return_freed_memory();
        report
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
        self.background.get().map(|b| b.pause()).is_some()
    }

    /// Resumes background maintenance after [`Collection::pause_maintenance`]; false when
    /// this handle runs no maintenance.
    pub fn resume_maintenance(&self) -> bool {
        self.background.get().map(|b| b.resume()).is_some()
    }
}
