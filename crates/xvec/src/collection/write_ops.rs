//! The write half of the handle: inserts, upserts, updates and deletes, each run under
//! the writer lock after waiting out the index backlog.

use std::sync::MutexGuard;

use super::writer::{self, Writer};
use super::{Collection, ItemResult, background};
use crate::error::{Error, ReadOnly};
use crate::value::Doc;

impl Collection {
    /// Runs a write under the writer lock, after waiting out a backlog of unindexed rows,
    /// and freezes the memtable for the background flusher when it reached
    /// `auto_flush_rows` or `auto_flush_bytes` (see [`CollectionOptions`](crate::storage::manifest::CollectionOptions)) and no flush is
    /// under way.
    pub(super) fn write<T>(&self, op: impl FnOnce(&mut Writer) -> Result<T, Error>) -> Result<T, Error> {
        if let Some(bg) = self.background.get().filter(|bg| bg.auto) {
            let limit = bg.flush_rows.saturating_mul(4);
            bg.status.wait_for_backlog(&bg.stop, || background::write_backlog(&self.snapshot()) > limit);
        }
        let mut w = self.writer()?;
        let out = op(&mut w)?;
        if let Some(bg) = self.background.get() {
            bg.status.wrote();
        }
        if let Some(bg) = self.background.get()
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

    pub(super) fn writer(&self) -> Result<MutexGuard<'_, Writer>, Error> {
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
}
