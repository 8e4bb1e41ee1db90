//! The read half of the handle: fetch, query, hybrid and grouped search, count, each on
//! the current snapshot.

use super::{Collection, Group, GroupBy, Hit, HybridHit, HybridQuery, Query};
use crate::error::Error;
use crate::value::Doc;

impl Collection {
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
    /// [`Snapshot::hybrid`](super::Snapshot::hybrid)).
    pub fn hybrid(&self, q: &HybridQuery) -> Result<Vec<HybridHit>, Error> {
        self.snapshot().hybrid(q)
    }

    /// Nearest-neighbour search grouped by a scalar field (see [`Snapshot::query_groups`](super::Snapshot::query_groups)).
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
}
